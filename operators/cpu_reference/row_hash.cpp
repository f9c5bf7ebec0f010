#include "operators/cpu_reference/row_hash.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <string_view>

#include "common/errors.hpp"

namespace clq::cpu_reference {
namespace {

// splitmix64's finalizer: spreads every input bit over the whole word.
std::uint64_t Mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

constexpr std::uint64_t kNullHash = 0x6e756c6c6e756c6cull;

// Equal REAL keys: ==, except that NaN (which SQLite never stores) is one key.
bool RealKeysEqual(double x, double y) {
  return x == y || (std::isnan(x) && std::isnan(y));
}

std::uint64_t RealBits(double x) {
  if (x == 0.0) x = 0.0;  // -0.0 == 0.0, so they must hash alike
  if (std::isnan(x)) x = std::numeric_limits<double>::quiet_NaN();
  return std::bit_cast<std::uint64_t>(x);
}

}  // namespace

std::vector<std::uint64_t> HashRows(std::span<const ValueVector> keys, std::size_t rows) {
  std::vector<std::uint64_t> hashes(rows, 0x9e3779b97f4a7c15ull);
  for (const ValueVector& key : keys) {
    CLQ_CHECK(key.size() == rows, "key columns of different lengths");
    for (std::size_t i = 0; i < rows; ++i) {
      std::uint64_t h = kNullHash;
      if (key.nulls[i] == 0) {
        switch (key.type) {
          case sql::ValueType::kInteger:
            h = static_cast<std::uint64_t>(key.integers[i]);
            break;
          case sql::ValueType::kReal:
            h = RealBits(key.reals[i]);
            break;
          case sql::ValueType::kText:
            h = std::hash<std::string_view>()(key.texts[i]);
            break;
          case sql::ValueType::kNull:
            break;
        }
      }
      hashes[i] = Mix(hashes[i] ^ Mix(h));
    }
  }
  return hashes;
}

bool RowsEqual(std::span<const ValueVector> a, std::size_t i, std::span<const ValueVector> b,
               std::size_t j) {
  for (std::size_t c = 0; c < a.size(); ++c) {
    const ValueVector& x = a[c];
    const ValueVector& y = b[c];
    const bool x_null = x.nulls[i] != 0;
    const bool y_null = y.nulls[j] != 0;
    if (x_null || y_null) {
      if (x_null != y_null) return false;
      continue;
    }
    switch (x.type) {
      case sql::ValueType::kInteger:
        if (x.integers[i] != y.integers[j]) return false;
        break;
      case sql::ValueType::kReal:
        if (!RealKeysEqual(x.reals[i], y.reals[j])) return false;
        break;
      case sql::ValueType::kText:
        if (x.texts[i] != y.texts[j]) return false;
        break;
      case sql::ValueType::kNull:
        break;
    }
  }
  return true;
}

bool AnyNull(std::span<const ValueVector> keys, std::size_t i) {
  for (const ValueVector& key : keys)
    if (key.nulls[i] != 0) return true;
  return false;
}

HashSlots::HashSlots(std::size_t expected) {
  // At most half full, so that probe sequences stay short.
  const std::size_t slots = std::bit_ceil(std::max<std::size_t>(expected * 2, 16));
  slots_.resize(slots);
  mask_ = slots - 1;
}

void HashSlots::Place(const Slot& slot) {
  std::size_t i = slot.hash & mask_;
  while (slots_[i].id != kEmpty)
    i = (i + 1) & mask_;
  slots_[i] = slot;
}

void HashSlots::Insert(std::uint64_t hash, std::size_t id) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  Place({hash, id});
  ++size_;
}

void HashSlots::Grow() {
  std::vector<Slot> old;
  old.reserve(size_);
  for (const Slot& slot : slots_)
    if (slot.id != kEmpty) old.push_back(slot);
  // Re-placing in id order keeps equal hashes in insertion order.
  std::sort(old.begin(), old.end(), [](const Slot& a, const Slot& b) { return a.id < b.id; });
  slots_.assign(slots_.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& slot : old)
    Place(slot);
}

}  // namespace clq::cpu_reference
