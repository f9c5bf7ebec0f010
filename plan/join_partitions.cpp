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
// Rows a thread partitions or gathers at least.
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

// Bytes per row of each source's columns the statement reads.
std::vector<std::uint64_t> ReadBytesPerRow(const sql::BoundSelect& select) {
  std::vector<std::pair<std::size_t, std::size_t>> columns;
  const auto add = [&](const sql::Expr& e) { ColumnsOf(e, columns); };
  if (select.where) add(*select.where);
  for (const sql::Expr& k : select.group_keys)
    add(k);
  for (const sql::Aggregate& a : select.aggregates)
    if (a.argument) add(*a.argument);
  if (select.having) add(*select.having);
  for (const sql::OutputColumn& o : select.outputs)
    add(o.expr);
  for (const sql::TableRef& ref : select.from)
    if (ref.on) add(*ref.on);
  std::vector<std::uint64_t> bytes(select.from.size(), 0);
  for (const auto& [source, index] : columns) {
    const Column& column = select.from.at(source).table->column(index);
    bytes.at(source) += column.type().width + (column.nullable() ? 1 : 0);
  }
  return bytes;
}

// The partition of an integer key: the high bits of a multiplicative hash,
// scaled to `partitions` (equal keys, whatever their width, alike).
std::size_t PartitionOf(std::int64_t key, std::size_t partitions) {
  const std::uint64_t hash = static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::size_t>(((hash >> 32) * partitions) >> 32);
}

// A table's row ids grouped by partition, each partition's in table order:
// partition p's are ids[starts[p], starts[p + 1]).
struct PartitionedIds {
  std::shared_ptr<std::vector<std::uint32_t>> ids;
  std::vector<std::size_t> starts;
};

template <typename Key>
PartitionedIds PartitionKeys(std::span<const Key> keys, std::size_t partitions) {
  const std::size_t rows = keys.size();
  const std::size_t chunks =
      std::clamp<std::size_t>((rows + kRowsPerThread - 1) / kRowsPerThread, 1, kPartitionThreads);
  const std::size_t per_chunk = (rows + chunks - 1) / chunks;
  // Each chunk's count of rows per partition, then where its rows go.
  std::vector<std::vector<std::size_t>> at(chunks, std::vector<std::size_t>(partitions, 0));
  ParallelRanges(chunks, 1, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = first; c < last; ++c)
      for (std::size_t r = c * per_chunk; r < std::min(rows, (c + 1) * per_chunk); ++r)
        ++at[c][PartitionOf(keys[r], partitions)];
  });
  PartitionedIds out;
  out.starts.assign(partitions + 1, 0);
  std::size_t next = 0;
  for (std::size_t p = 0; p < partitions; ++p) {
    out.starts[p] = next;
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t count = at[c][p];
      at[c][p] = next;
      next += count;
    }
  }
  out.starts[partitions] = next;
  out.ids = std::make_shared<std::vector<std::uint32_t>>(rows);
  std::uint32_t* ids = out.ids->data();
  ParallelRanges(chunks, 1, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = first; c < last; ++c)
      for (std::size_t r = c * per_chunk; r < std::min(rows, (c + 1) * per_chunk); ++r)
        ids[at[c][PartitionOf(keys[r], partitions)]++] = static_cast<std::uint32_t>(r);
  });
  return out;
}

PartitionedIds Partition(const Column& key, std::size_t partitions) {
  return key.type().type == DataType::kInt64 ? PartitionKeys(key.int64s(), partitions)
                                             : PartitionKeys(key.int32s(), partitions);
}

// Copies the `width`-byte values of `from` at `ids` into `to`.
void GatherValues(const std::byte* from, std::size_t width, const std::uint32_t* ids,
                  std::size_t rows, std::byte* to) {
  ParallelRanges(rows, kRowsPerThread, 1, [&](std::size_t begin, std::size_t end) {
    if (width == 4) {
      for (std::size_t r = begin; r < end; ++r)
        std::memcpy(to + r * 4, from + std::size_t{ids[r]} * 4, 4);
    } else if (width == 8) {
      for (std::size_t r = begin; r < end; ++r)
        std::memcpy(to + r * 8, from + std::size_t{ids[r]} * 8, 8);
    } else {
      for (std::size_t r = begin; r < end; ++r)
        std::memcpy(to + r * width, from + std::size_t{ids[r]} * width, width);
    }
  });
}

// Partition `p`'s rows of `table`: every column made on first read.
TablePtr PartitionTable(const TablePtr& table, const PartitionedIds& partitioned, std::size_t p,
                        std::uint64_t host_memory) {
  const std::size_t first = partitioned.starts[p];
  const RowCount rows = partitioned.starts[p + 1] - first;
  std::vector<Column> columns;
  for (std::size_t c = 0; c < table->columns().size(); ++c) {
    const Column& column = table->column(c);
    const std::string what = "partition " + std::to_string(p + 1) + " of column " + column.name() +
                             " of " + table->name();
    // The fills hold the table and the ids: the partition may outlive this call.
    const auto gather = [table, c, ids = partitioned.ids, first, rows](bool nulls) {
      return [table, c, ids, first, rows, nulls](ColumnData&, std::byte* data) {
        const Column& from = table->column(c);
        if (nulls)
          GatherValues(reinterpret_cast<const std::byte*>(from.null_map()), 1, ids->data() + first,
                       rows, data);
        else
          GatherValues(from.bytes(), from.type().width, ids->data() + first, rows, data);
      };
    };
    auto data = std::make_shared<ColumnData>(column.type(), rows, gather(false), what, host_memory);
    std::shared_ptr<ColumnData> nulls;
    if (column.nullable())
      nulls = std::make_shared<ColumnData>(ColumnType::Char(1), rows, gather(true),
                                           "NULL map of " + what, host_memory);
    columns.emplace_back(column.name(), std::move(data), 0, rows, std::move(nulls));
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
                                                   const sql::BoundSelect& select,
                                                   const RowNode& child, std::uint64_t row_bytes) {
  if (select.from.size() != 2) return std::nullopt;
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
  const std::uint64_t room = engine.info().global_mem_bytes / 4;
  if (need <= room || room == 0) return std::nullopt;
  JoinPartitions planned;
  // A quarter to spare: hashed partitions are near, not exactly, equal.
  const std::uint64_t share = std::max<std::uint64_t>(room / 4 * 3, 1);
  planned.partitions_ = static_cast<std::size_t>(
      std::min<std::uint64_t>((need + share - 1) / share, std::max<RowCount>(joined, 1)));
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
  return "the join partitioned on the host by a hash of " + keys + " into " +
         std::to_string(partitions_) + " partitions, run one at a time";
}

void JoinPartitions::ForEach(ExecutionContext& context, const RowNode& child,
                             const sql::BoundSelect& select,
                             const std::function<void(RowSet& rows)>& consume) const {
  PartitionedIds partitioned[2];
  {
    const HostStage stage(context.engine().profiler(), "join partitions' row ids on the host");
    for (int i = 0; i < 2; ++i) {
      const Table& table = *select.from.at(sources_[i]).table;
      context.query().CheckHostMemory("the row ids of " + table.name() + " by join partition (" +
                                          std::to_string(table.rows()) + " rows)",
                                      SaturatingMultiply(table.rows(), sizeof(std::uint32_t)));
      partitioned[i] = Partition(table.column(keys_[i]), partitions_);
    }
  }
  for (std::size_t p = 0; p < partitions_; ++p) {
    std::vector<sql::TableRef> sources = select.from;
    for (int i = 0; i < 2; ++i)
      sources[sources_[i]].table = PartitionTable(select.from[sources_[i]].table, partitioned[i], p,
                                                  context.options().host_memory);
    std::optional<RowSet> rows;
    {
      const PartitionScope scope(context, sources);
      rows.emplace(child.Run(context));
    }
    consume(*rows);
  }
}

}  // namespace clq
