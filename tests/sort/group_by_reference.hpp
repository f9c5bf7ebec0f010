// An independent CPU GROUP BY for the group-by tests: groups in order of
// first appearance by a byte image of each key tuple (NULL equal to NULL,
// -0.0 to 0.0), integer SUM in 128 bits, REAL SUM correctly rounded by
// Shewchuk's algorithm (Python's math.fsum), MIN/MAX of REAL ordering -0.0
// below 0.0, QUANTILE by sorting.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels_cl/sort_shared.h"
#include "kernels_cl/vm_shared.h"
#include "tests/sort/sort_test_util.hpp"

namespace clq::group_by_testing {

using sort_testing::HostColumn;
__extension__ typedef __int128 Wide;

// The correctly rounded sum of finite doubles (ties to even); +0.0 when the
// exact sum is zero.
inline double ExactSum(const std::vector<double>& values) {
  std::vector<double> partials;
  for (double x : values) {
    std::size_t i = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);
      if (lo != 0.0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  double hi = 0.0;
  std::size_t n = partials.size();
  if (n > 0) {
    hi = partials[--n];
    double lo = 0.0;
    while (n > 0) {
      const double x = hi;
      const double y = partials[--n];
      hi = x + y;
      lo = y - (hi - x);
      if (lo != 0.0) break;
    }
    // Half-way cases: the partials below decide the rounding direction.
    if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
      const double y = lo * 2;
      const double x = hi + y;
      if (y == x - hi) hi = x;
    }
  }
  return hi == 0.0 ? 0.0 : hi;
}

// Order-preserving image of a double with -0.0 below 0.0.
inline std::uint64_t OrderedBits(double d) {
  const auto bits = std::bit_cast<std::uint64_t>(d);
  return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
}

inline void AppendKey(const HostColumn& c, std::size_t r, std::string& image) {
  if (c.is_null(r)) {
    image += 'N';
    return;
  }
  image += 'V';
  switch (c.type.type) {
    case DataType::kInt32:
      image.append(reinterpret_cast<const char*>(&c.i32[r]), 4);
      break;
    case DataType::kInt64:
      image.append(reinterpret_cast<const char*>(&c.i64[r]), 8);
      break;
    case DataType::kDouble: {
      const double d = c.f64[r] == 0.0 ? 0.0 : c.f64[r];
      image.append(reinterpret_cast<const char*>(&d), 8);
      break;
    }
    case DataType::kChar:
      image.append(&c.chars[r * c.type.width], c.type.width);
      break;
  }
}

struct HostSpec {
  std::uint32_t operation = VM_AGG_COUNT;
  const HostColumn* argument = nullptr;  // none: COUNT(*)
  double quantile = 0.5;
};

struct ExpectedValue {
  std::int64_t count = 0;  // non-NULL inputs (rows for COUNT(*))
  std::uint64_t bits = 0;  // INT64 value or DOUBLE bits; meaningful when count > 0
  bool overflow = false;   // SUM_I total past int64
};

struct Expected {
  std::vector<std::uint32_t> first;
  std::vector<std::vector<ExpectedValue>> values;  // [spec][group]
  bool overflow = false;                           // some SUM_I group overflows
};

inline double RealAt(const HostColumn& c, std::size_t r) {
  switch (c.type.type) {
    case DataType::kInt32:
      return static_cast<double>(c.i32[r]);
    case DataType::kInt64:
      return static_cast<double>(c.i64[r]);
    default:
      return c.f64[r];
  }
}

inline std::int64_t IntAt(const HostColumn& c, std::size_t r) {
  return c.type.type == DataType::kInt32 ? c.i32[r] : c.i64[r];
}

inline Expected Reference(const std::vector<HostColumn>& keys, const std::vector<HostSpec>& specs,
                          std::size_t rows) {
  Expected e;
  std::unordered_map<std::string, std::size_t> group_of;
  std::vector<std::size_t> group(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    std::string image;
    for (const HostColumn& k : keys)
      AppendKey(k, r, image);
    const auto [it, inserted] = group_of.emplace(image, e.first.size());
    if (inserted) e.first.push_back(static_cast<std::uint32_t>(r));
    group[r] = it->second;
  }
  const std::size_t groups = e.first.size();
  for (const HostSpec& spec : specs) {
    std::vector<ExpectedValue> out(groups);
    std::vector<std::vector<double>> reals(groups);
    std::vector<Wide> totals(groups, 0);
    std::vector<std::uint64_t> images(groups, 0);
    for (std::size_t r = 0; r < rows; ++r) {
      ExpectedValue& v = out[group[r]];
      if (spec.argument == nullptr) {
        ++v.count;
        continue;
      }
      if (spec.argument->is_null(r)) continue;
      ++v.count;
      switch (spec.operation) {
        case VM_AGG_SUM_I:
          totals[group[r]] += IntAt(*spec.argument, r);
          break;
        case VM_AGG_MIN_I:
        case VM_AGG_MAX_I: {
          const std::int64_t x = IntAt(*spec.argument, r);
          auto& best = images[group[r]];
          const auto image = static_cast<std::uint64_t>(x) ^ (std::uint64_t{1} << 63);
          if (v.count == 1 || (spec.operation == VM_AGG_MIN_I ? image < best : image > best))
            best = image;
          break;
        }
        case VM_AGG_MIN_R:
        case VM_AGG_MAX_R: {
          const std::uint64_t image = OrderedBits(RealAt(*spec.argument, r));
          auto& best = images[group[r]];
          if (v.count == 1 || (spec.operation == VM_AGG_MIN_R ? image < best : image > best))
            best = image;
          break;
        }
        default:  // SUM_R, QUANTILE
          reals[group[r]].push_back(RealAt(*spec.argument, r));
          break;
      }
    }
    for (std::size_t g = 0; g < groups; ++g) {
      ExpectedValue& v = out[g];
      switch (spec.operation) {
        case VM_AGG_COUNT:
          v.bits = static_cast<std::uint64_t>(v.count);
          break;
        case VM_AGG_SUM_I:
          v.overflow = totals[g] < std::numeric_limits<std::int64_t>::min() ||
                       totals[g] > std::numeric_limits<std::int64_t>::max();
          e.overflow = e.overflow || v.overflow;
          v.bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(totals[g]));
          break;
        case VM_AGG_MIN_I:
        case VM_AGG_MAX_I:
          v.bits = images[g] ^ (std::uint64_t{1} << 63);
          break;
        case VM_AGG_MIN_R:
        case VM_AGG_MAX_R:
          v.bits = (images[g] >> 63) != 0 ? images[g] ^ (std::uint64_t{1} << 63) : ~images[g];
          break;
        case VM_AGG_SUM_R: {
          bool nan = false, pos = false, neg = false;
          std::vector<double> finite;
          for (const double x : reals[g]) {
            if (std::isnan(x))
              nan = true;
            else if (std::isinf(x))
              (x > 0 ? pos : neg) = true;
            else
              finite.push_back(x);
          }
          const double sum = nan || (pos && neg) ? std::numeric_limits<double>::quiet_NaN()
                             : pos               ? std::numeric_limits<double>::infinity()
                             : neg               ? -std::numeric_limits<double>::infinity()
                                                 : ExactSum(finite);
          v.bits = std::bit_cast<std::uint64_t>(sum);
          break;
        }
        case GROUP_AGG_QUANTILE: {
          std::vector<double>& xs = reals[g];
          if (xs.empty()) break;
          std::sort(xs.begin(), xs.end());
          const double q = std::clamp(spec.quantile, 0.0, 1.0);
          const double x =
              xs[static_cast<std::size_t>(std::floor(q * static_cast<double>(xs.size() - 1)))];
          const bool real = spec.argument->type.type == DataType::kDouble;
          v.bits = real ? std::bit_cast<std::uint64_t>(x == 0.0 ? 0.0 : x)
                        : static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
          break;
        }
      }
    }
    e.values.push_back(std::move(out));
  }
  return e;
}

// Bounds of an integer column's non-NULL values; nullopt for other types or
// no value.
inline std::optional<IntRange> RangeOf(const HostColumn& c, std::size_t rows) {
  if (!c.type.is_integer()) return std::nullopt;
  std::optional<IntRange> range;
  for (std::size_t r = 0; r < rows; ++r) {
    if (c.is_null(r)) continue;
    const std::int64_t v = IntAt(c, r);
    if (!range) range = IntRange{v, v};
    range->min = std::min(range->min, v);
    range->max = std::max(range->max, v);
  }
  return range;
}

}  // namespace clq::group_by_testing
