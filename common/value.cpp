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

}  // namespace clq::sql
