// SQL values and their types, shared by the front end, the executors and
// results. Types follow SQLite (docs/DESIGN.md): INTEGER is 64-bit, REAL is
// double, TEXT is bytes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "common/types.hpp"

namespace clq::sql {

enum class ValueType : std::uint8_t { kNull, kInteger, kReal, kText };

const char* ValueTypeName(ValueType type);  // "NULL", "INTEGER", "REAL", "TEXT"

// The SQL type of a stored column type.
ValueType ValueTypeOf(ColumnType type);
// The column type that stores values of `type` and `logical` (a derived
// table's or a result's): INTEGER as INT64 (DATE as DATE, DECIMAL as its
// DECIMAL), REAL as DOUBLE, TEXT as CHAR(text_width), NULL as INT32.
ColumnType StoredTypeOf(ValueType type, LogicalType logical, std::uint32_t text_width);

// A constant: a literal in the statement, or a value in a result.
struct Value {
  ValueType type = ValueType::kNull;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;

  static Value Null() { return {}; }
  static Value Integer(std::int64_t v) { return {ValueType::kInteger, v, 0, {}}; }
  static Value Real(double v) { return {ValueType::kReal, 0, v, {}}; }
  static Value Text(std::string v) { return {ValueType::kText, 0, 0, std::move(v)}; }
  bool is_null() const { return type == ValueType::kNull; }
};

}  // namespace clq::sql
