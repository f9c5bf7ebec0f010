// Hashing and equality of rows over key columns, and a flat hash multimap,
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

// A hash multimap from 64-bit hashes to ids, by open addressing with
// linear probing: each probe usually touches one cache line, which matters
// for joins whose build side exceeds the cache. The table doubles when half
// full. Ids with equal hashes are visited in insertion order, provided ids
// are inserted in increasing order (as both users do). The caller compares
// keys.
class HashSlots {
 public:
  // `expected`: the number of inserts to size for (more are allowed).
  explicit HashSlots(std::size_t expected);

  void Insert(std::uint64_t hash, std::size_t id);

  // Calls visit(id) for each id inserted with `hash`, in insertion order,
  // until visit returns false.
  template <typename Visit>
  void ForEach(std::uint64_t hash, Visit visit) const {
    for (std::size_t i = hash & mask_; slots_[i].id != kEmpty; i = (i + 1) & mask_)
      if (slots_[i].hash == hash && !visit(slots_[i].id)) return;
  }

 private:
  static constexpr std::size_t kEmpty = std::numeric_limits<std::size_t>::max();
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t id = kEmpty;
  };
  void Place(const Slot& slot);
  void Grow();

  std::vector<Slot> slots_;
  std::uint64_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace clq::cpu_reference
