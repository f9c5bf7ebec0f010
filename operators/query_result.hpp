// The host-side result of a query: named, typed columns of equal length.
//
// Values are stored by type (int64 for INTEGER, double for REAL, fixed-width
// NUL-padded bytes for TEXT) with an optional NULL map, so a result of 100M
// rows costs what its values cost. Both the device executor and the CPU
// reference produce this, and tests compare two results with
// CompareResults().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/types.hpp"
#include "sql/bound.hpp"

namespace clq {

class PinnedResultPool;  // runtime/pinned_result_pool.hpp

// Memory for result columns. Blocks of 32 MiB and more are mapped directly
// and marked for transparent huge pages, so a result of gigabytes faults in
// 2 MiB at a time rather than 4 KiB (where THP is enabled; advisory). With a
// `pool`, blocks of its minimum size and more are its pinned blocks where it
// has one to give (a GPU downloads into them in one DMA).
void* AllocateResultBytes(std::size_t bytes, PinnedResultPool* pool = nullptr);
void FreeResultBytes(void* block, std::size_t bytes, PinnedResultPool* pool = nullptr) noexcept;

// An allocator whose value-initialisation does nothing: result columns are
// written in full right after they are sized (downloads, widening copies),
// so zeroing them first would be one more pass over, and the first touch of,
// every page of a result that may be gigabytes. It holds the pool its blocks
// may come from, keeping it alive while the column lives; the pool moves
// with the column's memory, and a copy of a column takes ordinary memory.
template <typename T>
class UninitialisedAllocator {
 public:
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  template <typename U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };

  UninitialisedAllocator() = default;
  explicit UninitialisedAllocator(std::shared_ptr<PinnedResultPool> pool)
      : pool_(std::move(pool)) {}
  template <typename U>
  UninitialisedAllocator(const UninitialisedAllocator<U>& other) noexcept : pool_(other.pool()) {}

  T* allocate(std::size_t n) {
    return static_cast<T*>(AllocateResultBytes(n * sizeof(T), pool_.get()));
  }
  void deallocate(T* p, std::size_t n) noexcept { FreeResultBytes(p, n * sizeof(T), pool_.get()); }
  UninitialisedAllocator select_on_container_copy_construction() const { return {}; }
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  const std::shared_ptr<PinnedResultPool>& pool() const { return pool_; }
  template <typename U>
  bool operator==(const UninitialisedAllocator<U>& other) const noexcept {
    return pool_ == other.pool();
  }

 private:
  std::shared_ptr<PinnedResultPool> pool_;
};
template <typename T>
using ResultVector = std::vector<T, UninitialisedAllocator<T>>;

struct ResultColumn {
  std::string name;
  sql::ValueType type = sql::ValueType::kInteger;  // kNull: every value is NULL
  LogicalType logical;  // kInteger: DATE (days) or DECIMAL (scaled); see common/types.hpp
  ResultVector<std::int64_t> integers;  // kInteger
  ResultVector<double> reals;           // kReal
  ResultVector<char> text;              // kText: rows * text_width bytes
  std::uint32_t text_width = 0;
  std::vector<std::uint8_t> nulls;  // empty: none NULL; else 1 per row, 1 = NULL
  // kText looked up from order codes (storage/text_codes.hpp): the codes, one
  // per row, and their dictionary, which a derived table of this result
  // keeps as its column's codes (operators/subquery_materialize). Empty
  // otherwise; a step that changes the rows drops them.
  ResultVector<std::int64_t> codes;
  std::shared_ptr<const TextDictionary> dictionary;

  RowCount rows() const;
  bool IsNull(RowCount row) const { return !nulls.empty() && nulls[row] != 0; }
  std::string_view TextAt(RowCount row) const;  // without NUL padding
  sql::Value ValueAt(RowCount row) const;
};

struct QueryResult {
  std::vector<ResultColumn> columns;
  RowCount rows = 0;
};

// The logical types of a query's visible outputs (sql::OutputColumn's
// expr.logical), in order.
std::vector<LogicalType> OutputLogicalTypes(const sql::BoundSelect& select);
// Marks each INTEGER column of `result` with its output's logical type.
void SetLogicalTypes(const std::vector<LogicalType>& logical, QueryResult& result);

struct CompareOptions {
  bool ignore_row_order = false;          // compare as multisets (rowsort)
  double real_relative_tolerance = 1e-9;  // |a - b| <= tol * max(|a|, |b|, 1)
};

// The bytes of a result's columns on the host.
std::uint64_t ResultBytes(const QueryResult& result);

// SQLite's ORDER BY order of two values: NULL first, then numbers (compared
// numerically across INTEGER and REAL), then text (bytewise). Returns <0, 0, >0.
int CompareSqlValues(const sql::Value& a, const sql::Value& b);
// CompareSqlValues of a's row `i` and b's row `j`, without making values
// (a text compares in place): for merging sorted results.
int CompareResultValues(const ResultColumn& a, RowCount i, const ResultColumn& b, RowCount j);

// `from`'s rows `rows`, in that order, with its name, types, NULL map and
// order codes (and their dictionary).
ResultColumn GatherResultRows(const ResultColumn& from, std::span<const RowCount> rows);

// Empty string when equal; else a description of the first difference
// ("row 17, column sum: 12 vs 13").
std::string CompareResults(const QueryResult& expected, const QueryResult& actual,
                           const CompareOptions& options = {});

}  // namespace clq
