// Host-side columnar tables.
//
// A Column is a name, a type and a contiguous array of fixed-width values
// (ColumnData), shared by shared_ptr so that tables holding the same rows
// (tenktup1 and tenktup2) or a prefix of them (bprime) do not copy them. A
// Table is a name, columns of equal length and an id unique within the
// process, which device caches use as identity (two tables sharing data are
// still uploaded separately, so cold timings stay honest).
//
// A column may hold NULLs: then it also has a NULL map, one byte per row
// (1 = NULL), another ColumnData of type CHAR(1), and the value bytes of a
// NULL row are zero. A byte per row rather than Arrow's bit per row: it is
// the layout every device operator and the expression machine already use
// for NULLs that expressions make (division by zero, NaN), so a base column
// and an intermediate are read alike; Arrow's bitmaps are converted at the
// edge (arrow/). A column whose NULL map would hold no NULL has none.
//
// Column names and table names compare case-insensitively (SQL identifiers).
// Tables are immutable once built; build them with TableBuilder.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "common/types.hpp"
#include "storage/text_codes.hpp"

namespace clq {

// Memory for column data. The default is 64-byte-aligned heap memory; a GPU
// engine may install pinned memory (runtime/pinned_host_blocks.hpp), from
// which an upload is one DMA instead of a copy through staging buffers.
inline constexpr std::size_t kHostBlockAlignment = 64;
struct HostBlock {
  std::byte* data = nullptr;
  std::shared_ptr<void> owner;  // frees the block with the last holder
  // The OpenCL context (a cl_context) whose driver pinned the block, or null:
  // memory pinned by one context is ordinary memory to the others.
  const void* pinned_for = nullptr;
};
// Returns a block of at least `bytes` (kHostBlockAlignment-aligned) for a
// column of `type`, or nullopt to use the default heap memory.
using HostBlockAllocator =
    std::function<std::optional<HostBlock>(ColumnType type, std::size_t bytes)>;
// Installs `allocator` for column data created from now on (an empty one
// restores the default); returns the one it replaces. Not thread-safe with
// concurrent ColumnData construction.
HostBlockAllocator SetHostBlockAllocator(HostBlockAllocator allocator);
// Installs an allocator for its own lifetime, then restores the previous one
// (blocks already handed out live on with their columns).
class ScopedHostBlockAllocator {
 public:
  explicit ScopedHostBlockAllocator(HostBlockAllocator allocator)
      : previous_(SetHostBlockAllocator(std::move(allocator))) {}
  ~ScopedHostBlockAllocator() { SetHostBlockAllocator(std::move(previous_)); }
  ScopedHostBlockAllocator(const ScopedHostBlockAllocator&) = delete;
  ScopedHostBlockAllocator& operator=(const ScopedHostBlockAllocator&) = delete;

 private:
  HostBlockAllocator previous_;
};

// Fixed-width values, 64-byte aligned so that any value type can be read in
// place. Its bytes count as held host memory (common/host_memory.hpp) while
// it lives.
class ColumnData {
 public:
  ColumnData(ColumnType type, RowCount rows);
  // Borrows memory another library or step filled (Arrow's buffers, a
  // query's result columns): `data`, kHostBlockAlignment-aligned and at
  // least rows * width bytes, is read in place and kept alive by `owner`;
  // nothing writes it (tables are immutable). `pinned_for`: the context
  // whose driver pinned that memory (HostBlock::pinned_for), if one did.
  ColumnData(ColumnType type, RowCount rows, const std::byte* data, std::shared_ptr<void> owner,
             const void* pinned_for = nullptr);
  // Values made on first use, for a generated table whose columns a query
  // may never read: the first call of data(), pinned_for() or
  // IntegerRange() checks `what` ("column unique1 of tenktup1") against
  // `host_memory`, allocates, and runs `fill` on the new bytes (it may call
  // SetIntegerRange). Thread-safe; a fill that throws is tried again by
  // the next reader.
  // `heap`: the values go in the default heap memory even where an
  // allocator is installed (a copy that lives for one query, whose pinning
  // would cost more than the staged upload it saves).
  using Fill = std::function<void(ColumnData& column, std::byte* data)>;
  ColumnData(ColumnType type, RowCount rows, Fill fill, std::string what, std::uint64_t host_memory,
             bool heap = false);
  ~ColumnData();
  ColumnData(const ColumnData&) = delete;
  ColumnData& operator=(const ColumnData&) = delete;
  ColumnType type() const { return type_; }
  RowCount rows() const { return rows_; }
  std::size_t byte_size() const { return static_cast<std::size_t>(rows_) * type_.width; }
  std::byte* data() {
    Materialize();
    return data_;
  }
  const std::byte* data() const {
    Materialize();
    return data_;
  }
  // Whether the values exist yet (false only for a lazy column not read).
  bool materialized() const { return ready_.load(std::memory_order_acquire); }
  // The context that pinned the data (HostBlock::pinned_for), or null.
  const void* pinned_for() const {
    Materialize();
    return pinned_for_;
  }
  // The smallest and largest value of an INT32 or INT64 column (nullopt for
  // other types), computed once on first use: call it only after the data
  // is complete. Thread-safe.
  std::optional<IntRange> IntegerRange() const;
  // Records the bounds a producer computed while writing the values (the
  // generator), so that IntegerRange() need not scan. REQUIRES: an integer
  // column, `range` the exact minimum and maximum of its values, and no call
  // of IntegerRange() yet (a range already known is kept).
  void SetIntegerRange(IntRange range);

  // How many distinct values an INT32 or INT64 column holds, counted once on
  // first use with a bitmap over the values' range; nullopt, without a scan,
  // where that range is more than 8 values a row (so that the count costs at
  // most a pass and a bitmap of a byte a row). NULL rows count by their
  // stored value. For the planner's estimates (a foreign key's value range
  // can be several times its distinct values: TPC-H's order keys are 1/4 of
  // their range) and ValuesUnique. Thread-safe.
  std::optional<RowCount> DistinctValues() const;

  // Whether no two values of an INT32 or INT64 column are equal: every row
  // a distinct value by DistinctValues (false where it counts none; no
  // scan but the range's where the range has fewer values than rows). NULL
  // rows count by their stored value; callers that care check the NULL map.
  bool ValuesUnique() const;

  // CHAR data: its order codes (storage/text_codes.hpp), an INT32 column
  // (INT64 past 2^31 - 1 rows) made on first read, the same object for every
  // call. The codes data reads this data when it is filled: whoever holds
  // it holds this data too (a Table holds both).
  std::shared_ptr<const ColumnData> OrderCodes() const;
  // CHAR data whose rows are another's in another order (a join's partition
  // copy): `codes`, the other's codes `source_codes` in this order, become
  // OrderCodes() with the other's dictionary, so that codes read from either
  // decode alike. REQUIRES: no OrderCodes() call yet.
  void AdoptOrderCodes(std::shared_ptr<ColumnData> codes, const ColumnData& source_codes);
  // The same with `codes` (INT32 or INT64, one per row, NULL rows any code)
  // numbering this data's strings in `dictionary`: a derived table's column
  // of strings a query looked up from codes.
  void AdoptOrderCodes(std::shared_ptr<ColumnData> codes,
                       std::shared_ptr<const TextDictionary> dictionary);
  // Order codes: the values by code (fills the codes first).
  std::shared_ptr<const TextDictionary> Dictionary() const;

 private:
  void Allocate();
  void Materialize() const {
    if (!ready_.load(std::memory_order_acquire)) MaterializeOnce();
  }
  void MaterializeOnce() const;

  ColumnType type_;
  RowCount rows_;
  // A lazy column's fill, what it is, and its budget (ready_ false until filled).
  Fill fill_;
  std::string what_;
  std::uint64_t host_memory_ = 0;
  bool heap_ = false;
  mutable std::atomic<bool> ready_{true};
  mutable std::once_flag fill_once_;
  std::byte* data_ = nullptr;
  std::shared_ptr<void> owner_;
  std::uint64_t held_bytes_ = 0;
  const void* pinned_for_ = nullptr;
  mutable std::once_flag range_once_;
  mutable std::optional<IntRange> range_;
  mutable std::once_flag distinct_once_;
  mutable std::optional<RowCount> distinct_;
  mutable std::once_flag codes_once_;
  mutable std::shared_ptr<const ColumnData> codes_;   // CHAR data: its order codes
  std::shared_ptr<const TextDictionary> dictionary_;  // order codes: their dictionary
};

class Column {
 public:
  // `nulls`: the NULL map over the same rows of `data` (CHAR(1), 1 = NULL),
  // or null when no value is NULL.
  Column(std::string name, std::shared_ptr<const ColumnData> data, RowCount offset, RowCount rows,
         std::shared_ptr<const ColumnData> nulls = nullptr);

  const std::string& name() const { return name_; }
  ColumnType type() const { return data_->type(); }
  RowCount rows() const { return rows_; }
  // The first byte of this column's first row.
  const std::byte* bytes() const { return data_->data() + offset_ * data_->type().width; }
  std::size_t byte_size() const { return static_cast<std::size_t>(rows_) * type().width; }
  const std::shared_ptr<const ColumnData>& shared_data() const { return data_; }
  RowCount offset() const { return offset_; }
  // Whether the column has a NULL map (then at least one value was NULL
  // when it was built; a slice may hold none).
  bool nullable() const { return nulls_ != nullptr; }
  const std::shared_ptr<const ColumnData>& shared_nulls() const { return nulls_; }
  // The NULL map from this column's first row (1 = NULL), or null.
  const std::uint8_t* null_map() const {
    return nulls_ ? reinterpret_cast<const std::uint8_t*>(nulls_->data()) + offset_ : nullptr;
  }
  bool IsNull(RowCount row) const { return nulls_ != nullptr && null_map()[row] != 0; }

  // Typed views; throw InternalError on a type mismatch.
  std::span<const std::int32_t> int32s() const;
  std::span<const std::int64_t> int64s() const;
  std::span<const double> doubles() const;
  // CHAR(n) value without its NUL padding.
  std::string_view StringAt(RowCount row) const;
  // Any numeric value widened to int64 / double (INT32, INT64, DOUBLE).
  std::int64_t IntegerAt(RowCount row) const;
  double RealAt(RowCount row) const;

 private:
  std::string name_;
  std::shared_ptr<const ColumnData> data_;
  RowCount offset_;
  RowCount rows_;
  std::shared_ptr<const ColumnData> nulls_;
};

struct ColumnSpec {
  std::string name;
  ColumnType type;
  bool nullable = false;  // may hold NULL (a TableBuilder then keeps a NULL map)
};
using Schema = std::vector<ColumnSpec>;

// Bytes of one row of `schema`, and of `rows` rows (saturating: a size past
// 64 bits is kSaturatedBytes, common/byte_size.hpp).
std::uint64_t RowWidth(const Schema& schema);
std::uint64_t TableBytes(const Schema& schema, RowCount rows);

class Table {
 public:
  Table(std::string name, std::vector<Column> columns);

  const std::string& name() const { return name_; }
  std::uint64_t id() const { return id_; }
  RowCount rows() const { return rows_; }
  const std::vector<Column>& columns() const { return columns_; }
  // Columns are addressed by slot: columns() first, then the order codes of
  // each CHAR column in turn (storage/text_codes.hpp), which only the
  // planner reads; a statement's names bind to columns() alone.
  const Column& column(std::size_t slot) const {
    return slot < columns_.size() ? columns_[slot] : code_columns_.at(slot - columns_.size());
  }
  std::size_t column_slots() const { return columns_.size() + code_columns_.size(); }
  // The slot of the order codes of CHAR column `index`.
  std::size_t OrderCodesSlot(std::size_t index) const;
  Schema schema() const;

  // Index of the column with this name (case-insensitive), if any.
  std::optional<std::size_t> FindColumn(std::string_view name) const;

  // A table with the same columns restricted to rows [begin, begin + count),
  // sharing the data; it gets a new id.
  std::shared_ptr<const Table> Slice(std::string name, RowCount begin, RowCount count) const;
  // The same data under another name, with a new id.
  std::shared_ptr<const Table> Renamed(std::string name) const;

 private:
  std::string name_;
  std::uint64_t id_;
  RowCount rows_ = 0;
  std::vector<Column> columns_;
  std::vector<Column> code_columns_;  // of each CHAR column of columns_, in order
};

using TablePtr = std::shared_ptr<const Table>;

// Builds a table column by column: allocate, fill through the raw pointers, finish.
class TableBuilder {
 public:
  // Allocates every column. Throws InvalidInputError for more than
  // kMaxTableRows rows, and ResourceLimitError, before allocating, when
  // the table's bytes and what tables hold already pass `host_memory`.
  TableBuilder(std::string name, const Schema& schema, RowCount rows,
               std::uint64_t host_memory = kUnlimitedHostMemory);
  std::byte* column_data(std::size_t index) { return data_.at(index)->data(); }
  template <typename T>
  T* column_values(std::size_t index) {
    return reinterpret_cast<T*>(data_.at(index)->data());
  }
  // Writes a CHAR value, NUL-padded (truncated values are an InternalError).
  void SetString(std::size_t column, RowCount row, std::string_view value);
  // Marks a value of a nullable column NULL and zeroes its bytes. The NULL
  // map starts all zero (no NULL); a column left without NULLs loses its map
  // at Finish().
  void SetNull(std::size_t column, RowCount row);
  // The NULL map of a nullable column (1 = NULL), to fill in bulk; writing
  // 1 there obliges the caller to zero the value's bytes.
  std::uint8_t* null_map(std::size_t index);
  // ColumnData::SetIntegerRange of a column, for a builder that tracked the
  // bounds of the values it wrote.
  void SetIntegerRange(std::size_t column, IntRange range) {
    data_.at(column)->SetIntegerRange(range);
  }
  TablePtr Finish();

 private:
  std::string name_;
  Schema schema_;
  RowCount rows_;
  std::vector<std::shared_ptr<ColumnData>> data_;
  std::vector<std::shared_ptr<ColumnData>> nulls_;  // null for NOT NULL columns
};

// Case-insensitive equality of SQL identifiers (ASCII).
bool IdentifierEquals(std::string_view a, std::string_view b);
std::string LowercaseIdentifier(std::string_view name);

}  // namespace clq
