#include "common/types.hpp"

namespace clq {

std::string ColumnType::ToString() const {
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
