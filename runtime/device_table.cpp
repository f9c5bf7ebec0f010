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
  const std::uint64_t max_alloc = engine_.info().max_alloc_bytes;
  RowCount rows = max_alloc / widest;
  if (tablet_bytes_ > 0) {
    // The columns kernels stream are numbers of at most 8 bytes: they take
    // at most tablet_bytes_ a tablet. A wider CHAR column, mostly read on
    // the host at a result's rows, may take up to twice that; sizing every
    // tablet by it would cut a table of 52-byte strings into tablets whose
    // numbers are too small to stream at the transfer bandwidth.
    rows = std::min<RowCount>(tablet_bytes_ / std::min<std::uint32_t>(widest, 8),
                              std::min(max_alloc, 2 * tablet_bytes_) / widest);
  }
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
      Retire(std::move(it->second.buffer));
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
    // Not straight back to the pool: a caller may hold it bound to a kernel
    // whose other arguments are being uploaded now (DeviceProgram::SlotArgs,
    // GatherColumns), and the upload that made this room would reuse it.
    Retire(std::move(oldest->second.buffer));
    entries_.erase(oldest);
  }
  if (resident_bytes_ + bytes > budget_bytes_) {
    throw DeviceLimitError(what + " needs " + std::to_string(bytes) +
                           " bytes, more than the device-memory budget for tables (" +
                           std::to_string(budget_bytes_) + " bytes)");
  }
}

void DeviceTableCache::Retire(DeviceBuffer buffer) {
  if (buffer.empty()) return;
  cl_uint holders = 0;
  try {
    holders = buffer.get().getInfo<CL_MEM_REFERENCE_COUNT>();
  } catch (const cl::Error&) {
    holders = 0;  // unknown: abandoned below
  }
  if (holders != 1) {
    buffer.Abandon();
    return;
  }
  retired_.push_back({std::move(buffer), engine_.Mark()});
  // A stream takes back buffers of its own size; others, beyond a few, go
  // back to the pool once done (then only the engine's queue reuses them).
  while (retired_.size() > kMostRetired || RetiredBytes() > budget_bytes_ / 2) {
    Retired& oldest = retired_.front();
    if (oldest.done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE)
      oldest.buffer.Abandon();
    retired_.pop_front();
  }
}

DeviceBuffer DeviceTableCache::StreamBuffer(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t size = BufferPool::SizeClass(bytes);
  for (auto it = retired_.begin(); it != retired_.end(); ++it) {
    if (it->done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE) break;
    if (it->buffer.capacity() == size) {
      DeviceBuffer buffer = std::move(it->buffer);
      retired_.erase(it);
      return buffer;
    }
  }
  // None fits: room under the cap first, from the oldest retired buffers.
  BufferPool& pool = engine_.pool();
  while (!retired_.empty() && pool.cap_bytes() > 0 && pool.live_bytes() + size > pool.cap_bytes()) {
    engine_.Wait(retired_.front().done);
    retired_.front().buffer.Abandon();
    retired_.pop_front();
  }
  // Not one of the pool's free buffers: commands of the engine's queue may
  // still read those, and the transfer queue would not wait for them.
  return pool.AcquireNew(bytes, what);
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
    const bool pinned = owner->pinned_for() == engine_.context()();
    const bool streamed = tablets.size() > 1;
    if (streamed) {
      // Double buffering: before this tablet's upload evicts a buffer, the
      // kernels of every tablet but the last have read theirs (what was
      // enqueued before the previous tablet of this column came).
      Key column_key = key;
      column_key.tablet = 0;
      cl::Event& marker = stream_markers_[column_key];
      if (marker()) engine_.Wait(marker);
      marker = engine_.Mark();
    }
    MakeRoom(bytes, what);
    entry.buffer = streamed ? StreamBuffer(bytes, what) : engine_.pool().Acquire(bytes, what);
    entry.bytes = entry.buffer.capacity();
    const std::string stage = "upload " + table->name() + "." + name;
    if (streamed) {
      try {
        engine_.UploadAhead(entry.buffer.get(), bytes, host, pinned, owner, stage);
      } catch (...) {
        // A transfer may still write it: not back to the pool.
        entry.buffer.Abandon();
        throw;
      }
    } else if (pinned) {
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
  AbandonResident();
  stream_markers_.clear();
  AbandonRetired();
}

void DeviceTableCache::ReleaseForRoom(bool everything) {
  if (!retired_.empty()) engine_.Wait(retired_.back().done);  // then none is in use
  retired_.clear();                                           // back to the pool, which frees them
  if (everything) AbandonResident();
}

void DeviceTableCache::AbandonResident() {
  for (auto& [key, entry] : entries_)
    entry.buffer.Abandon();
  entries_.clear();
  resident_bytes_ = 0;
}

std::uint64_t DeviceTableCache::RetiredBytes() const {
  std::uint64_t bytes = 0;
  for (const Retired& r : retired_)
    bytes += r.buffer.capacity();
  return bytes;
}

void DeviceTableCache::AbandonRetired() {
  for (Retired& r : retired_)
    r.buffer.Abandon();  // their commands may still run
  retired_.clear();
}

}  // namespace clq
