// Tables resident on one device, as tablets.
//
// A table goes to the device as tablets: row ranges of equal length (the last
// may be shorter) such that each column of a tablet fits one buffer within
// CL_DEVICE_MAX_MEM_ALLOC_SIZE. Each (column, tablet) is a separate buffer,
// uploaded on first use and kept resident for later queries of the same
// process, so only the columns a query reads travel. An upload is one DMA
// from a column in memory pinned by this engine's context
// (runtime/pinned_host_blocks.hpp), else a copy through the engine's pinned
// staging. Entries are keyed by Table::id(): two tables that share
// host data still get their own device copies.
//
// A table of several tablets streams: a tablet's upload goes on the
// engine's transfer queue (Engine::UploadAhead) and travels while the
// kernels of the tablet before run; it first waits until the kernels of
// the tablets before that have read theirs, so about two tablets of each
// column are in use at once (double buffering). An evicted buffer no caller
// holds goes back to the engine's pool once the commands before its
// eviction are done, so a stream reuses its buffers instead of allocating
// and freeing device memory for every tablet.
//
// CLQ_TABLET_ROWS caps the rows per tablet, so tests can force tiny tablets
// and exercise every operator across tablet boundaries.
//
// Memory: resident columns are limited to a budget (half the device's global
// memory by default); least recently used columns are evicted to make room.
// A single column tablet that does not fit throws DeviceLimitError.
//
// On CPU devices (TableResidency::kHostView, the default there unless
// CLQ_ZERO_COPY=0) a column is not copied: its buffer is a view of the host
// column (CL_MEM_USE_HOST_PTR), which the device's memory already is. Views
// cost no budget and keep the host column alive until OpenCL destroys them.
// Copying had made a CPU device whose tables outgrow the budget evict and
// re-upload every column on every run, into freshly allocated buffers whose
// pages the OS zeroes, however few rows the query returns.
//
// Not thread-safe; owned by (and used with) one Engine.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>

#include "runtime/buffer_pool.hpp"
#include "storage/table.hpp"

namespace clq {

class Engine;

struct Tablet {
  RowCount begin = 0;
  RowCount rows = 0;
};

enum class TableResidency {
  kCopy,      // uploaded into device buffers
  kHostView,  // buffers over the host columns, nothing copied (CPU devices)
};

// kHostView for CPU devices (their device memory is host memory), else kCopy.
TableResidency DefaultTableResidency(const Engine& engine);

class DeviceTableCache {
 public:
  // `tablet_rows` caps the rows of a tablet (0: as many as the device's
  // largest allocation holds), `tablet_bytes` the bytes of a tablet's
  // numeric columns (0: the device's largest allocation; else a wider
  // column's tablet takes at most twice that).
  DeviceTableCache(Engine& engine, std::uint64_t budget_bytes, TableResidency residency,
                   RowCount tablet_rows = 0, std::uint64_t tablet_bytes = 0);

  // Rows per tablet of `table` on this device.
  RowCount TabletRows(const Table& table) const;
  // Changes the cap on rows per tablet (tests force small tablets); drops
  // every resident column, whose tablets would no longer match.
  void SetTabletRowLimit(RowCount tablet_rows);
  // The tablets of `table`; at least one, even for an empty table.
  std::vector<Tablet> Tablets(const Table& table) const;

  // The device buffer holding `column` of tablet `tablet` (uploads it on first
  // use). The buffer stays valid while the caller holds the cl::Buffer, even if
  // the cache evicts its entry.
  cl::Buffer Column(const TablePtr& table, std::size_t column, std::size_t tablet);
  // The same for the column's NULL map (one byte per row); REQUIRES: the
  // column is nullable.
  cl::Buffer Nulls(const TablePtr& table, std::size_t column, std::size_t tablet);

  // Whether reading every tablet of `column` needs no upload: each is
  // resident, or the device reads host memory in place (kHostView).
  bool Holds(const Table& table, std::size_t column) const;

  // Drops every resident column.
  void Clear();
  // Lets go of the buffers of evicted tablets kept for reuse (OpenCL frees
  // them once their commands are done).
  void AbandonRetired();
  // When the device is short of memory for other buffers: frees the
  // retired buffers once their commands are done, and with `everything`
  // lets go of every resident column too (uploaded again when next read; a
  // holder keeps its buffer).
  void ReleaseForRoom(bool everything);
  std::uint64_t resident_bytes() const { return resident_bytes_; }
  std::uint64_t budget_bytes() const { return budget_bytes_; }
  TableResidency residency() const { return residency_; }

 private:
  struct Key {
    std::uint64_t table_id;
    std::size_t column;
    std::size_t tablet;
    bool nulls = false;  // the column's NULL map rather than its values
    auto operator<=>(const Key&) const = default;
  };
  struct Entry {
    DeviceBuffer buffer;   // kCopy
    cl::Buffer host_view;  // kHostView (then `bytes` is 0: no budget)
    std::uint64_t bytes = 0;
    std::uint64_t last_use = 0;
    std::weak_ptr<const Table> table;
    cl::Buffer get() const { return host_view() != nullptr ? host_view : buffer.get(); }
  };
  void MakeRoom(std::uint64_t bytes, const std::string& what);
  // An evicted entry's buffer: back to the pool once the commands enqueued
  // before now are done, where nothing but the entry holds it (no later
  // command can use it then); else abandoned to its holders.
  void Retire(DeviceBuffer buffer);
  // The buffer of a streamed tablet's upload (on the transfer queue): a
  // retired one of its size whose commands are done, else a new one.
  DeviceBuffer StreamBuffer(std::uint64_t bytes, const std::string& what);
  // Lets go of every resident column (a holder keeps its buffer).
  void AbandonResident();
  static constexpr std::size_t kMostRetired = 16;
  std::uint64_t RetiredBytes() const;

  Engine& engine_;
  std::uint64_t budget_bytes_;
  TableResidency residency_;
  RowCount tablet_rows_ = 0;
  std::uint64_t tablet_bytes_ = 0;
  std::uint64_t resident_bytes_ = 0;
  std::uint64_t clock_ = 0;
  // Column() and Nulls(): the buffer of `key`, made from `host` (`width`
  // bytes per row, kept alive by `owner`, pinned for `pinned_for`).
  cl::Buffer Resident(const TablePtr& table, const Key& key, const std::byte* host,
                      std::uint32_t width, const std::shared_ptr<const ColumnData>& owner,
                      const std::string& what);
  std::map<Key, Entry> entries_;
  // By column of a table of several tablets (Key::tablet 0): a marker of
  // the compute queue enqueued when its last tablet was uploaded.
  std::map<Key, cl::Event> stream_markers_;
  struct Retired {
    DeviceBuffer buffer;
    cl::Event done;  // a marker enqueued at its eviction
  };
  std::deque<Retired> retired_;  // oldest first (markers of one in-order queue)
};

}  // namespace clq
