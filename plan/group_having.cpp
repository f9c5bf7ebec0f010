#include "plan/group_having.hpp"

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/device_program.hpp"
#include "operators/gather.hpp"
#include "operators/relation.hpp"
#include "operators/selection.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::Expr;
using sql::ValueType;

// Whether the device holds aggregate `a` (device operation `operation`) as
// its SQL value where its count is not 0: COUNT (the counts), an INTEGER
// result of a 64-bit integer total or extreme, a REAL MIN or MAX.
enum class Held : std::uint8_t { kNo, kCounts, kValues };
Held HeldOnDevice(const sql::Aggregate& a, std::uint32_t operation) {
  if (a.type == ValueType::kNull) return Held::kNo;
  if (a.function == AggregateFunction::kCountStar || a.function == AggregateFunction::kCount)
    return Held::kCounts;
  if (a.function == AggregateFunction::kAvg || a.function == AggregateFunction::kMedian ||
      a.function == AggregateFunction::kQuantile)
    return Held::kNo;
  if (a.type == ValueType::kInteger)
    return operation == VM_AGG_SUM_R || operation == VM_AGG_MIN_R || operation == VM_AGG_MAX_R
               ? Held::kNo
               : Held::kValues;
  // REAL: MIN and MAX are input values; a SUM may be NaN, which the host
  // turns into NULL.
  if (a.type == ValueType::kReal && (operation == VM_AGG_MIN_R || operation == VM_AGG_MAX_R))
    return Held::kValues;
  return Held::kNo;
}

Expr ColumnRef(std::size_t column, ValueType type) {
  Expr e;
  e.kind = Expr::Kind::kColumnRef;
  e.source = 0;
  e.index = column;
  e.type = type;
  return e;
}

}  // namespace

std::optional<GroupHaving> GroupHaving::Plan(const Engine& engine, const QueryOptions& options,
                                             const sql::BoundSelect& select,
                                             const std::vector<ValueVectorType>& key_types,
                                             const std::vector<std::uint32_t>& operations,
                                             RowCount max_groups) {
  if (!select.having) return std::nullopt;
  std::vector<Column> columns;
  std::vector<VmInputColumn> inputs;
  const auto column_of = [&](Column::Kind kind, std::size_t index, VmInputColumn input) {
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (columns[c].kind == kind && columns[c].index == index) return c;
    columns.push_back({kind, index});
    inputs.push_back(std::move(input));
    return columns.size() - 1;
  };
  bool held = true;
  // HAVING over the relation's columns.
  const auto rewrite = [&](const Expr& e, auto&& self) -> Expr {
    if (e.kind == Expr::Kind::kGroupRef) {
      const ValueVectorType& type = key_types.at(e.index);
      Expr ref =
          ColumnRef(column_of(Column::Kind::kKey, e.index, {type.type, type.nullable}), e.type);
      ref.logical = e.logical;
      return ref;
    }
    if (e.kind == Expr::Kind::kAggregateRef) {
      const sql::Aggregate& a = select.aggregates.at(e.index);
      const Held form = HeldOnDevice(a, operations.at(e.index));
      if (form == Held::kNo) {
        held = false;
        return e;
      }
      Expr counts =
          ColumnRef(column_of(Column::Kind::kCounts, e.index, VmInputColumn(ColumnType::Int64())),
                    ValueType::kInteger);
      if (form == Held::kCounts) return counts;
      const ColumnType values_type =
          a.type == ValueType::kReal ? ColumnType::Double() : ColumnType::Int64();
      Expr values =
          ColumnRef(column_of(Column::Kind::kValues, e.index, VmInputColumn(values_type)), a.type);
      // No non-NULL input: NULL (the values are undefined there).
      Expr chosen;
      chosen.kind = Expr::Kind::kCase;
      chosen.type = a.type;
      chosen.logical = e.logical;
      chosen.position = e.position;
      chosen.children.push_back(sql::MakeBoolean(sql::BinaryOp::kNotEqual, std::move(counts),
                                                 sql::MakeConstant(sql::Value::Integer(0), 0),
                                                 e.position));
      chosen.children.push_back(std::move(values));
      chosen.children.push_back(sql::MakeConstant(sql::Value::Null(), e.position));
      return chosen;
    }
    Expr copy = e;
    for (Expr& child : copy.children)
      child = self(child, self);
    return copy;
  };
  const Expr having = rewrite(*select.having, rewrite);
  // A HAVING that reads no group is one value for all: the host's.
  if (!held || columns.empty()) return std::nullopt;
  ExpressionProgram program(std::move(inputs), [](std::size_t source, std::size_t column) {
    CLQ_CHECK(source == 0, "a HAVING program reads another relation");
    return column;
  });
  std::size_t entry = 0;
  try {
    entry = program.AddPredicate(having);
  } catch (const DeviceLimitError&) {
    return std::nullopt;  // the host evaluates it
  }
  GroupHaving planned(std::move(program), entry);
  planned.columns_ = std::move(columns);
  KernelSet& kernels = planned.kernels_;
  for (const Column& c : planned.columns_) {
    if (c.kind != Column::Kind::kKey) continue;
    kernels.AddWhenNeeded(GatherBufferKernel(key_types.at(c.index).type.width));
    if (key_types.at(c.index).nullable) kernels.AddWhenNeeded(GatherBufferKernel(1));
  }
  kernels.Add(SelectionKernels(engine, options, planned.program_, entry, max_groups, false), true);
  // The kept groups' first rows and aggregates.
  kernels.AddWhenNeeded(GatherBufferKernel(4));
  kernels.AddWhenNeeded(GatherBufferKernel(8));
  return planned;
}

std::string GroupHaving::Listing(const sql::BoundSelect& select) const {
  const std::string lines = program_.Disassemble([&](std::size_t column) {
    const Column& c = columns_.at(column);
    if (c.kind == Column::Kind::kKey) return "group key " + std::to_string(c.index + 1);
    const sql::Aggregate& a = select.aggregates.at(c.index);
    return std::string(c.kind == Column::Kind::kCounts ? "count of " : "") +
           sql::AggregateName(a.function) + "(" +
           (a.argument ? ExpressionText(select, *a.argument) : "*") + ")";
  });
  std::string text = "  HAVING over the groups:\n";
  for (std::size_t at = 0; at < lines.size();) {
    std::size_t end = lines.find('\n', at);
    if (end == std::string::npos) end = lines.size();
    text += "    " + lines.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return text;
}

void GroupHaving::Filter(QueryContext& context, const std::vector<VectorView>& keys,
                         GroupByResult& groups) const {
  if (groups.groups == 0) return;
  Engine& engine = context.engine();
  const RowCount n = groups.groups;
  VectorRelation relation;
  // The aggregates' vectors the relation holds: moved in, gathered back out.
  std::vector<std::optional<std::size_t>> values_at(groups.aggregates.size()),
      counts_at(groups.aggregates.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const Column& column = columns_[c];
    switch (column.kind) {
      case Column::Kind::kKey: {
        const VectorView& key = keys.at(column.index);
        DeviceVector picked = AllocateVector(engine, key.type, n, "group keys");
        GatherBuffer(engine, key.values, key.type.width, 0, key.size, groups.first_positions,
                     picked.values.get());
        if (key.has_nulls()) {
          picked.nulls = engine.pool().Acquire(n, "group key NULL map");
          GatherBuffer(engine, key.nulls, 1, 0, key.size, groups.first_positions,
                       picked.nulls.get());
        }
        relation.Add("key", std::move(picked));
        break;
      }
      case Column::Kind::kValues:
        values_at[column.index] = c;
        relation.Add("values", std::move(groups.aggregates.at(column.index).values));
        break;
      case Column::Kind::kCounts:
        counts_at[column.index] = c;
        relation.Add("counts", std::move(groups.aggregates.at(column.index).counts));
        break;
    }
  }
  const DeviceProgram program(engine, program_, context.options());
  const RowIds kept = Select(context, relation, program, entry_);
  const auto compact = [&](const DeviceVector& from, const char* purpose) {
    DeviceVector to = AllocateVector(engine, from.type, kept.size, purpose);
    if (kept.size > 0 && from.size > 0)
      GatherBuffer(engine, from.values.get(), from.type.width, 0, from.size, kept, to.values.get());
    if (from.size == 0) to.size = 0;
    return to;
  };
  for (std::size_t i = 0; i < groups.aggregates.size(); ++i) {
    GroupAggregateOutput& out = groups.aggregates[i];
    out.values = compact(values_at[i] ? relation.vector(*values_at[i]) : out.values,
                         "group aggregate values");
    out.counts = compact(counts_at[i] ? relation.vector(*counts_at[i]) : out.counts,
                         "group aggregate counts");
  }
  RowIds first = AllocateRowIds(engine, kept.size, "group first positions");
  if (kept.size > 0)
    GatherBuffer(engine, groups.first_positions.ids.get(), 4, 0, n, kept, first.ids.get());
  groups.first_positions = std::move(first);
  groups.groups = kept.size;
}

}  // namespace clq
