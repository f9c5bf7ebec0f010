#include "plan/sort_node.hpp"
#include "plan/text_order_codes.hpp"

#include <algorithm>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "operators/gather.hpp"
#include "operators/scalar_eval.hpp"
#include "operators/sort.hpp"
#include "plan/row_buffers.hpp"
#include "plan/streamed_input.hpp"
#include "sql/expr_equality.hpp"

namespace clq {

SortNode::SortNode(const Engine& engine, const QueryOptions& options,
                   const sql::BoundSelect& select, std::unique_ptr<RowNode> child)
    : RowNode({RowShape::Kind::kRowIds, child->shape().source, child->shape().max_rows,
               child->shape().exact, child->shape().expected_rows}),
      select_(select),
      options_(options),
      child_(std::move(child)) {
  AddChild(child_.get());
  const RowShape& input = child_->shape();
  std::vector<const sql::Expr*> computed;
  coded_keys_.reserve(select.order_by.size());
  for (const sql::OrderKey& key : select.order_by) {
    const sql::Expr* output = &select.outputs.at(key.expr.index).expr;
    if (!sql::ContainsKind(*output, sql::Expr::Kind::kColumnRef)) {
      constant_keys_.push_back(output);
      continue;
    }
    // A CHAR column whose order codes are made sorts by them: one integer
    // instead of a prefix image and its ties.
    if (std::optional<sql::Expr> codes = MadeCodes(select, *output)) {
      coded_keys_.push_back(std::move(*codes));
      output = &coded_keys_.back();
    }
    const sql::Expr& e = *output;
    keys_.push_back(&e);
    descending_.push_back(key.descending);
    in_place_.push_back(e.kind == sql::Expr::Kind::kColumnRef &&
                        input.kind == RowShape::Kind::kWholeTable && e.source == input.source &&
                        engine.TabletCountFor(*select.from.at(e.source).table) == 1);
    if (!in_place_.back()) computed.push_back(&e);
  }
  if (keys_.empty()) {
    shape_ = input;
    return;
  }
  computed_ = CompileValues(select, computed, input);
  AddKernelNames(ValuesKernels(engine, options, select, computed_, input));
  // The keys as TopK sees them: their vectors' types and NULL maps.
  const std::vector<ValueVectorType> computed_types = ValueVectorTypes(select, computed_);
  std::vector<TopKKey> top_k_keys;
  std::vector<bool> nullable;
  for (std::size_t k = 0, c = 0; k < keys_.size(); ++k) {
    ValueVectorType type;
    if (in_place_[k]) {
      const Column& column = select.from.at(keys_[k]->source).table->column(keys_[k]->index);
      type = {column.type(), column.nullable()};
    } else {
      type = computed_types[c++];
    }
    top_k_keys.push_back({type.type, type.nullable, descending_[k]});
    nullable.push_back(type.nullable);
  }
  if (select.limit) {
    top_k_ = PlanTopK(engine.info(), engine.tuning(), top_k_keys, input.max_rows,
                      select.offset + *select.limit);
    AddKernelNames(top_k_->Kernels(engine, input.exact));
    shape_.max_rows = std::min(shape_.max_rows, top_k_->k);
  } else {
    AddKernelNames(SortPermutationKernels(engine, nullable, input.max_rows, input.exact));
  }
  row_bytes_ = EvaluatedBytesPerRow(computed_types) + (top_k_ ? 0 : kSortBytesPerRow) +
               HeldRowIdBytesPerRow(select, input) + RowIdBytesPerRow(select);
  // The order then indexes the row ids (a copy of the positions for a whole
  // table).
  if (!input.implicit()) AddKernelNames({GatherBufferKernel(4)});
  if (top_k_) {
    stream_tablets_ = StreamTablets(engine, select, *child_, row_bytes_);
    if (stream_tablets_ > 0) {
      // A chunk's top rows: their positions made row ids, their keys
      // gathered for the host.
      KernelSet gathers({"gather_iota", GatherBufferKernel(4), GatherBufferKernel(1)});
      for (const ValueVectorType& type : computed_types)
        gathers.Add(KernelSet({GatherBufferKernel(type.type.width)}));
      AddKernelNames(gathers, true);
    }
  }
}

std::string SortNode::Describe() const {
  if (keys_.empty()) return "no key reads a column: the input order";
  std::string keys;
  for (std::size_t k = 0; k < keys_.size(); ++k)
    keys += (keys.empty() ? "" : ", ") + ExpressionText(select_, *keys_[k]) +
            (descending_[k] ? " DESC" : "") + (in_place_[k] ? " (in place)" : "");
  return keys + (top_k_ ? "; " + top_k_->Describe() : "; radix sort") +
         (stream_tablets_ > 0 ? "; streamed, " + std::to_string(stream_tablets_) +
                                    (stream_tablets_ == 1 ? " tablet" : " tablets") +
                                    " of the input at a time, each chunk's top rows the "
                                    "candidates of a last top-k"
                              : "");
}

std::string SortNode::Programs() const {
  std::string text;
  for (const CompiledValues::Batch& batch : computed_.batches)
    text += ValuesListing("ORDER BY keys", select_, batch, child_->shape().source, options_);
  return text;
}

void SortNode::CheckConstantKeys() const {
  for (const sql::Expr* key : constant_keys_)
    (void)EvaluateScalar(*key, [](const sql::Expr&) -> sql::Value {
      throw InternalError("a column in an ORDER BY key that reads none");
    });
}

RowSet SortNode::RunStreamed(ExecutionContext& context) const {
  Engine& engine = context.engine();
  const std::size_t source = child_->shape().source;
  // The candidates: per key their values' bytes and NULL bytes, their row ids.
  std::vector<std::vector<std::byte>> values(keys_.size());
  std::vector<std::vector<std::uint8_t>> nulls(keys_.size());
  std::vector<ColumnType> types(keys_.size());
  std::vector<std::uint32_t> ids;
  ForEachChunk(context, *child_, *select_.from.front().table, stream_tablets_, [&](RowSet& rows) {
    const ExecutionContext::NodeScope scope(context, *this);
    if (rows.rows() == 0) return;
    if (ids.empty()) CheckConstantKeys();
    CheckRowBuffers(context, "ORDER BY with LIMIT", rows.rows(), row_bytes_);
    const std::vector<DeviceVector> vectors = rows.Evaluate(context.query(), computed_);
    std::vector<SortKey> keys;
    for (std::size_t k = 0; k < keys_.size(); ++k)
      keys.push_back({View(vectors.at(k)), descending_[k]});
    const RowIds positions = rows.rows() == 1
                                 ? UploadRowIds(engine, {0})
                                 : TopK(context.query(), *top_k_, keys, rows.rows()).positions;
    const RowCount kept = positions.size;
    std::uint64_t candidate_bytes = sizeof(std::uint32_t) + 1;
    for (const DeviceVector& v : vectors)
      candidate_bytes += v.type.width + 1;
    context.query().CheckHostMemory(
        "the streamed top-k's candidates (" + std::to_string(ids.size() + kept) + " rows)",
        SaturatingMultiply(ids.size() + kept, 3 * candidate_bytes));
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      const DeviceVector got = GatherVector(engine, keys[k].values, positions, "top-k candidates");
      types[k] = got.type;
      const std::size_t at = values[k].size();
      values[k].resize(at + got.byte_size());
      engine.Download(got.values.get(), 0, got.byte_size(), values[k].data() + at,
                      "top-k candidates");
      std::vector<std::uint8_t> got_nulls =
          got.has_nulls() ? DownloadNulls(engine, got) : std::vector<std::uint8_t>(kept, 0);
      nulls[k].insert(nulls[k].end(), got_nulls.begin(), got_nulls.end());
    }
    rows.Reorder(context.query(), positions);
    const std::vector<std::uint32_t> chunk_ids = DownloadRowIds(engine, rows.Ids(source));
    ids.insert(ids.end(), chunk_ids.begin(), chunk_ids.end());
  });
  const ExecutionContext::NodeScope scope(context, *this);
  RowSet result(engine, select_.from, source);
  if (ids.empty()) {
    result.SetIds(source, AllocateRowIds(engine, 0, "top-k rows"));
    return result;
  }
  // The candidates come chunk by chunk, each chunk's in key order with ties
  // in row order (a stable top-k), so keys that tie are in row order: the
  // last top-k, stable too, breaks ties by input position as one pass does.
  std::vector<DeviceVector> candidates;
  candidates.reserve(keys_.size());
  std::vector<SortKey> keys;
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    DeviceVector v = AllocateVector(engine, types[k], ids.size(), "top-k candidates");
    engine.Upload(v.values.get(), 0, values[k].size(), values[k].data(), "top-k candidates");
    if (std::find(nulls[k].begin(), nulls[k].end(), 1) != nulls[k].end()) {
      v.nulls = engine.pool().Acquire(ids.size(), "top-k candidates");
      engine.Upload(v.nulls.get(), 0, ids.size(), nulls[k].data(), "top-k candidates");
    }
    candidates.push_back(std::move(v));
    keys.push_back({View(candidates.back()), descending_[k]});
  }
  std::vector<std::uint32_t> chosen = {0};
  if (ids.size() > 1)
    chosen = DownloadRowIds(engine, TopK(context.query(), *top_k_, keys, ids.size()).positions);
  for (std::uint32_t& c : chosen)
    c = ids[c];
  result.SetIds(source, UploadRowIds(engine, chosen));
  return result;
}

RowSet SortNode::Run(ExecutionContext& context) const {
  if (stream_tablets_ > 0) return RunStreamed(context);
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  if (rows.rows() > 0) CheckConstantKeys();
  if (keys_.empty() || rows.rows() == 0) return rows;
  CheckRowBuffers(context, top_k_ ? "ORDER BY with LIMIT" : "ORDER BY", rows.rows(), row_bytes_);
  // Evaluated even for one row, which needs no order: a key that overflows
  // raises the error on every row it is computed for, as the CPU reference's.
  const std::vector<DeviceVector> vectors = rows.Evaluate(context.query(), computed_);
  if (rows.rows() == 1) return rows;
  std::vector<SortKey> keys;
  for (std::size_t k = 0, c = 0; k < keys_.size(); ++k) {
    if (in_place_[k]) {
      const std::optional<VectorView> view = rows.ColumnInPlace(*keys_[k]);
      CLQ_CHECK(view.has_value(), "an ORDER BY key planned in place is not");
      keys.push_back({*view, descending_[k]});
    } else {
      keys.push_back({View(vectors[c++]), descending_[k]});
    }
  }
  const RowIds order = top_k_ ? TopK(context.query(), *top_k_, keys, rows.rows()).positions
                              : SortPermutation(context.query(), keys, rows.rows());
  rows.Reorder(context.query(), order);
  return rows;
}

}  // namespace clq
