#include "plan/row_buffers.hpp"

#include "common/byte_size.hpp"

namespace clq {

std::uint64_t EvaluatedBytesPerRow(const std::vector<ValueVectorType>& types) {
  std::uint64_t bytes = 0;
  for (const ValueVectorType& type : types)
    bytes += type.type.width + (type.nullable ? 1 : 0);
  return bytes;
}

std::uint64_t HeldRowIdBytesPerRow(const sql::BoundSelect& select, const RowShape& shape) {
  return shape.implicit() ? 0 : RowIdBytesPerRow(select);
}

std::uint64_t RowIdBytesPerRow(const sql::BoundSelect& select) {
  return select.from.size() * sizeof(std::uint32_t);
}

void CheckRowBuffers(ExecutionContext& context, const std::string& step, RowCount rows,
                     std::uint64_t bytes_per_row) {
  context.query().CheckDeviceBuffers(step + " over " + std::to_string(rows) + " rows",
                                     SaturatingMultiply(rows, bytes_per_row));
}

}  // namespace clq
