#include "plan/compiled_expressions.hpp"

#include <algorithm>
#include <span>

#include "common/errors.hpp"
#include "operators/device_program.hpp"
#include "operators/gather.hpp"
#include "operators/projection.hpp"
#include "operators/relation.hpp"
#include "operators/selection.hpp"
#include "plan/query_plan.hpp"
#include "plan/row_set.hpp"
#include "runtime/device_table.hpp"

namespace clq {

ExpressionProgram EmptyProgram(const sql::BoundSelect& select, bool in_place, std::size_t source,
                               const std::vector<std::pair<std::size_t, std::size_t>>& gathered) {
  std::vector<VmInputColumn> columns;
  if (in_place) {
    const Table& table = *select.from.at(source).table;
    for (std::size_t c = 0; c < table.column_slots(); ++c)
      columns.push_back(TableVmColumn(table, c));
    return ExpressionProgram(std::move(columns), [source](std::size_t from, std::size_t column) {
      CLQ_CHECK(from == source, "a table's program reads another table");
      return column;
    });
  }
  for (const auto& [from, column] : gathered)
    columns.push_back(GatheredVmColumn(select, from, column));
  return ExpressionProgram(std::move(columns), RowSet::GatheredMapper(gathered));
}

VmInputColumn GatheredVmColumn(const sql::BoundSelect& select, std::size_t source,
                               std::size_t column) {
  VmInputColumn input = TableVmColumn(*select.from.at(source).table, column);
  if (select.from[source].outer) input.nullable = true;
  return input;
}

KernelSet GatheredColumnKernels(const sql::BoundSelect& select,
                                const std::vector<std::pair<std::size_t, std::size_t>>& columns,
                                bool together) {
  std::vector<VmInputColumn> plain, outer;
  for (const auto& [source, column] : columns)
    (select.from.at(source).outer ? outer : plain)
        .push_back(TableVmColumn(*select.from[source].table, column));
  KernelSet kernels = GatherKernels(plain, together);
  kernels.Add(GatherKernels(outer, together, true));
  return kernels;
}

namespace {

std::vector<std::pair<std::size_t, std::size_t>> ColumnsRead(
    const std::vector<const sql::Expr*>& exprs) {
  std::vector<std::pair<std::size_t, std::size_t>> read;
  for (const sql::Expr* e : exprs)
    ColumnsOf(*e, read);
  return read;
}

// Rows per tablet of a step's input: the table's tablets in place, else one
// vector of at most the shape's rows.
RowCount TabletRows(const Engine& engine, const sql::BoundSelect& select, bool in_place,
                    RowShape shape) {
  if (!in_place) return shape.max_rows;
  const Table& table = *select.from.at(shape.source).table;
  return std::min(table.rows(), engine.tables().TabletRows(table));
}

}  // namespace

KernelSet MaterializeKernels(const sql::BoundSelect& select, RowShape shape,
                             const std::vector<std::pair<std::size_t, std::size_t>>& gathered) {
  KernelSet kernels;
  if (shape.kind == RowShape::Kind::kRange && !gathered.empty()) kernels.Add("gather_iota");
  kernels.Add(GatheredColumnKernels(select, gathered, false));
  return kernels;
}

std::vector<CompiledPredicate> CompilePredicate(const sql::BoundSelect& select,
                                                const sql::Expr& predicate, RowShape shape) {
  CLQ_CHECK(shape.kind != RowShape::Kind::kRange, "a filter over a range of a table");
  std::vector<sql::Expr> conjuncts;
  SplitConjuncts(predicate, conjuncts);
  std::vector<const sql::Expr*> pointers;
  for (const sql::Expr& c : conjuncts)
    pointers.push_back(&c);
  const auto batches = BatchByColumns(pointers);
  std::vector<CompiledPredicate> compiled;
  for (std::size_t b = 0; b < batches.size(); ++b) {
    // One batch runs the predicate as written; several run theirs in turn,
    // each over the rows the ones before kept.
    sql::Expr batch_predicate = predicate;
    if (batches.size() > 1) {
      std::vector<sql::Expr> batch_conjuncts;
      for (const sql::Expr* c : batches[b])
        batch_conjuncts.push_back(*c);
      batch_predicate = *AndAll(batch_conjuncts);
    }
    const bool in_place = b == 0 && shape.kind == RowShape::Kind::kWholeTable;
    std::vector<std::pair<std::size_t, std::size_t>> gathered;
    if (!in_place) gathered = ColumnsRead({&batch_predicate});
    ExpressionProgram program = EmptyProgram(select, in_place, shape.source, gathered);
    const std::size_t entry = program.AddPredicate(batch_predicate);
    compiled.push_back(
        {std::move(batch_predicate), in_place, std::move(gathered), std::move(program), entry});
  }
  return compiled;
}

CompiledValues CompileValues(const sql::BoundSelect& select, std::vector<const sql::Expr*> exprs,
                             RowShape shape) {
  CompiledValues values;
  values.exprs = std::move(exprs);
  std::vector<const sql::Expr*> computed;
  std::vector<std::size_t> computed_index;
  for (std::size_t i = 0; i < values.exprs.size(); ++i) {
    if (values.exprs[i]->kind == sql::Expr::Kind::kColumnRef) continue;
    computed.push_back(values.exprs[i]);
    computed_index.push_back(i);
  }
  std::size_t next = 0;
  for (const std::vector<const sql::Expr*>& batch : BatchByColumns(computed)) {
    CompiledValues::Batch compiled{
        {}, shape.kind == RowShape::Kind::kWholeTable, {}, ExpressionProgram({}, {}), {}};
    if (!compiled.in_place) compiled.gathered = ColumnsRead(batch);
    compiled.program = EmptyProgram(select, compiled.in_place, shape.source, compiled.gathered);
    for (const sql::Expr* e : batch) {
      compiled.outputs.push_back(computed_index[next++]);
      compiled.entries.push_back(compiled.program.AddValue(*e));
    }
    values.batches.push_back(std::move(compiled));
  }
  return values;
}

std::vector<ValueVectorType> ValueVectorTypes(const sql::BoundSelect& select,
                                              const CompiledValues& values) {
  std::vector<ValueVectorType> types(values.exprs.size());
  for (std::size_t i = 0; i < values.exprs.size(); ++i) {
    const sql::Expr& e = *values.exprs[i];
    if (e.kind != sql::Expr::Kind::kColumnRef) continue;
    const VmInputColumn column = GatheredVmColumn(select, e.source, e.index);
    types[i] = {column.type, column.nullable};
  }
  for (const CompiledValues::Batch& batch : values.batches) {
    for (std::size_t j = 0; j < batch.outputs.size(); ++j) {
      const VmEntry& entry = batch.program.entry(batch.entries[j]);
      types[batch.outputs[j]] = {ProjectedType(entry), entry.may_be_null};
    }
  }
  return types;
}

KernelSet PredicateKernels(const Engine& engine, const QueryOptions& options,
                           const sql::BoundSelect& select, const CompiledPredicate& predicate,
                           RowShape shape) {
  KernelSet kernels;
  if (!predicate.in_place) kernels.Add(MaterializeKernels(select, shape, predicate.gathered));
  kernels.Add(SelectionKernels(engine, options, predicate.program, predicate.entry,
                               TabletRows(engine, select, predicate.in_place, shape),
                               predicate.in_place || shape.exact));
  // The kept positions then index the row ids of every joined source.
  if (!predicate.in_place) kernels.Add(GatherBufferKernel(4));
  return kernels;
}

KernelSet ValuesKernels(const Engine& engine, const QueryOptions& options,
                        const sql::BoundSelect& select, const CompiledValues& values,
                        RowShape shape) {
  KernelSet kernels;
  if (shape.max_rows == 0) return kernels;
  if (!shape.implicit()) {
    std::vector<std::pair<std::size_t, std::size_t>> plain;
    for (const sql::Expr* e : values.exprs)
      if (e->kind == sql::Expr::Kind::kColumnRef) plain.emplace_back(e->source, e->index);
    kernels.Add(GatheredColumnKernels(select, plain, true));
  }
  for (const CompiledValues::Batch& batch : values.batches) {
    if (!batch.in_place) kernels.Add(MaterializeKernels(select, shape, batch.gathered));
    for (const std::size_t entry : batch.entries)
      kernels.Add(ProjectKernel(batch.program, entry, options));
  }
  (void)engine;
  return kernels;
}

std::string ValuesListing(const std::string& what, const sql::BoundSelect& select,
                          const CompiledValues::Batch& batch, std::size_t source,
                          const QueryOptions& options) {
  std::vector<std::string> machines;
  for (const std::size_t entry : batch.entries)
    machines.push_back(
        DeviceProgram::MachineFor(batch.program, std::span<const std::size_t>(&entry, 1), options)
            .Describe());
  std::string title;
  const bool one = std::all_of(machines.begin(), machines.end(),
                               [&](const std::string& m) { return m == machines.front(); });
  if (one) {
    title = machines.empty() ? "" : machines.front();
  } else {
    for (std::size_t e = 0; e < machines.size(); ++e)
      title += (e ? "; " : "") + std::string("entry ") + std::to_string(e) + ": " + machines[e];
  }
  return "  " + what + " (" + title + "):\n" +
         ProgramListing(select, batch.program, batch.in_place, source, batch.gathered);
}

std::string QualifiedColumnName(const sql::BoundSelect& select, std::size_t source,
                                std::size_t column) {
  const sql::TableRef& ref = select.from.at(source);
  return ref.alias + "." + ref.table->column(column).name();
}

std::string ExpressionText(const sql::BoundSelect& select, const sql::Expr& e) {
  return e.ToString(
      [&](const sql::Expr& leaf) { return QualifiedColumnName(select, leaf.source, leaf.index); });
}

std::string ProgramListing(const sql::BoundSelect& select, const ExpressionProgram& program,
                           bool in_place, std::size_t source,
                           const std::vector<std::pair<std::size_t, std::size_t>>& gathered) {
  const std::string lines = program.Disassemble([&](std::size_t column) {
    if (in_place) return QualifiedColumnName(select, source, column);
    return QualifiedColumnName(select, gathered.at(column).first, gathered.at(column).second);
  });
  return IndentedListing(lines);
}

std::string IndentedListing(const std::string& lines, std::size_t indent) {
  const std::string margin(indent, ' ');
  std::string text;
  for (std::size_t at = 0; at < lines.size();) {
    std::size_t end = lines.find('\n', at);
    if (end == std::string::npos) end = lines.size();
    text += margin + lines.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return text;
}

}  // namespace clq
