#include "operators/cpu_reference/cpu_join.hpp"

#include <algorithm>
#include <numeric>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_filter.hpp"
#include "operators/cpu_reference/cpu_simple_filter.hpp"
#include "operators/cpu_reference/row_hash.hpp"

namespace clq::cpu_reference {
namespace {

// kNoPosition gathers kNoRow: a LEFT JOIN's kept row without a match.
constexpr Position kNoPosition = ~Position{0};

std::vector<RowIndex> GatherRows(const std::vector<RowIndex>& rows,
                                 std::span<const Position> positions) {
  std::vector<RowIndex> result(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i)
    result[i] = positions[i] == kNoPosition ? kNoRow : rows[positions[i]];
  return result;
}

// Combines matched pairs into one JoinedRows: left rows at left_positions,
// right rows at right_positions.
JoinedRows Combine(const JoinedRows& left, const JoinedRows& right,
                   std::span<const Position> left_positions,
                   std::span<const Position> right_positions) {
  JoinedRows result;
  result.size = left_positions.size();
  result.sources = left.sources;
  result.sources.insert(result.sources.end(), right.sources.begin(), right.sources.end());
  for (const std::vector<RowIndex>& rows : left.table_rows)
    result.table_rows.push_back(GatherRows(rows, left_positions));
  for (const std::vector<RowIndex>& rows : right.table_rows)
    result.table_rows.push_back(GatherRows(rows, right_positions));
  return result;
}

// Bytes of `pairs` joined rows of `sources` tables (a row index each),
// composed while the matched positions (two per pair) are still held.
std::uint64_t JoinedBytes(std::uint64_t pairs, std::size_t sources) {
  return SaturatingMultiply(pairs, 2 * sizeof(Position) + sources * sizeof(RowIndex));
}

void CheckJoinedRows(std::uint64_t host_memory, std::uint64_t pairs, std::size_t sources) {
  CheckHostMemory(host_memory, "the join's result (" + std::to_string(pairs) + " rows)",
                  JoinedBytes(pairs, sources));
}

// Appends a matched pair. Where the positions must grow, the grown arrays
// (and the old ones, until they are copied) are checked first.
void AppendMatch(std::vector<Position>& left, std::vector<Position>& right, Position l, Position r,
                 std::uint64_t host_memory) {
  if (left.size() == left.capacity()) {
    const std::size_t capacity = std::max<std::size_t>(2 * left.capacity(), 1024);
    CheckHostMemory(
        host_memory,
        "the join's matched rows (more than " + std::to_string(left.size()) + " so far)",
        SaturatingMultiply(capacity + left.capacity(), 2 * sizeof(Position)));
    left.reserve(capacity);
    right.reserve(capacity);
  }
  left.push_back(l);
  right.push_back(r);
}

std::vector<ValueVector> EvaluateKeys(const EvalContext& context, const std::vector<JoinKey>& keys,
                                      bool joined_side) {
  std::vector<ValueVector> values;
  for (const JoinKey& key : keys)
    values.push_back(Evaluate(joined_side ? *key.joined_side : *key.new_side, context));
  return values;
}

}  // namespace

JoinedRows JoinedRows::AllRowsOf(const std::vector<sql::TableRef>& from, std::size_t source) {
  const RowCount rows = from.at(source).table->rows();
  JoinedRows result;
  result.sources = {source};
  result.table_rows.emplace_back(static_cast<std::size_t>(rows));
  std::iota(result.table_rows[0].begin(), result.table_rows[0].end(), RowIndex{0});
  result.size = static_cast<std::size_t>(rows);
  return result;
}

EvalContext ContextOf(const std::vector<sql::TableRef>& from, const JoinedRows& rows) {
  EvalContext context;
  context.rows = rows.size;
  context.from = &from;
  context.table_rows.assign(from.size(), std::nullopt);
  for (std::size_t k = 0; k < rows.sources.size(); ++k)
    context.table_rows.at(rows.sources[k]) = std::span<const RowIndex>(rows.table_rows[k]);
  return context;
}

EvalContext ContextOf(const std::vector<sql::TableRef>& from, const JoinedRows& rows,
                      std::size_t begin, std::size_t count) {
  CLQ_CHECK(begin + count <= rows.size, "batch outside the joined rows");
  EvalContext context = ContextOf(from, rows);
  context.rows = count;
  for (std::optional<std::span<const RowIndex>>& table_rows : context.table_rows)
    if (table_rows) table_rows = table_rows->subspan(begin, count);
  return context;
}

JoinedRows SelectRows(const JoinedRows& rows, std::span<const Position> positions) {
  JoinedRows result;
  result.sources = rows.sources;
  result.size = positions.size();
  for (const std::vector<RowIndex>& table_rows : rows.table_rows)
    result.table_rows.push_back(GatherRows(table_rows, positions));
  return result;
}

JoinedRows FilterRows(const std::vector<sql::TableRef>& from, const JoinedRows& rows,
                      const sql::Expr& predicate) {
  // A batch at a time, so that the intermediate vectors of the predicate stay
  // in cache and memory does not grow with the table.
  std::vector<Position> kept;
  if (!TrySimpleFilter(from, rows, predicate, kept)) {
    for (std::size_t begin = 0; begin < rows.size; begin += kBatchRows) {
      const std::size_t count = std::min(kBatchRows, rows.size - begin);
      AppendTruePositions(Evaluate(predicate, ContextOf(from, rows, begin, count)), begin, kept);
    }
    if (rows.size == 0) {
      // Still evaluate once, so that a broken predicate fails on empty input too.
      AppendTruePositions(Evaluate(predicate, ContextOf(from, rows)), 0, kept);
    }
  }
  if (kept.size() == rows.size) return rows;
  return SelectRows(rows, kept);
}

namespace {

// The matching pairs of a hash join on `keys` (see HashJoin), as positions
// into `left` and `right`, in left order and, within a left row, in right
// order.
void MatchPairs(const std::vector<sql::TableRef>& from, const JoinedRows& left,
                const JoinedRows& right, const std::vector<JoinKey>& keys,
                std::uint64_t host_memory, std::vector<Position>& left_positions,
                std::vector<Position>& right_positions) {
  CLQ_CHECK(!keys.empty(), "hash join without keys");
  const std::vector<ValueVector> build_keys = EvaluateKeys(ContextOf(from, right), keys, false);
  const std::vector<std::uint64_t> build_hashes = HashRows(build_keys, right.size);
  HashSlots table(right.size);
  for (std::size_t b = 0; b < right.size; ++b)
    if (!AnyNull(build_keys, b)) table.Insert(build_hashes[b], b);

  // Probe a batch of left rows at a time, so that probe keys stay in cache.
  for (std::size_t begin = 0; begin < left.size; begin += kBatchRows) {
    const std::size_t count = std::min(kBatchRows, left.size - begin);
    const std::vector<ValueVector> probe_keys =
        EvaluateKeys(ContextOf(from, left, begin, count), keys, true);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      CLQ_CHECK(build_keys[k].type == probe_keys[k].type, "hash join keys of different types");
    }
    const std::vector<std::uint64_t> probe_hashes = HashRows(probe_keys, count);
    for (std::size_t p = 0; p < count; ++p) {
      if (AnyNull(probe_keys, p)) continue;
      table.ForEach(probe_hashes[p], [&](std::size_t b) {
        if (RowsEqual(probe_keys, p, build_keys, b))
          AppendMatch(left_positions, right_positions, begin + p, b, host_memory);
        return true;
      });
    }
  }
}

void AllPairs(const JoinedRows& left, const JoinedRows& right, std::uint64_t host_memory,
              std::vector<Position>& left_positions, std::vector<Position>& right_positions) {
  CheckJoinedRows(host_memory, SaturatingMultiply(left.size, right.size),
                  left.sources.size() + right.sources.size());
  left_positions.reserve(left.size * right.size);
  right_positions.reserve(left.size * right.size);
  for (std::size_t p = 0; p < left.size; ++p) {
    for (std::size_t b = 0; b < right.size; ++b) {
      left_positions.push_back(p);
      right_positions.push_back(b);
    }
  }
}

}  // namespace

JoinedRows HashJoin(const std::vector<sql::TableRef>& from, const JoinedRows& left,
                    const JoinedRows& right, const std::vector<JoinKey>& keys,
                    std::uint64_t host_memory) {
  std::vector<Position> left_positions;
  std::vector<Position> right_positions;
  MatchPairs(from, left, right, keys, host_memory, left_positions, right_positions);
  CheckJoinedRows(host_memory, left_positions.size(), left.sources.size() + right.sources.size());
  return Combine(left, right, left_positions, right_positions);
}

JoinedRows LeftJoin(const std::vector<sql::TableRef>& from, const JoinedRows& left,
                    const JoinedRows& right, const std::vector<JoinKey>& keys,
                    const std::vector<const sql::Expr*>& conditions, std::uint64_t host_memory) {
  std::vector<Position> left_positions;
  std::vector<Position> right_positions;
  if (keys.empty()) {
    AllPairs(left, right, host_memory, left_positions, right_positions);
  } else {
    MatchPairs(from, left, right, keys, host_memory, left_positions, right_positions);
  }
  // The pairs that meet the rest of ON, still in left order.
  if (!conditions.empty()) {
    CheckJoinedRows(host_memory, left_positions.size(), left.sources.size() + right.sources.size());
    const JoinedRows pairs = Combine(left, right, left_positions, right_positions);
    JoinedRows current = pairs;
    std::vector<Position> kept(pairs.size);
    std::iota(kept.begin(), kept.end(), Position{0});
    for (const sql::Expr* condition : conditions) {
      std::vector<Position> true_at;
      for (std::size_t begin = 0; begin < current.size; begin += kBatchRows) {
        const std::size_t count = std::min(kBatchRows, current.size - begin);
        AppendTruePositions(Evaluate(*condition, ContextOf(from, current, begin, count)), begin,
                            true_at);
      }
      current = SelectRows(current, true_at);
      for (std::size_t i = 0; i < true_at.size(); ++i)
        true_at[i] = kept[true_at[i]];
      kept = std::move(true_at);
    }
    std::vector<Position> kept_left, kept_right;
    for (const Position k : kept) {
      kept_left.push_back(left_positions[k]);
      kept_right.push_back(right_positions[k]);
    }
    left_positions = std::move(kept_left);
    right_positions = std::move(kept_right);
  }
  // Every left row in order: its matches, or itself once with no right row.
  std::vector<Position> out_left, out_right;
  std::size_t next = 0;
  for (std::size_t p = 0; p < left.size; ++p) {
    if (next < left_positions.size() && left_positions[next] == p) {
      for (; next < left_positions.size() && left_positions[next] == p; ++next)
        AppendMatch(out_left, out_right, p, right_positions[next], host_memory);
    } else {
      AppendMatch(out_left, out_right, p, kNoPosition, host_memory);
    }
  }
  CheckJoinedRows(host_memory, out_left.size(), left.sources.size() + right.sources.size());
  return Combine(left, right, out_left, out_right);
}

JoinedRows CrossJoin(const JoinedRows& left, const JoinedRows& right, std::uint64_t host_memory) {
  std::vector<Position> left_positions;
  std::vector<Position> right_positions;
  AllPairs(left, right, host_memory, left_positions, right_positions);
  return Combine(left, right, left_positions, right_positions);
}

}  // namespace clq::cpu_reference
