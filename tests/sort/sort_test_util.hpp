// Host columns for the sort and group-by tests: random values of every type
// with NULLs, duplicates and extremes, uploaded as DeviceVectors, and an
// independent CPU comparator (SQLite's order: NULL smallest, bytewise text).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "operators/device_vector.hpp"

namespace clq::sort_testing {

struct HostColumn {
  ColumnType type = ColumnType::Int32();
  std::vector<std::int32_t> i32;
  std::vector<std::int64_t> i64;
  std::vector<double> f64;
  std::vector<char> chars;          // size * width bytes
  std::vector<std::uint8_t> nulls;  // empty: no NULLs

  bool is_null(std::size_t r) const { return !nulls.empty() && nulls[r] != 0; }

  // <0, 0, >0 comparing the values of rows a and b (NULL smallest).
  int Compare(std::size_t a, std::size_t b) const {
    const bool na = is_null(a), nb = is_null(b);
    if (na || nb) return na == nb ? 0 : (na ? -1 : 1);
    switch (type.type) {
      case DataType::kInt32:
        return i32[a] < i32[b] ? -1 : (i32[a] > i32[b] ? 1 : 0);
      case DataType::kInt64:
        return i64[a] < i64[b] ? -1 : (i64[a] > i64[b] ? 1 : 0);
      case DataType::kDouble:
        return f64[a] < f64[b] ? -1 : (f64[a] > f64[b] ? 1 : 0);
      case DataType::kChar:
        return std::memcmp(&chars[a * type.width], &chars[b * type.width], type.width);
    }
    return 0;
  }
};

// `rows` values of `type`, drawn from `distinct` values (plus the type's
// extremes), NULL with probability null_rate (no NULL map when 0).
inline HostColumn RandomColumn(ColumnType type, std::size_t rows, std::uint32_t distinct,
                               double null_rate, std::mt19937_64& rng) {
  HostColumn c;
  c.type = type;
  std::uniform_int_distribution<std::uint32_t> pick(0, distinct + 3);
  std::bernoulli_distribution is_null(null_rate);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint32_t v = pick(rng);
    const std::int64_t centred = static_cast<std::int64_t>(v) - distinct / 2;
    switch (type.type) {
      case DataType::kInt32:
        c.i32.push_back(v == distinct       ? std::numeric_limits<std::int32_t>::min()
                        : v == distinct + 1 ? std::numeric_limits<std::int32_t>::max()
                        : v == distinct + 2 ? -1
                                            : static_cast<std::int32_t>(centred * 7919));
        break;
      case DataType::kInt64:
        c.i64.push_back(v == distinct       ? std::numeric_limits<std::int64_t>::min()
                        : v == distinct + 1 ? std::numeric_limits<std::int64_t>::max()
                        : v == distinct + 2 ? -1
                                            : centred * 1'000'000'007LL);
        break;
      case DataType::kDouble: {
        const double special[] = {-0.0, 0.0, std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity()};
        c.f64.push_back(v >= distinct ? special[v - distinct] : static_cast<double>(centred) / 3.0);
        break;
      }
      case DataType::kChar: {
        // Shared prefixes, NUL padding and high bytes.
        std::vector<char> s(type.width, '\0');
        const std::uint32_t len = v % (type.width + 1);
        for (std::uint32_t i = 0; i < len; ++i)
          s[i] = i + 1 < len ? 'a' : static_cast<char>(v % 3 == 0 ? 0xC3 : 'a' + v % 5);
        c.chars.insert(c.chars.end(), s.begin(), s.end());
        break;
      }
    }
  }
  if (null_rate > 0) {
    c.nulls.resize(rows);
    for (auto& n : c.nulls)
      n = is_null(rng) ? 1 : 0;
  }
  return c;
}

inline DeviceVector Upload(Engine& engine, const HostColumn& c, std::size_t rows) {
  DeviceVector v = AllocateVector(engine, c.type, std::max<std::size_t>(rows, 1), "test column");
  v.size = rows;
  const void* data = c.type.type == DataType::kInt32    ? static_cast<const void*>(c.i32.data())
                     : c.type.type == DataType::kInt64  ? static_cast<const void*>(c.i64.data())
                     : c.type.type == DataType::kDouble ? static_cast<const void*>(c.f64.data())
                                                        : static_cast<const void*>(c.chars.data());
  if (rows != 0) engine.Upload(v.values.get(), 0, rows * c.type.width, data, "test upload");
  if (!c.nulls.empty()) {
    v.nulls = engine.pool().Acquire(std::max<std::size_t>(rows, 1), "test NULL map");
    if (rows != 0) engine.Upload(v.nulls.get(), 0, rows, c.nulls.data(), "test upload");
  }
  return v;
}

}  // namespace clq::sort_testing
