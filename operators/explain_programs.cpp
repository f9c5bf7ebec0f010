#include "operators/explain_programs.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <span>
#include <utility>

#include "host/sql/expr_equality.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregate_pass.hpp"
#include "operators/aggregation.hpp"
#include "operators/device_program.hpp"
#include "operators/relation.hpp"
#include "operators/row_set.hpp"
#include "operators/selection.hpp"
#include "runtime/errors.hpp"

namespace clq {
namespace {

using sql::Expr;

// A program over some input columns, with a name for each column index.
struct NamedProgram {
  ExpressionProgram program;
  std::function<std::string(std::size_t)> column_name;
};

std::string QualifiedName(const sql::TableRef& ref, std::size_t column) {
  return ref.alias + "." + ref.table->column(column).name();
}

// A table's columns read in place (a WHERE, or a fused aggregation).
NamedProgram TableProgram(const sql::BoundSelect& select, std::size_t source) {
  const sql::TableRef& ref = select.from[source];
  std::vector<VmInputColumn> columns;
  for (std::size_t c = 0; c < ref.table->columns().size(); ++c)
    columns.push_back(TableVmColumn(*ref.table, c));
  return {ExpressionProgram(columns,
                            [source](std::size_t from, std::size_t column) {
                              CLQ_CHECK(from == source, "a table's program reads another table");
                              return column;
                            }),
          [&ref](std::size_t column) { return QualifiedName(ref, column); }};
}

// The columns `exprs` read, gathered by row id as RowSet::Materialize
// gathers them for filtered or joined rows (a whole table is read in place
// instead; the program is the same, its slots naming the same columns).
NamedProgram GatheredProgram(const sql::BoundSelect& select,
                             const std::vector<const Expr*>& exprs) {
  std::vector<std::pair<std::size_t, std::size_t>> read;
  for (const Expr* e : exprs)
    ColumnsOf(*e, read);
  std::vector<VmInputColumn> columns;
  for (const auto& [source, column] : read)
    columns.push_back(TableVmColumn(*select.from[source].table, column));
  return {ExpressionProgram(columns, RowSet::GatheredMapper(read)),
          [&select, read](std::size_t index) {
            return QualifiedName(select.from[read.at(index).first], read.at(index).second);
          }};
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts)
    text += (text.empty() ? "" : "; ") + part;
  return text;
}

// " (pass i of n)" when there is more than one.
std::string PassSuffix(std::size_t index, std::size_t count, const char* what = "pass") {
  if (count <= 1) return "";
  return ", " + std::string(what) + " " + std::to_string(index + 1) + " of " +
         std::to_string(count);
}

// The note on a filter that does not run in vm_filter alone: in
// vm_filter_conjuncts (RunsConjunctFilter), or with its leading range test
// alone first (RunsRangeTestFirst); empty otherwise.
std::string FilterKernelNote(const Engine& engine, const QueryOptions& options,
                             const VmEntry& entry) {
  if (RunsConjunctFilter(engine, options, entry)) {
    return "; runs in vm_filter_conjuncts instead of vm_filter, no interpreter: " +
           std::to_string(entry.int_conjuncts) +
           (entry.int_conjuncts == 1 ? " conjunct" : " conjuncts") + " described from constant " +
           std::to_string(entry.int_conjuncts_at);
  }
  if (!RunsRangeTestFirst(engine, options, entry)) return "";
  char kept[32];
  std::snprintf(kept, sizeof kept, "%.3g%%", entry.leading_range->selectivity * 100);
  return "; instruction " + std::to_string(entry.begin) +
         " first, alone, in filter_range_tiles (estimated to keep " + kept +
         " of the rows), then vm_filter from instruction " + std::to_string(entry.begin + 1) +
         " on the tiles where it kept a row";
}

class Listing {
 public:
  Listing(const Engine& engine, const QueryOptions& options) : engine_(engine), options_(options) {}
  void Add(const std::string& title, const NamedProgram& named, const std::string& machine) {
    text_ += "  " + title + " (" + machine + "):\n";
    const std::string lines = named.program.Disassemble(named.column_name);
    for (std::size_t at = 0; at < lines.size();) {
      const std::size_t end = lines.find('\n', at);
      text_ += "    " + lines.substr(at, end - at) + "\n";
      at = end + 1;
    }
  }
  void Refuse(const std::string& title, const DeviceLimitError& error) {
    text_ += "  " + title + ": not on the device (" + error.what() + ")\n";
  }

  // A conjunction as RowSet::Filter runs it: one program per batch of
  // conjuncts the machine holds; later passes see the rows earlier ones kept.
  void Filter(const std::string& title, const sql::BoundSelect& select,
              const std::vector<Expr>& filters, std::optional<std::size_t> in_place_source) {
    std::vector<Expr> conjuncts;
    for (const Expr& f : filters)
      SplitConjuncts(f, conjuncts);
    std::vector<const Expr*> pointers;
    for (const Expr& c : conjuncts)
      pointers.push_back(&c);
    const auto batches = BatchByColumns(pointers);
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const std::string pass_title = title + PassSuffix(b, batches.size());
      std::vector<Expr> batch;
      for (const Expr* c : batches[b])
        batch.push_back(*c);
      try {
        NamedProgram named = in_place_source ? TableProgram(select, *in_place_source)
                                             : GatheredProgram(select, batches[b]);
        const std::size_t entry = named.program.AddPredicate(*AndAll(batch));
        Add(pass_title, named,
            DeviceProgram::MachineFor(named.program, std::span<const std::size_t>(&entry, 1),
                                      options_)
                    .Describe() +
                FilterKernelNote(engine_, options_, named.program.entry(entry)));
      } catch (const DeviceLimitError& error) {
        Refuse(pass_title, error);
      }
    }
  }

  // Values as RowSet::Evaluate computes them: column references are
  // gathered (no program), the rest in batches of at most VM_MAX_SLOTS
  // columns, one program each, every entry launched on its own machine.
  void Values(const std::string& title, const sql::BoundSelect& select,
              const std::vector<const Expr*>& exprs) {
    std::vector<const Expr*> computed;
    for (const Expr* e : exprs)
      if (e->kind != Expr::Kind::kColumnRef) computed.push_back(e);
    const auto batches = BatchByColumns(computed);
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const std::string pass_title = title + PassSuffix(b, batches.size());
      try {
        NamedProgram named = GatheredProgram(select, batches[b]);
        std::vector<std::string> machines;
        for (const Expr* e : batches[b]) {
          const std::size_t entry = named.program.AddValue(*e);
          machines.push_back(DeviceProgram::MachineFor(
                                 named.program, std::span<const std::size_t>(&entry, 1), options_)
                                 .Describe());
        }
        const bool one_machine =
            std::all_of(machines.begin(), machines.end(),
                        [&](const std::string& m) { return m == machines.front(); });
        std::vector<std::string> described;
        for (std::size_t e = 0; e < machines.size(); ++e)
          described.push_back("entry " + std::to_string(e) + ": " + machines[e]);
        Add(pass_title, named, one_machine ? machines.front() : Joined(described));
      } catch (const DeviceLimitError& error) {
        Refuse(pass_title, error);
      }
    }
  }

  // An ungrouped aggregation as QueryExecutor::ExecuteUngrouped runs it,
  // over `rows` input rows at most (the SUM halves depend on it).
  void Aggregation(const std::string& title, const sql::BoundSelect& select,
                   const std::function<NamedProgram()>& input, const std::optional<Expr>& predicate,
                   bool fused, RowCount rows) {
    const std::vector<std::vector<std::size_t>> groups =
        UngroupedAggregateGroups(select, DeviceArguments(select), fused);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto passes = InPasses(groups[g], VM_MAX_AGGREGATES);
      for (std::size_t p = 0; p < std::max<std::size_t>(passes.size(), 1); ++p) {
        const std::string pass_title =
            title + PassSuffix(g, groups.size(), "group") + PassSuffix(p, passes.size());
        try {
          NamedProgram named = input();
          AggregatePass compiled =
              CompileAggregatePass(std::move(named.program), select, predicate,
                                   passes.empty() ? std::vector<std::size_t>{} : passes[p]);
          // The machine of each device pass, as Aggregate splits this one.
          std::vector<std::string> machines;
          for (const std::vector<AggregateSpec>& device_pass :
               SplitForDevice(compiled.program, rows, compiled.specs).passes) {
            const AggregateKernelChoice choice = ChooseAggregateKernel(
                compiled.program, compiled.predicate_entry, device_pass, options_);
            const std::string_view direct = choice.DirectKernelName();
            const std::string machine = direct.empty() ? choice.machine.Describe()
                                                       : std::string(direct) + ", no interpreter";
            if (std::find(machines.begin(), machines.end(), machine) == machines.end())
              machines.push_back(machine);
          }
          named.program = std::move(compiled.program);
          Add(pass_title, named, machines.empty() ? "no device pass" : Joined(machines));
        } catch (const DeviceLimitError& error) {
          Refuse(pass_title, error);
        }
      }
    }
  }

  const std::string& text() const { return text_; }

 private:
  const Engine& engine_;
  const QueryOptions& options_;
  std::string text_;
};

// At most how many rows the joined rows can have (saturating).
RowCount RowsBound(const sql::BoundSelect& select) {
  RowCount bound = 1;
  for (const sql::TableRef& ref : select.from) {
    const RowCount rows = ref.table->rows();
    if (rows != 0 && bound > std::numeric_limits<RowCount>::max() / rows)
      return std::numeric_limits<RowCount>::max();
    bound *= rows;
  }
  return bound;
}

}  // namespace

std::string ExplainPrograms(const QueryPlan& plan, const Engine& engine,
                            const QueryOptions& options) {
  const sql::BoundSelect& select = *plan.select;
  Listing listing(engine, options);
  const bool fused = plan.fused_aggregate;
  // As QueryExecutor::BuildRowSet: each table's WHERE on the table in place.
  for (const SourcePlan& source : plan.sources) {
    if (source.filters.empty() || fused) continue;
    listing.Filter("filter of " + select.from[source.source].alias, select, source.filters,
                   source.source);
  }
  for (const JoinEdge& edge : plan.join_edges) {
    listing.Values("join key of " + select.from[edge.left_source].alias, select, {&edge.left_key});
    listing.Values("join key of " + select.from[edge.right_source].alias, select,
                   {&edge.right_key});
  }
  if (!plan.residual.empty()) listing.Filter("residual filter", select, plan.residual, {});

  switch (plan.aggregation) {
    case AggregationMode::kNone: {
      // As QueryExecutor::ExecuteRows: DISTINCT keys, ORDER BY keys, outputs.
      std::vector<const Expr*> distinct, order, outputs;
      for (std::size_t o = 0; o < select.visible_outputs; ++o) {
        const Expr& e = select.outputs[o].expr;
        if (!sql::ContainsKind(e, Expr::Kind::kColumnRef)) continue;  // host constants
        if (select.distinct) distinct.push_back(&e);
        outputs.push_back(&e);
      }
      for (const sql::OrderKey& key : select.order_by) {
        const Expr& e = select.outputs.at(key.expr.index).expr;
        if (sql::ContainsKind(e, Expr::Kind::kColumnRef)) order.push_back(&e);
      }
      listing.Values("DISTINCT keys", select, distinct);
      listing.Values("ORDER BY keys", select, order);
      listing.Values("outputs", select, outputs);
      break;
    }
    case AggregationMode::kUngrouped:
      if (fused) {
        listing.Aggregation(
            "aggregation of " + select.from[0].alias, select,
            [&] { return TableProgram(select, 0); }, AndAll(plan.sources[0].filters), true,
            select.from[0].table->rows());
      } else {
        const std::vector<const Expr*> arguments = DeviceArguments(select);
        listing.Aggregation(
            "aggregation", select, [&] { return GatheredProgram(select, arguments); }, std::nullopt,
            false, RowsBound(select));
      }
      break;
    case AggregationMode::kGrouped: {
      // As QueryExecutor::ExecuteGrouped: the keys, then the arguments.
      std::vector<const Expr*> exprs;
      for (const Expr& key : select.group_keys) {
        if (!sql::ContainsKind(key, Expr::Kind::kColumnRef)) {
          listing.Refuse("group keys", DeviceLimitError("GROUP BY a constant expression is "
                                                        "not supported on devices"));
          return "expression programs:\n" + listing.text();
        }
        exprs.push_back(&key);
      }
      for (const sql::Aggregate& a : select.aggregates)
        if (a.argument && !CountsRows(a) && a.type != sql::ValueType::kNull)
          exprs.push_back(&*a.argument);
      listing.Values("group keys and aggregate arguments", select, exprs);
      break;
    }
  }
  return listing.text().empty() ? "" : "expression programs:\n" + listing.text();
}

}  // namespace clq
