#include "common/types.hpp"

namespace clq {

std::string LogicalType::ToString() const {
  switch (kind) {
    case Logical::kNone:
      return "";
    case Logical::kDate:
      return "DATE";
    case Logical::kDecimal:
      return "DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
  }
  return "?";
}

std::string ColumnType::ToString() const {
  if (logical.kind != Logical::kNone) return logical.ToString();
  switch (type) {
    case DataType::kInt32:
      return "INT32";
    case DataType::kInt64:
      return "INT64";
    case DataType::kDouble:
      return "DOUBLE";
    case DataType::kChar:
      return "CHAR(" + std::to_string(width) + ")";
  }
  return "?";
}

}  // namespace clq
