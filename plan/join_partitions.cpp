#include "plan/join_partitions.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "common/byte_size.hpp"
#include "common/parallel_ranges.hpp"
#include "plan/join_node.hpp"
#include "plan/query_plan.hpp"
#include "plan/streamed_input.hpp"
#include "runtime/profiler.hpp"

namespace clq {
namespace {

// A build row's share of a join's hash table and its matched positions.
constexpr std::uint64_t kJoinBytesPerRow = 16;
// Rows a thread partitions at least.
constexpr std::size_t kRowsPerThread = std::size_t{1} << 18;
// The threads that partition a table (each its own histogram).
constexpr std::size_t kPartitionThreads = 8;

// The join under `node`'s filters, if that is what it is.
const HashJoinNode* JoinUnder(const PhysicalNode& node) {
  const PhysicalNode* at = &node;
  while (at->Name() == "Filter" && at->children().size() == 1)
    at = at->children().front();
  return at->Name() == "HashJoin" ? dynamic_cast<const HashJoinNode*>(at) : nullptr;
}

// The partition of an integer key: the high bits of a multiplicative hash,
// scaled to `partitions` (equal keys, whatever their width, alike).
std::size_t PartitionOf(std::int64_t key, std::size_t partitions) {
  const std::uint64_t hash = static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::size_t>(((hash >> 32) * partitions) >> 32);
}

// How a table's rows fall into partitions: the rows split into chunks,
// each partitioned by a thread of its own; chunk c's rows of partition p go
// to rows at[c][p], at[c][p] + 1, ... of the partitioned table, which holds
// partition p's rows in rows [starts[p], starts[p + 1]), in table order.
struct PartitionLayout {
  std::size_t partitions = 0;
  std::size_t per_chunk = 0;
  std::vector<std::vector<std::size_t>> at;
  std::vector<std::size_t> starts;
};

template <typename Key>
PartitionLayout LayOut(std::span<const Key> keys, std::size_t partitions) {
  const std::size_t rows = keys.size();
  const std::size_t chunks =
      std::clamp<std::size_t>((rows + kRowsPerThread - 1) / kRowsPerThread, 1, kPartitionThreads);
  PartitionLayout layout;
  layout.partitions = partitions;
  layout.per_chunk = (rows + chunks - 1) / chunks;
  layout.at.assign(chunks, std::vector<std::size_t>(partitions, 0));
  ParallelRanges(chunks, 1, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = first; c < last; ++c) {
      std::size_t* counts = layout.at[c].data();
      const Key* key = keys.data();
      const std::size_t end = std::min(rows, (c + 1) * layout.per_chunk);
      for (std::size_t r = c * layout.per_chunk; r < end; ++r)
        ++counts[PartitionOf(key[r], partitions)];
    }
  });
  layout.starts.assign(partitions + 1, 0);
  std::size_t next = 0;
  for (std::size_t p = 0; p < partitions; ++p) {
    layout.starts[p] = next;
    for (std::vector<std::size_t>& chunk : layout.at) {
      const std::size_t count = chunk[p];
      chunk[p] = next;
      next += count;
    }
  }
  layout.starts[partitions] = next;
  return layout;
}

PartitionLayout LayOut(const Column& key, std::size_t partitions) {
  return key.type().type == DataType::kInt64 ? LayOut(key.int64s(), partitions)
                                             : LayOut(key.int32s(), partitions);
}

// Writes each `width`-byte value of `from` to its row of the partitioned
// table in `to`: one pass over the values in order, each thread's writes
// going forward in as many streams as there are partitions.
template <typename Key>
void Scatter(std::span<const Key> keys, const PartitionLayout& layout, const std::byte* from,
             std::size_t width, std::byte* to) {
  const std::size_t rows = keys.size();
  ParallelRanges(layout.at.size(), 1, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = first; c < last; ++c) {
      std::vector<std::size_t> next = layout.at[c];
      std::size_t* at = next.data();
      const Key* key = keys.data();
      const std::size_t partitions = layout.partitions;
      const std::size_t end = std::min(rows, (c + 1) * layout.per_chunk);
      const auto each = [&](auto copy) {
        for (std::size_t r = c * layout.per_chunk; r < end; ++r)
          copy(at[PartitionOf(key[r], partitions)]++, r);
      };
      if (width == 4)
        each([&](std::size_t to_row, std::size_t r) {
          std::memcpy(to + to_row * 4, from + r * 4, 4);
        });
      else if (width == 8)
        each([&](std::size_t to_row, std::size_t r) {
          std::memcpy(to + to_row * 8, from + r * 8, 8);
        });
      else
        each([&](std::size_t to_row, std::size_t r) {
          std::memcpy(to + to_row * width, from + r * width, width);
        });
    }
  });
}

// `table` with its rows in partition order (PartitionLayout), each column
// made on first read.
TablePtr PartitionedTable(const TablePtr& table, std::size_t key,
                          std::shared_ptr<const PartitionLayout> layout,
                          std::uint64_t host_memory) {
  std::vector<Column> columns;
  for (std::size_t c = 0; c < table->columns().size(); ++c) {
    const Column& column = table->column(c);
    const std::string what =
        "column " + column.name() + " of " + table->name() + " in join partition order";
    // The fills hold the table and the layout: the partitions may outlive
    // this call. `slot`: the column, or its order codes.
    const auto scatter = [table, key, layout](std::size_t slot, bool nulls) {
      return [table, slot, key, layout, nulls](ColumnData&, std::byte* data) {
        const Column& from = table->column(slot);
        const Column& keys = table->column(key);
        const std::byte* values =
            nulls ? reinterpret_cast<const std::byte*>(from.null_map()) : from.bytes();
        const std::size_t width = nulls ? 1 : from.type().width;
        if (keys.type().type == DataType::kInt64)
          Scatter(keys.int64s(), *layout, values, width, data);
        else
          Scatter(keys.int32s(), *layout, values, width, data);
      };
    };
    // Heap memory: a copy for one run, which pinning would cost more than
    // the staged upload it saves.
    auto data = std::make_shared<ColumnData>(column.type(), table->rows(), scatter(c, false), what,
                                             host_memory, true);
    if (column.type().type == DataType::kChar) {
      // The copy's order codes are the table's in partition order, so that
      // the codes a partition yields decode with the table's dictionary.
      const std::size_t slot = table->OrderCodesSlot(c);
      const Column& codes = table->column(slot);
      auto copied = std::make_shared<ColumnData>(codes.type(), table->rows(), scatter(slot, false),
                                                 "order codes of " + what, host_memory, true);
      data->AdoptOrderCodes(std::move(copied), *codes.shared_data());
    }
    std::shared_ptr<ColumnData> nulls;
    if (column.nullable())
      nulls = std::make_shared<ColumnData>(ColumnType::Char(1), table->rows(), scatter(c, true),
                                           "NULL map of " + what, host_memory, true);
    columns.emplace_back(column.name(), std::move(data), 0, table->rows(), std::move(nulls));
  }
  return std::make_shared<const Table>(table->name(), std::move(columns));
}

// Restores the statement's sources when a partition's run ends.
class PartitionScope {
 public:
  PartitionScope(ExecutionContext& context, const std::vector<sql::TableRef>& sources)
      : context_(context) {
    context_.set_sources(&sources);
  }
  ~PartitionScope() { context_.set_sources(nullptr); }
  PartitionScope(const PartitionScope&) = delete;
  PartitionScope& operator=(const PartitionScope&) = delete;

 private:
  ExecutionContext& context_;
};

}  // namespace

std::optional<JoinPartitions> JoinPartitions::Plan(const Engine& engine,
                                                   const QueryOptions& options,
                                                   const sql::BoundSelect& select,
                                                   const RowNode& child, std::uint64_t row_bytes) {
  if (options.join_partitions == Choice::kOff || select.from.size() != 2) return std::nullopt;
  const HashJoinNode* join = JoinUnder(child);
  if (join == nullptr) return std::nullopt;
  for (const PhysicalNode* side : join->children())
    if (!ScansOneTable(*side)) return std::nullopt;
  const JoinEdge& edge = join->edge();
  const sql::Expr* keys[2] = {&edge.left_key, &edge.right_key};
  const std::size_t sources[2] = {edge.left_source, edge.right_source};
  ColumnType types[2];
  for (int i = 0; i < 2; ++i) {
    if (keys[i]->kind != sql::Expr::Kind::kColumnRef || keys[i]->source != sources[i])
      return std::nullopt;
    types[i] = select.from.at(sources[i]).table->column(keys[i]->index).type();
    if (!types[i].is_integer()) return std::nullopt;
  }
  if (types[0].logical != types[1].logical) return std::nullopt;

  const std::vector<std::uint64_t> read = ReadBytesPerRow(select);
  RowCount joined = 0;
  std::uint64_t need = 0;
  for (const std::size_t source : sources) {
    const RowCount rows = select.from[source].table->rows();
    joined = std::max(joined, rows);
    need = SaturatingAdd(need, SaturatingMultiply(rows, read[source] + kJoinBytesPerRow));
  }
  // Each joined row: its consumer's bytes, a row id per table, the matched
  // positions of both sides.
  need = SaturatingAdd(need, SaturatingMultiply(joined, row_bytes + 4 * sizeof(std::uint32_t)));
  const std::uint64_t memory = engine.info().global_mem_bytes, room = memory / 4;
  const bool forced = options.join_partitions == Choice::kOn;
  if (!forced && (need <= room || room == 0)) return std::nullopt;
  JoinPartitions planned;
  // A quarter to spare: hashed partitions are near, not exactly, equal.
  const std::uint64_t share = std::max<std::uint64_t>(room / 4 * 3, 1);
  planned.partitions_ = static_cast<std::size_t>(std::clamp<std::uint64_t>(
      (need + share - 1) / share, forced ? 2 : 1, std::max<RowCount>(joined, 2)));
  planned.one_pass_first_ = !forced && need <= memory;
  for (int i = 0; i < 2; ++i) {
    planned.sources_[i] = sources[i];
    planned.keys_[i] = keys[i]->index;
  }
  return planned;
}

std::string JoinPartitions::Describe(const sql::BoundSelect& select) const {
  std::string keys;
  for (int i = 0; i < 2; ++i) {
    const sql::TableRef& ref = select.from.at(sources_[i]);
    keys += (i == 0 ? "" : " and ") + ref.alias + "." + ref.table->column(keys_[i]).name();
  }
  return std::string(one_pass_first_ ? "one pass first, where it may fit the device; past it, "
                                     : "") +
         "the join partitioned on the host by a hash of " + keys + " into " +
         std::to_string(partitions_) + " partitions, run one at a time";
}

void JoinPartitions::ForEach(ExecutionContext& context, const RowNode& child,
                             const sql::BoundSelect& select,
                             const std::function<void(RowSet& rows)>& consume) const {
  TablePtr partitioned[2];
  std::vector<std::size_t> starts[2];
  {
    const HostStage stage(context.engine().profiler(), "join partitions laid out on the host");
    for (int i = 0; i < 2; ++i) {
      const TablePtr& table = select.from.at(sources_[i]).table;
      auto layout =
          std::make_shared<const PartitionLayout>(LayOut(table->column(keys_[i]), partitions_));
      starts[i] = layout->starts;
      partitioned[i] =
          PartitionedTable(table, keys_[i], std::move(layout), context.options().host_memory);
    }
  }
  for (std::size_t p = 0; p < partitions_; ++p) {
    std::vector<sql::TableRef> sources = select.from;
    for (int i = 0; i < 2; ++i)
      sources[sources_[i]].table = partitioned[i]->Slice(partitioned[i]->name(), starts[i][p],
                                                         starts[i][p + 1] - starts[i][p]);
    std::optional<RowSet> rows;
    {
      const PartitionScope scope(context, sources);
      rows.emplace(child.Run(context));
    }
    consume(*rows);
  }
}

}  // namespace clq
