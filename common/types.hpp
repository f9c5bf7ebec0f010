// Column types of clq tables and the host-side row-count type.
//
// Storage types are INT32, INT64, DOUBLE and CHAR(n) (n bytes, NUL-padded on
// the right; a string never contains NUL, so NUL padding sorts and compares
// bytewise exactly like SQLite's memcmp-then-length rule). Expressions compute
// in SQLite's two numeric types: INTEGER (64-bit) and REAL (double).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace clq {

// Row counts and row indices on the host. Device row ids are 32-bit (uint),
// so one table holds fewer than 2^32 rows.
using RowCount = std::uint64_t;

inline constexpr RowCount kMaxTableRows = 0xFFFFFFFFull;

enum class DataType : std::uint8_t { kInt32 = 0, kInt64 = 1, kDouble = 2, kChar = 3 };

// The CHAR(width) value at `bytes` without its NUL padding.
inline std::string_view CharValue(const char* bytes, std::size_t width) {
  while (width > 0 && bytes[width - 1] == '\0')
    --width;
  return {bytes, width};
}

// What the integers of a column, an expression or a result mean. Devices and
// the expression machine see only the integers: the binder rewrites DATE and
// DECIMAL arithmetic into integer arithmetic (sql/binder_logical.cpp), and the
// edges (import, results, Arrow) convert.
//   kDate:    days since 1970-01-01 (INT32 storage);
//   kDecimal: DECIMAL(precision, scale), the value times 10^scale exactly
//             (INT64 storage, precision <= 18).
enum class Logical : std::uint8_t { kNone = 0, kDate = 1, kDecimal = 2 };

inline constexpr std::uint8_t kMaxDecimalPrecision = 18;

struct LogicalType {
  Logical kind = Logical::kNone;
  std::uint8_t precision = 0;  // kDecimal: digits in all, 1..18
  std::uint8_t scale = 0;      // kDecimal: digits after the point, 0..precision

  static constexpr LogicalType None() { return {}; }
  static constexpr LogicalType Date() { return {Logical::kDate, 0, 0}; }
  static constexpr LogicalType Decimal(std::uint8_t precision, std::uint8_t scale) {
    return {Logical::kDecimal, precision, scale};
  }
  bool is_date() const { return kind == Logical::kDate; }
  bool is_decimal() const { return kind == Logical::kDecimal; }
  std::string ToString() const;  // "", "DATE", "DECIMAL(15,2)"

  friend bool operator==(const LogicalType&, const LogicalType&) = default;
};

struct ColumnType {
  DataType type = DataType::kInt32;
  std::uint32_t width = 4;  // bytes per value: 4, 8, 8, or n for CHAR(n)
  LogicalType logical;      // DATE on INT32, DECIMAL on INT64; else none

  static constexpr ColumnType Int32() { return {DataType::kInt32, 4, {}}; }
  static constexpr ColumnType Int64() { return {DataType::kInt64, 8, {}}; }
  static constexpr ColumnType Double() { return {DataType::kDouble, 8, {}}; }
  static constexpr ColumnType Char(std::uint32_t n) { return {DataType::kChar, n, {}}; }
  static constexpr ColumnType Date() { return {DataType::kInt32, 4, LogicalType::Date()}; }
  static constexpr ColumnType Decimal(std::uint8_t precision, std::uint8_t scale) {
    return {DataType::kInt64, 8, LogicalType::Decimal(precision, scale)};
  }

  bool is_integer() const { return type == DataType::kInt32 || type == DataType::kInt64; }
  bool is_numeric() const { return type != DataType::kChar; }
  // "INT32", "INT64", "DOUBLE", "CHAR(52)", "DATE", "DECIMAL(15,2)"
  std::string ToString() const;

  friend bool operator==(const ColumnType&, const ColumnType&) = default;
};

// Bounds of integer values: every value v satisfies min <= v <= max. The
// expression compiler proves from them that arithmetic cannot overflow or
// fits 32 bits (operators/value_range.hpp).
struct IntRange {
  std::int64_t min = 0;
  std::int64_t max = 0;

  bool FitsInt32() const { return min >= INT32_MIN && max <= INT32_MAX; }
  friend bool operator==(const IntRange&, const IntRange&) = default;
};

// Largest CHAR(n) clq stores.
inline constexpr std::uint32_t kMaxCharWidth = 4096;

}  // namespace clq
