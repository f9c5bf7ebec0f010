// Hashing and equality of rows over key columns, and a chained hash index,
// shared by the CPU reference's hash join, GROUP BY and DISTINCT.
//
// Rows are identified by their position in a set of key ValueVectors of
// equal length. For grouping and DISTINCT, NULL equals NULL (SQLite groups
// NULLs together); the join skips NULL keys before it hashes. REAL keys
// compare with ==, so 0.0 and -0.0 are one key and hash alike (and NaN,
// which SQLite never stores, is one key).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "operators/cpu_reference/value_vector.hpp"

namespace clq::cpu_reference {

// One hash per row over all `keys` columns. REQUIRES: equal lengths.
std::vector<std::uint64_t> HashRows(std::span<const ValueVector> keys, std::size_t rows);

// Row `i` of `a` equals row `j` of `b` in every column, NULL equal to NULL.
// REQUIRES: a and b have the same number of columns with matching types.
bool RowsEqual(std::span<const ValueVector> a, std::size_t i, std::span<const ValueVector> b,
               std::size_t j);

// Whether row `i` has a NULL in any key column.
bool AnyNull(std::span<const ValueVector> keys, std::size_t i);

// Buckets of chained ids 0..capacity-1, keyed by a 64-bit hash. The caller
// stores the hash of each id and filters candidates; chains hold ids in the
// reverse order of insertion.
class HashChains {
 public:
  static constexpr std::size_t kEnd = std::numeric_limits<std::size_t>::max();

  // REQUIRES: ids inserted later are < capacity.
  explicit HashChains(std::size_t capacity);

  void Insert(std::uint64_t hash, std::size_t id);
  std::size_t First(std::uint64_t hash) const { return heads_[hash & mask_]; }
  std::size_t Next(std::size_t id) const { return next_[id]; }

 private:
  std::vector<std::size_t> heads_;
  std::vector<std::size_t> next_;
  std::uint64_t mask_ = 0;
};

}  // namespace clq::cpu_reference
