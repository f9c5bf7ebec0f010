#include "common/value.hpp"

#include "common/errors.hpp"

namespace clq::sql {

const char* ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kNull:
      return "NULL";
    case ValueType::kInteger:
      return "INTEGER";
    case ValueType::kReal:
      return "REAL";
    case ValueType::kText:
      return "TEXT";
  }
  return "?";
}

ValueType ValueTypeOf(ColumnType type) {
  switch (type.type) {
    case DataType::kInt32:
    case DataType::kInt64:
      return ValueType::kInteger;
    case DataType::kDouble:
      return ValueType::kReal;
    case DataType::kChar:
      return ValueType::kText;
  }
  throw InternalError("unknown column type");
}

ColumnType StoredTypeOf(ValueType type, LogicalType logical, std::uint32_t text_width) {
  switch (type) {
    case ValueType::kInteger:
      if (logical.is_date()) return ColumnType::Date();
      if (logical.is_decimal()) return ColumnType::Decimal(logical.precision, logical.scale);
      return ColumnType::Int64();
    case ValueType::kReal:
      return ColumnType::Double();
    case ValueType::kText:
      return ColumnType::Char(text_width);
    case ValueType::kNull:
      break;
  }
  return ColumnType::Int32();
}

}  // namespace clq::sql
