#include "plan/streamed_input.hpp"

#include <algorithm>
#include <optional>

#include "common/byte_size.hpp"
#include "runtime/device_table.hpp"

namespace clq {

bool ScansOneTable(const PhysicalNode& node) {
  if (node.Name() == "Scan") return true;
  return node.Name() == "Filter" && node.children().size() == 1 &&
         ScansOneTable(*node.children().front());
}

std::size_t StreamTablets(const Engine& engine, const sql::BoundSelect& select,
                          const RowNode& child, std::uint64_t row_bytes) {
  if (select.from.size() != 1 || !ScansOneTable(child)) return 0;
  const Table& table = *select.from.front().table;
  if (engine.TabletCountFor(table) <= 1) return 0;
  const std::uint64_t room = engine.info().global_mem_bytes / 4;
  if (SaturatingMultiply(table.rows(), row_bytes) <= room) return 0;
  const std::uint64_t tablet_bytes =
      SaturatingMultiply(engine.tables().TabletRows(table), std::max<std::uint64_t>(row_bytes, 1));
  return std::max<std::uint64_t>(1, room / std::max<std::uint64_t>(tablet_bytes, 1));
}

void ForEachChunk(ExecutionContext& context, const RowNode& child, const Table& table,
                  std::size_t tablets_per_chunk, const std::function<void(RowSet& rows)>& consume) {
  const std::size_t tablets = context.engine().TabletCountFor(table);
  for (std::size_t first = 0; first < tablets; first += tablets_per_chunk) {
    context.set_scan_tablets(std::make_pair(first, std::min(tablets_per_chunk, tablets - first)));
    std::optional<RowSet> chunk;
    try {
      chunk.emplace(child.Run(context));
    } catch (...) {
      context.set_scan_tablets(std::nullopt);
      throw;
    }
    context.set_scan_tablets(std::nullopt);
    consume(*chunk);
  }
}

}  // namespace clq
