#include "plan/output_node.hpp"
#include "sql/expr_equality.hpp"

#include "common/byte_size.hpp"
#include "operators/gather.hpp"
#include "operators/pinned_result_download.hpp"
#include "operators/relation.hpp"
#include "operators/result_builder.hpp"
#include "operators/scalar_eval.hpp"
#include "plan/row_buffers.hpp"
#include "runtime/device_table.hpp"

namespace clq {
namespace {

bool Constant(const sql::Expr& e) {
  return !sql::ContainsKind(e, sql::Expr::Kind::kColumnRef);
}

// The column under an output that is a SUBSTRING (of a SUBSTRING ...) of
// one, whose values are cut on the host; the output itself otherwise.
const sql::Expr& UncutColumn(const sql::Expr& e) {
  const sql::Expr* column = &e;
  while (column->kind == sql::Expr::Kind::kSubstring)
    column = &column->children[0];
  return column->kind == sql::Expr::Kind::kColumnRef ? *column : e;
}

// The output's values from those of UncutColumn(out): its SUBSTRINGs
// applied, the innermost first.
ResultColumn Cut(const sql::Expr& out, ResultColumn column) {
  if (out.kind != sql::Expr::Kind::kSubstring) return column;
  column = Cut(out.children[0], std::move(column));
  std::optional<std::int64_t> length;
  if (out.children.size() > 2) length = out.children[2].constant.integer;
  return SubstringResultColumn(std::move(column), out.children[1].constant.integer, length);
}

// Whether the result's `rows` values of `column` of `table` come from the
// host table rather than the device: when the device does not hold the
// column and the rows are at most 1/64 of the table, uploading the whole
// column to gather a few rows would cost more than reading them here.
bool GatherOnHost(Engine& engine, const QueryOptions& options, const Table& table,
                  std::size_t column, RowCount rows) {
  return Decide(options.host_gather,
                rows <= table.rows() / 64 && !engine.tables().Holds(table, column));
}

// A result value's bytes on the host: INTEGER and REAL 8, a CHAR column's
// values its width. A constant is also a host value per row before it
// becomes a column.
std::uint64_t HostValueBytes(const sql::BoundSelect& select, const sql::Expr& e) {
  if (Constant(e)) return sizeof(sql::Value) + 8;
  if (e.kind == sql::Expr::Kind::kColumnRef && e.type == sql::ValueType::kText)
    return select.from.at(e.source).table->column(e.index).type().width;
  return 8;
}

// The same in device buffers, for outputs gathered or computed there (a
// column's own width, a computed value 8 bytes and a NULL flag).
std::uint64_t DeviceValueBytes(const sql::BoundSelect& select, const sql::Expr& e,
                               const RowShape& shape) {
  if (Constant(e)) return 0;
  if (e.kind != sql::Expr::Kind::kColumnRef) return 9;
  return shape.implicit() ? 0 : select.from.at(e.source).table->column(e.index).type().width;
}

}  // namespace

OutputNode::OutputNode(const Engine& engine, const QueryOptions& options,
                       const sql::BoundSelect& select, std::unique_ptr<RowNode> child)
    : select_(select), options_(options), child_(std::move(child)) {
  AddChild(child_.get());
  const RowShape& shape = child_->shape();
  std::vector<const sql::Expr*> computed;
  std::vector<std::pair<std::size_t, std::size_t>> may_gather, device_gather;
  device_row_bytes_ = HeldRowIdBytesPerRow(select, shape);
  for (std::size_t o = 0; o < select.visible_outputs; ++o) {
    const sql::Expr& e = UncutColumn(select.outputs[o].expr);
    if (&e != &select.outputs[o].expr) ++cut_columns_;
    host_row_bytes_ += HostValueBytes(select, e);
    device_row_bytes_ += DeviceValueBytes(select, e, shape);
    if (Constant(e)) {
      ++constants_;
    } else if (e.kind == sql::Expr::Kind::kColumnRef && shape.implicit()) {
      ++host_columns_;
    } else if (e.kind == sql::Expr::Kind::kColumnRef) {
      ++gathered_columns_;
      // A LEFT JOIN's table's rows without a match are made NULL on the
      // device: its columns never gather on the host.
      if (select.from.at(e.source).outer) {
        device_gather.emplace_back(e.source, e.index);
      } else if (options.host_gather != Choice::kOn) {
        may_gather.emplace_back(e.source, e.index);
      }
    } else {
      computed.push_back(&e);
    }
  }
  // Gathered on the device unless the rows turn out few (host_gather auto).
  AddKernelNames(GatheredColumnKernels(select, may_gather, true),
                 options.host_gather == Choice::kAuto);
  AddKernelNames(GatheredColumnKernels(select, device_gather, true));
  computed_ = CompileValues(select, computed, shape);
  AddKernelNames(ValuesKernels(engine, options, select, computed_, shape));
  // Large gathered or computed results, into pinned blocks.
  if (gathered_columns_ > 0 || !computed.empty()) AddKernelNames(PinnedResultKernels(engine));
}

std::string OutputNode::Describe() const {
  std::string text;
  const auto part = [&text](std::size_t n, const std::string& what) {
    if (n == 0) return;
    text +=
        (text.empty() ? "" : ", ") + std::to_string(n) + (n == 1 ? " column " : " columns ") + what;
  };
  part(host_columns_, "copied from the host table");
  part(gathered_columns_,
       "gathered by row id (from the host table when the device lacks the "
       "column and the rows are few)");
  part(computed_.exprs.size(), "computed by vm_project");
  part(constants_, "constant");
  part(cut_columns_, "of them cut by SUBSTRING on the host");
  return (text.empty() ? "no output" : text) + "; downloaded";
}

std::string OutputNode::Programs() const {
  std::string text;
  for (const CompiledValues::Batch& batch : computed_.batches)
    text += ValuesListing("outputs", select_, batch, child_->shape().source, options_);
  return text;
}

QueryResult OutputNode::Run(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  Engine& engine = context.engine();
  const std::uint64_t device_bytes =
      engine.info().MemoryIsHost() ? SaturatingMultiply(rows.rows(), device_row_bytes_) : 0;
  context.query().CheckHostMemory(
      "the result (" + std::to_string(rows.rows()) + " rows of " + std::to_string(host_row_bytes_) +
          " bytes" +
          (device_bytes > 0
               ? ", after " + std::to_string(device_row_bytes_) + " a row in device buffers"
               : std::string()) +
          ")",
      SaturatingAdd(SaturatingMultiply(rows.rows(), host_row_bytes_), device_bytes));
  QueryResult result;
  result.rows = rows.rows();
  result.columns.resize(select_.visible_outputs);
  CompiledValues device_columns;
  std::vector<std::size_t> device_column_outputs, computed_outputs;
  std::vector<std::optional<std::vector<std::uint32_t>>> host_ids(select_.from.size());
  for (std::size_t o = 0; o < select_.visible_outputs; ++o) {
    const sql::OutputColumn& out = select_.outputs[o];
    const sql::Expr& expr = UncutColumn(out.expr);
    if (Constant(out.expr)) {
      // Evaluated only when there is a row: with none, an overflow in it
      // raises nothing, as a per-row evaluation would not.
      std::vector<sql::Value> values;
      if (rows.rows() > 0) {
        const sql::Value value = EvaluateScalar(out.expr, [](const sql::Expr&) -> sql::Value {
          throw InternalError("unexpected reference in a constant output");
        });
        values.assign(rows.rows(), value);
      }
      result.columns[o] = ValuesResultColumn(out.name, out.expr.type, std::move(values));
    } else if (expr.kind != sql::Expr::Kind::kColumnRef) {
      computed_outputs.push_back(o);
    } else if (rows.range()) {
      // Whole table or a range of it: the host already has these values.
      const auto [source, begin] = *rows.range();
      const Column& column = select_.from[source].table->column(expr.index);
      result.columns[o] =
          Cut(out.expr, HostResultColumn(out.name, expr.type, column, begin, rows.rows()));
    } else if (!select_.from[expr.source].outer &&
               GatherOnHost(engine, context.options(), *select_.from[expr.source].table, expr.index,
                            rows.rows())) {
      const std::size_t source = expr.source;
      if (!host_ids[source]) host_ids[source] = DownloadRowIds(engine, rows.Ids(source));
      const Column& column = select_.from[source].table->column(expr.index);
      result.columns[o] =
          Cut(out.expr, HostGatheredResultColumn(out.name, expr.type, column, *host_ids[source]));
    } else {
      device_columns.exprs.push_back(&expr);
      device_column_outputs.push_back(o);
    }
  }
  std::vector<DeviceVector> columns = rows.Evaluate(context.query(), device_columns);
  std::vector<DeviceVector> computed = rows.Evaluate(context.query(), computed_);
  context.query().CheckStatus();
  const auto download = [&](const std::vector<std::size_t>& outputs,
                            std::vector<DeviceVector>& vectors) {
    for (std::size_t j = 0; j < vectors.size(); ++j) {
      const sql::OutputColumn& out = select_.outputs[outputs[j]];
      result.columns[outputs[j]] = Cut(
          out.expr, DownloadResultColumn(engine, out.name, UncutColumn(out.expr).type, vectors[j]));
    }
  };
  download(device_column_outputs, columns);
  download(computed_outputs, computed);
  return result;
}

}  // namespace clq
