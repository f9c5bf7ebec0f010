#include "plan/group_selection.hpp"
#include "plan/text_order_codes.hpp"

#include <algorithm>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/device_program.hpp"
#include "operators/gather.hpp"
#include "operators/projection.hpp"
#include "operators/relation.hpp"
#include "operators/result_builder.hpp"
#include "operators/selection.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::Expr;
using sql::ValueType;

// How the device holds aggregate `a` (device operation `operation`) where
// its count is not 0: COUNT as the counts; an INTEGER result of a 64-bit
// total or extreme, and a REAL MIN or MAX, as the values; an AVG of
// integers as values over counts; anything else only as the host turns it
// into SQL values.
enum class Held : std::uint8_t { kNo, kCounts, kValues, kAverage };
Held HeldOnDevice(const sql::Aggregate& a, std::uint32_t operation) {
  if (a.type == ValueType::kNull) return Held::kNo;
  if (a.function == AggregateFunction::kCountStar || a.function == AggregateFunction::kCount)
    return Held::kCounts;
  // An AVG of integers: its total (INT64, or summed as doubles) over its
  // count, divided as the host divides; of REALs the total may be NaN.
  if (a.function == AggregateFunction::kAvg)
    return a.argument && a.argument->type == ValueType::kInteger &&
                   (operation == VM_AGG_SUM_I || operation == VM_AGG_SUM_R)
               ? Held::kAverage
               : Held::kNo;
  if (a.function == AggregateFunction::kMedian || a.function == AggregateFunction::kQuantile)
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

// Whether evaluating `e` can raise no error (no arithmetic): the host then
// need not evaluate it on the groups the device leaves out.
bool CannotRaise(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kBinary:
      switch (e.binary_op) {
        case sql::BinaryOp::kAdd:
        case sql::BinaryOp::kSubtract:
        case sql::BinaryOp::kMultiply:
        case sql::BinaryOp::kDivide:
        case sql::BinaryOp::kModulo:
          return false;
        default:
          break;
      }
      break;
    case Expr::Kind::kUnary:
      if (e.unary_op == sql::UnaryOp::kNegate) return false;
      break;
    case Expr::Kind::kCast:
      if (e.type != ValueType::kReal) return false;  // REAL to INTEGER may not fit
      break;
    default:
      break;
  }
  return std::all_of(e.children.begin(), e.children.end(), CannotRaise);
}

Expr ColumnRef(std::size_t column, ValueType type) {
  Expr e;
  e.kind = Expr::Kind::kColumnRef;
  e.source = 0;
  e.index = column;
  e.type = type;
  return e;
}

// `from` at `ids` (values and NULL map); empty stays empty.
DeviceVector Gathered(Engine& engine, const DeviceVector& from, const RowIds& ids,
                      const char* purpose) {
  if (from.size == 0) return AllocateVector(engine, from.type, 0, purpose);
  DeviceVector to = GatherVector(engine, View(from), ids, purpose);
  to.range = from.range;
  return to;
}

}  // namespace

std::optional<GroupSelection> GroupSelection::Plan(const Engine& engine,
                                                   const QueryOptions& options,
                                                   const sql::BoundSelect& select,
                                                   const std::vector<ValueVectorType>& key_types,
                                                   const std::vector<std::uint32_t>& operations,
                                                   RowCount max_groups) {
  std::vector<Column> columns;
  std::vector<VmInputColumn> inputs;
  const auto column_of = [&](Column::Kind kind, std::size_t index, VmInputColumn input) {
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (columns[c].kind == kind && columns[c].index == index) return c;
    columns.push_back({kind, index});
    inputs.push_back(std::move(input));
    return columns.size() - 1;
  };
  // An expression over the groups as one over the relation's columns;
  // nullopt when it reads an aggregate the device does not hold.
  const auto rewrite = [&](const Expr& e, auto&& self) -> std::optional<Expr> {
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
      if (form == Held::kNo) return std::nullopt;
      Expr counts =
          ColumnRef(column_of(Column::Kind::kCounts, e.index, VmInputColumn(ColumnType::Int64())),
                    ValueType::kInteger);
      if (form == Held::kCounts) return counts;
      const bool doubles = a.type == ValueType::kReal &&
                           !(form == Held::kAverage && operations.at(e.index) == VM_AGG_SUM_I);
      const ValueType values_value = doubles ? ValueType::kReal : ValueType::kInteger;
      Expr values =
          ColumnRef(column_of(Column::Kind::kValues, e.index,
                              VmInputColumn(doubles ? ColumnType::Double() : ColumnType::Int64())),
                    values_value);
      if (form == Held::kAverage) {
        const auto real = [](Expr x) {
          if (x.type == ValueType::kReal) return x;
          Expr cast;
          cast.kind = Expr::Kind::kCast;
          cast.type = ValueType::kReal;
          cast.position = x.position;
          cast.children.push_back(std::move(x));
          return cast;
        };
        Expr quotient;
        quotient.kind = Expr::Kind::kBinary;
        quotient.binary_op = sql::BinaryOp::kDivide;
        quotient.type = ValueType::kReal;
        quotient.position = e.position;
        quotient.children.push_back(real(std::move(values)));
        quotient.children.push_back(real(counts));
        values = std::move(quotient);
      }
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
    for (Expr& child : copy.children) {
      std::optional<Expr> rewritten = self(child, self);
      if (!rewritten) return std::nullopt;
      child = std::move(*rewritten);
    }
    return copy;
  };
  const auto new_program = [&] {
    return ExpressionProgram(inputs, [](std::size_t source, std::size_t column) {
      CLQ_CHECK(source == 0, "a program over the groups reads another relation");
      return column;
    });
  };

  // HAVING, where it reads groups (else it is one value for all: the host's).
  std::optional<Expr> having;
  if (select.having) {
    having = rewrite(*select.having, rewrite);
    if (having && columns.empty()) having.reset();
    if (!having) columns.clear(), inputs.clear();
  }
  if (having) {
    // Evaluated whole for every group, as the host evaluates it: a
    // predicate's conjuncts would each skip the groups an earlier one
    // rejected, where the host raises an error a later one makes.
    Expr whole;
    whole.kind = Expr::Kind::kCase;
    whole.type = ValueType::kInteger;
    whole.position = having->position;
    whole.children.push_back(std::move(*having));
    whole.children.push_back(sql::MakeConstant(sql::Value::Integer(1), whole.position));
    whole.children.push_back(sql::MakeConstant(sql::Value::Integer(0), whole.position));
    having = std::move(whole);
  }
  if (having) {
    ExpressionProgram probe = new_program();
    try {
      (void)probe.AddPredicate(*having);
    } catch (const DeviceLimitError&) {
      having.reset();
      columns.clear();
      inputs.clear();
    }
  }
  const bool having_on_host = select.having && !having;

  // ORDER BY ... LIMIT, or a LIMIT alone: only where the host would keep the
  // same rows (no DISTINCT, HAVING done) and would raise on no group left
  // out (outputs without arithmetic).
  std::optional<RowCount> limit;
  std::vector<Expr> order_keys;
  if (select.limit && !select.distinct && !having_on_host &&
      std::all_of(select.outputs.begin(), select.outputs.end(),
                  [](const sql::OutputColumn& o) { return CannotRaise(o.expr); })) {
    limit = select.offset + *select.limit;
    const std::vector<Column> columns_before = columns;
    const std::vector<VmInputColumn> inputs_before = inputs;
    for (const sql::OrderKey& key : select.order_by) {
      // The strings of order codes sort as the codes do.
      std::optional<Expr> rewritten =
          rewrite(Undecoded(select.outputs.at(key.expr.index).expr), rewrite);
      if (!rewritten) {
        limit.reset();
        break;
      }
      order_keys.push_back(std::move(*rewritten));
    }
    if (limit && !order_keys.empty() && *limit > 0) {
      ExpressionProgram probe = new_program();
      try {
        for (const Expr& key : order_keys)
          (void)probe.AddValue(key);
      } catch (const DeviceLimitError&) {
        limit.reset();
      }
      if (columns.empty()) order_keys.clear();  // constant keys keep the order
    } else {
      order_keys.clear();
    }
    if (!limit) {
      columns = columns_before;
      inputs = inputs_before;
      order_keys.clear();
    }
  }
  // The outputs (visible ones: a hidden one only orders, done above).
  std::vector<std::pair<bool, std::size_t>> output_columns;  // (column?, index)
  std::vector<Expr> output_exprs;
  const bool ordered = select.order_by.empty() || (limit && !order_keys.empty());
  const bool cut = !select.limit || limit;
  // Outputs that are each a group key or an aggregate as it is, with no
  // other step: the host downloads them as columns already.
  const bool plain =
      !select.having && !select.limit && select.order_by.empty() && !select.distinct &&
      std::all_of(select.outputs.begin(), select.outputs.begin() + select.visible_outputs,
                  [](const sql::OutputColumn& o) {
                    return o.expr.kind == Expr::Kind::kGroupRef ||
                           o.expr.kind == Expr::Kind::kAggregateRef;
                  });
  if (!plain && !select.distinct && !having_on_host && ordered && cut) {
    const std::vector<Column> columns_before = columns;
    const std::vector<VmInputColumn> inputs_before = inputs;
    bool all = true;
    for (std::size_t o = 0; o < select.visible_outputs && all; ++o) {
      const Expr& e = select.outputs[o].expr;
      if (e.kind == Expr::Kind::kGroupRef) {
        const ValueVectorType& type = key_types.at(e.index);
        output_columns.emplace_back(
            true, column_of(Column::Kind::kKey, e.index, {type.type, type.nullable}));
        continue;
      }
      if (e.kind == Expr::Kind::kAggregateRef &&
          HeldOnDevice(select.aggregates.at(e.index), operations.at(e.index)) == Held::kCounts &&
          e.type == ValueType::kInteger) {
        output_columns.emplace_back(
            true, column_of(Column::Kind::kCounts, e.index, VmInputColumn(ColumnType::Int64())));
        continue;
      }
      std::optional<Expr> rewritten =
          e.type == ValueType::kText ? std::nullopt : rewrite(e, rewrite);
      if (!rewritten) {
        all = false;
        break;
      }
      output_columns.emplace_back(false, output_exprs.size());
      output_exprs.push_back(std::move(*rewritten));
    }
    if (all && !columns.empty()) {
      ExpressionProgram probe = new_program();
      try {
        for (const Expr& e : output_exprs)
          (void)probe.AddValue(e);
      } catch (const DeviceLimitError&) {
        all = false;
      }
    } else {
      all = false;
    }
    if (!all) {
      columns = columns_before;
      inputs = inputs_before;
      output_columns.clear();
      output_exprs.clear();
    }
  }
  if (!having && !limit && output_columns.empty()) return std::nullopt;

  GroupSelection planned(new_program());
  planned.select_ = &select;
  planned.columns_ = std::move(columns);
  planned.limit_ = limit;
  if (having) planned.having_entry_ = planned.program_.AddPredicate(*having);
  std::vector<TopKKey> top_k_keys;
  for (std::size_t k = 0; k < order_keys.size(); ++k) {
    const std::size_t entry = planned.program_.AddValue(order_keys[k]);
    const VmEntry& vm_entry = planned.program_.entry(entry);
    planned.order_entries_.push_back(entry);
    planned.descending_.push_back(select.order_by[k].descending);
    top_k_keys.push_back(
        {ProjectedType(vm_entry), vm_entry.may_be_null, select.order_by[k].descending});
  }
  for (const auto& [column, index] : output_columns) {
    if (column) {
      planned.outputs_.push_back({true, index});
      continue;
    }
    planned.outputs_.push_back({false, planned.program_.AddValue(output_exprs[index])});
  }
  if (!planned.outputs_.empty()) planned.offset_ = select.offset;
  KernelSet& kernels = planned.kernels_;
  for (const Output& out : planned.outputs_)
    if (!out.column) kernels.AddWhenNeeded(ProjectKernel(planned.program_, out.index, options));
  if (planned.offset_ > 0) kernels.AddWhenNeeded("gather_iota");
  for (const Column& c : planned.columns_) {
    if (c.kind != Column::Kind::kKey) continue;
    kernels.AddWhenNeeded(GatherBufferKernel(key_types.at(c.index).type.width));
    if (key_types.at(c.index).nullable) kernels.AddWhenNeeded(GatherBufferKernel(1));
  }
  if (planned.having_entry_)
    kernels.Add(SelectionKernels(engine, options, planned.program_, *planned.having_entry_,
                                 max_groups, false),
                true);
  if (!top_k_keys.empty()) {
    for (const std::size_t entry : planned.order_entries_)
      kernels.AddWhenNeeded(ProjectKernel(planned.program_, entry, options));
    planned.top_k_ = PlanTopK(engine.info(), engine.tuning(), top_k_keys, max_groups, *limit);
    kernels.Add(planned.top_k_->Kernels(engine, false), true);
  } else if (limit) {
    kernels.AddWhenNeeded("gather_iota");  // the first groups
  }
  // The kept groups' first rows, keys and aggregates.
  kernels.AddWhenNeeded(GatherBufferKernel(4));
  kernels.AddWhenNeeded(GatherBufferKernel(8));
  kernels.AddWhenNeeded(GatherBufferKernel(1));
  for (const Column& c : planned.columns_)
    if (c.kind == Column::Kind::kKey)
      kernels.AddWhenNeeded(GatherBufferKernel(key_types.at(c.index).type.width));
  return planned;
}

std::string GroupSelection::Describe() const {
  std::string text = having_entry_ ? "HAVING" : "";
  const auto add = [&](const std::string& step) { text += (text.empty() ? "" : ", ") + step; };
  if (limit_)
    add(top_k_ ? "ORDER BY ... LIMIT: " + top_k_->Describe()
               : "LIMIT: the first " + std::to_string(*limit_) + " groups");
  if (!outputs_.empty()) add("outputs");
  return text;
}

std::string GroupSelection::Listing(const sql::BoundSelect& select) const {
  if (columns_.empty()) return "";
  const std::string lines = program_.Disassemble([&](std::size_t column) {
    const Column& c = columns_.at(column);
    if (c.kind == Column::Kind::kKey) return "group key " + std::to_string(c.index + 1);
    const sql::Aggregate& a = select.aggregates.at(c.index);
    return std::string(c.kind == Column::Kind::kCounts ? "count of " : "") +
           sql::AggregateName(a.function) + "(" +
           (a.argument ? ExpressionText(select, *a.argument) : "*") + ")";
  });
  return "  over the groups (HAVING, ORDER BY keys, outputs):\n" + IndentedListing(lines);
}

std::optional<QueryResult> GroupSelection::Apply(
    QueryContext& context, const std::vector<VectorView>& keys, GroupByResult& groups,
    const std::function<void(RowCount)>& check_host_memory) const {
  if (groups.groups == 0) return std::nullopt;  // the host's path makes the empty result
  Engine& engine = context.engine();
  VectorRelation relation;
  // The aggregates' vectors the relation holds: moved in, moved back out.
  std::vector<std::optional<std::size_t>> values_at(groups.aggregates.size()),
      counts_at(groups.aggregates.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const Column& column = columns_[c];
    switch (column.kind) {
      case Column::Kind::kKey: {
        relation.Add("key", GatherVector(engine, keys.at(column.index), groups.first_positions,
                                         "group keys"));
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
  // Keeps the groups at `ids`, in that order: the relation's rows and the
  // aggregates it does not hold.
  const auto keep = [&](const RowIds& ids) {
    VectorRelation kept;
    for (std::size_t c = 0; c < columns_.size(); ++c)
      kept.Add(relation.column_name(c), Gathered(engine, relation.vector(c), ids, "kept groups"));
    relation = std::move(kept);
    for (std::size_t i = 0; i < groups.aggregates.size(); ++i) {
      GroupAggregateOutput& out = groups.aggregates[i];
      if (!values_at[i]) out.values = Gathered(engine, out.values, ids, "group aggregate values");
      if (!counts_at[i]) out.counts = Gathered(engine, out.counts, ids, "group aggregate counts");
    }
    RowIds first = AllocateRowIds(engine, ids.size, "group first positions");
    if (ids.size > 0)
      GatherBuffer(engine, groups.first_positions.ids.get(), 4, 0, groups.groups, ids,
                   first.ids.get());
    groups.first_positions = std::move(first);
    groups.groups = ids.size;
  };
  // Rows [first, first + count) of the groups, as ids.
  const auto range = [&](RowCount first, RowCount count) {
    RowIds ids = AllocateRowIds(engine, count, "kept groups");
    if (count > 0) {
      cl::Kernel& iota = engine.kernel("gather_iota");
      Bind(iota, GatherIotaArgs{
                     .target = ids.ids.get(), .n = count, .first = static_cast<cl_uint>(first)});
      engine.Launch(iota, engine.TilesFor(count), "kept groups");
    }
    return ids;
  };
  std::optional<DeviceProgram> program;
  if (having_entry_ || top_k_ || !outputs_.empty())
    program.emplace(engine, program_, context.options());
  if (having_entry_) keep(Select(context, relation, *program, *having_entry_));
  if (limit_ && groups.groups > 0) {
    if (top_k_) {
      std::vector<DeviceVector> vectors;
      std::vector<SortKey> sort_keys;
      for (const std::size_t entry : order_entries_)
        vectors.push_back(Project(context, relation, *program, entry));
      for (std::size_t k = 0; k < vectors.size(); ++k)
        sort_keys.push_back({View(vectors[k]), descending_[k]});
      context.CheckStatus();
      keep(TopK(context, *top_k_, sort_keys, groups.groups).positions);
    } else if (*limit_ < groups.groups) {
      keep(range(0, *limit_));
    }
  }
  std::optional<QueryResult> result;
  if (!outputs_.empty()) {
    // The result's rows: the groups from OFFSET on.
    if (offset_ > 0) {
      const RowCount skip = std::min<RowCount>(offset_, groups.groups);
      keep(range(skip, groups.groups - skip));
    }
    check_host_memory(groups.groups);
    result.emplace();
    result->rows = groups.groups;
    for (std::size_t o = 0; o < outputs_.size(); ++o) {
      const sql::OutputColumn& output = select_->outputs.at(o);
      if (outputs_[o].column) {
        result->columns.push_back(DownloadResultColumn(engine, output.name, output.expr.type,
                                                       relation.vector(outputs_[o].index)));
      } else {
        const DeviceVector values = Project(context, relation, *program, outputs_[o].index);
        result->columns.push_back(
            DownloadResultColumn(engine, output.name, output.expr.type, values));
      }
    }
    context.CheckStatus();
  }
  for (std::size_t i = 0; i < groups.aggregates.size(); ++i) {
    if (values_at[i]) groups.aggregates[i].values = relation.Take(*values_at[i]);
    if (counts_at[i]) groups.aggregates[i].counts = relation.Take(*counts_at[i]);
  }
  return result;
}

}  // namespace clq
