#include "runtime/device_table.hpp"

#include <algorithm>

#include "common/errors.hpp"
#include "runtime/engine.hpp"

namespace clq {

TableResidency DefaultTableResidency(const Engine& engine) {
  return engine.info().MemoryIsHost() ? TableResidency::kHostView : TableResidency::kCopy;
}

DeviceTableCache::DeviceTableCache(Engine& engine, std::uint64_t budget_bytes,
                                   TableResidency residency, RowCount tablet_rows,
                                   std::uint64_t tablet_bytes)
    : engine_(engine),
      budget_bytes_(budget_bytes),
      residency_(residency),
      tablet_rows_(tablet_rows),
      tablet_bytes_(tablet_bytes) {}

void DeviceTableCache::SetTabletRowLimit(RowCount tablet_rows) {
  Clear();
  tablet_rows_ = tablet_rows;
}

RowCount DeviceTableCache::TabletRows(const Table& table) const {
  std::uint32_t widest = 1;
  for (const clq::Column& c : table.columns())
    widest = std::max(widest, c.type().width);
  const std::uint64_t most_bytes = tablet_bytes_ > 0
                                       ? std::min(tablet_bytes_, engine_.info().max_alloc_bytes)
                                       : engine_.info().max_alloc_bytes;
  RowCount rows = most_bytes / widest;
  if (tablet_rows_ > 0) rows = std::min(rows, tablet_rows_);
  // Whole 32-row words keep selection bitmaps of different tablets apart.
  if (rows >= 64) rows -= rows % 32;
  return std::max<RowCount>(rows, 1);
}

std::vector<Tablet> DeviceTableCache::Tablets(const Table& table) const {
  const RowCount per_tablet = TabletRows(table);
  std::vector<Tablet> tablets;
  for (RowCount begin = 0; begin < table.rows(); begin += per_tablet)
    tablets.push_back({begin, std::min(per_tablet, table.rows() - begin)});
  if (tablets.empty()) tablets.push_back({0, 0});
  return tablets;
}

void DeviceTableCache::MakeRoom(std::uint64_t bytes, const std::string& what) {
  // Drop entries of tables that no longer exist first.
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.table.expired()) {
      resident_bytes_ -= it->second.bytes;
      it->second.buffer.Abandon();
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  while (resident_bytes_ + bytes > budget_bytes_ && !entries_.empty()) {
    auto oldest = std::min_element(
        entries_.begin(), entries_.end(),
        [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
    resident_bytes_ -= oldest->second.bytes;
    // Not back to the pool: a caller may hold it bound to a kernel whose
    // other arguments are being uploaded now (DeviceProgram::SlotArgs,
    // GatherColumns), and the upload that made this room would reuse it.
    oldest->second.buffer.Abandon();
    entries_.erase(oldest);
  }
  if (resident_bytes_ + bytes > budget_bytes_) {
    throw DeviceLimitError(what + " needs " + std::to_string(bytes) +
                           " bytes, more than the device-memory budget for tables (" +
                           std::to_string(budget_bytes_) + " bytes)");
  }
}

cl::Buffer DeviceTableCache::Column(const TablePtr& table, std::size_t column, std::size_t tablet) {
  const clq::Column& c = table->column(column);
  return Resident(table, Key{table->id(), column, tablet}, c.bytes(), c.type().width,
                  c.shared_data(), c.name());
}

cl::Buffer DeviceTableCache::Nulls(const TablePtr& table, std::size_t column, std::size_t tablet) {
  const clq::Column& c = table->column(column);
  CLQ_CHECK(c.nullable(), "column " + c.name() + " has no NULL map");
  return Resident(table, Key{table->id(), column, tablet, true},
                  reinterpret_cast<const std::byte*>(c.null_map()), 1, c.shared_nulls(),
                  c.name() + " (NULL map)");
}

cl::Buffer DeviceTableCache::Resident(const TablePtr& table, const Key& key,
                                      const std::byte* column_host, std::uint32_t width,
                                      const std::shared_ptr<const ColumnData>& owner,
                                      const std::string& name) {
  ++clock_;
  if (auto it = entries_.find(key); it != entries_.end()) {
    it->second.last_use = clock_;
    return it->second.get();
  }
  const std::vector<Tablet> tablets = Tablets(*table);
  CLQ_CHECK(key.tablet < tablets.size(), "tablet index out of range");
  const std::uint64_t bytes = tablets[key.tablet].rows * width;
  const std::byte* host = column_host + tablets[key.tablet].begin * width;
  Entry entry;
  entry.last_use = clock_;
  entry.table = table;
  if (residency_ == TableResidency::kHostView && bytes > 0) {
    entry.host_view = engine_.HostView(host, bytes, owner);  // entry.bytes stays 0
  } else {
    const std::string what =
        "column " + name + " of " + table->name() + " (tablet " + std::to_string(key.tablet) + ")";
    MakeRoom(bytes, what);
    entry.buffer = engine_.pool().Acquire(bytes, what);
    entry.bytes = entry.buffer.capacity();
    const std::string stage = "upload " + table->name() + "." + name;
    if (owner->pinned_for() == engine_.context()()) {
      engine_.Upload(entry.buffer.get(), 0, bytes, host, stage);  // one DMA
    } else {
      engine_.UploadStaged(entry.buffer.get(), 0, bytes, host, stage);
    }
  }
  cl::Buffer buffer = entry.get();
  resident_bytes_ += entry.bytes;
  entries_.emplace(key, std::move(entry));
  return buffer;
}

bool DeviceTableCache::Holds(const Table& table, std::size_t column) const {
  if (residency_ == TableResidency::kHostView) return true;
  const std::size_t tablets = Tablets(table).size();
  const bool nullable = table.column(column).nullable();
  for (std::size_t t = 0; t < tablets; ++t) {
    if (!entries_.contains(Key{table.id(), column, t})) return false;
    if (nullable && !entries_.contains(Key{table.id(), column, t, true})) return false;
  }
  return true;
}

void DeviceTableCache::Clear() {
  for (auto& [key, entry] : entries_)
    entry.buffer.Abandon();
  entries_.clear();
  resident_bytes_ = 0;
}

}  // namespace clq
