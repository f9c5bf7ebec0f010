#include "storage/table.hpp"

#include "common/byte_size.hpp"
#include "common/host_memory.hpp"
#include "common/parallel_ranges.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <type_traits>

namespace clq {
namespace {

std::atomic<std::uint64_t> next_table_id{1};

constexpr std::size_t kAlignment = kHostBlockAlignment;

HostBlockAllocator& InstalledAllocator() {
  static HostBlockAllocator allocator;
  return allocator;
}

}  // namespace

HostBlockAllocator SetHostBlockAllocator(HostBlockAllocator allocator) {
  HostBlockAllocator previous = std::move(InstalledAllocator());
  InstalledAllocator() = std::move(allocator);
  return previous;
}

ColumnData::ColumnData(ColumnType type, RowCount rows) : type_(type), rows_(rows) {
  Allocate();
}

ColumnData::ColumnData(ColumnType type, RowCount rows, Fill fill, std::string what,
                       std::uint64_t host_memory, bool heap)
    : type_(type),
      rows_(rows),
      fill_(std::move(fill)),
      what_(std::move(what)),
      host_memory_(host_memory),
      heap_(heap),
      ready_(false) {}

void ColumnData::MaterializeOnce() const {
  std::call_once(fill_once_, [this] {
    auto* self = const_cast<ColumnData*>(this);  // the values are made once, before any read
    CheckHostMemory(host_memory_,
                    what_ + " (" + std::to_string(rows_) + " rows of " +
                        std::to_string(type_.width) + " bytes)",
                    SaturatingMultiply(rows_, type_.width));
    self->Allocate();
    fill_(*self, data_);
    ready_.store(true, std::memory_order_release);
  });
}

void ColumnData::Allocate() {
  // At least one cache line so data() is never null, even for empty columns.
  std::size_t bytes = std::max<std::size_t>(byte_size(), kAlignment);
  bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (const HostBlockAllocator& allocator = InstalledAllocator(); allocator && !heap_) {
    if (std::optional<HostBlock> block = allocator(type_, bytes)) {
      data_ = block->data;
      owner_ = std::move(block->owner);
      pinned_for_ = block->pinned_for;
      held_bytes_ = bytes;
      AddHeldHostMemory(held_bytes_);
      return;
    }
  }
  void* p = std::aligned_alloc(kAlignment, bytes);
  if (p == nullptr) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(p);
  owner_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  held_bytes_ = bytes;
  AddHeldHostMemory(held_bytes_);
}

ColumnData::~ColumnData() {
  ReleaseHeldHostMemory(held_bytes_);
}

ColumnData::ColumnData(ColumnType type, RowCount rows, const std::byte* data,
                       std::shared_ptr<void> owner, const void* pinned_for)
    : type_(type),
      rows_(rows),
      data_(const_cast<std::byte*>(data)),
      owner_(std::move(owner)),
      pinned_for_(pinned_for) {
  CLQ_CHECK(data != nullptr && reinterpret_cast<std::uintptr_t>(data) % kHostBlockAlignment == 0,
            "borrowed column data must be aligned to kHostBlockAlignment");
}

std::optional<IntRange> ColumnData::IntegerRange() const {
  Materialize();  // first: a fill may set the range, under the same once_flag
  std::call_once(range_once_, [this] {
    if (!type_.is_integer()) return;
    // An empty column gets an empty-looking range that still bounds nothing.
    IntRange range{0, 0};
    // In parts on several threads: a query's first use of a column waits for
    // it (on one thread it took several times the column's upload to a GPU).
    const auto scan = [&](const auto* values) {
      if (rows_ == 0) return;
      using Value = std::remove_cv_t<std::remove_pointer_t<decltype(values)>>;
      std::mutex merge;
      Value lo = values[0], hi = values[0];
      ParallelRanges(rows_, RowCount{1} << 22, 64, [&](std::size_t begin, std::size_t end) {
        Value part_lo = values[begin], part_hi = values[begin];
        for (std::size_t i = begin + 1; i < end; ++i) {
          part_lo = std::min(part_lo, values[i]);
          part_hi = std::max(part_hi, values[i]);
        }
        const std::lock_guard<std::mutex> lock(merge);
        lo = std::min(lo, part_lo);
        hi = std::max(hi, part_hi);
      });
      range = {static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)};
    };
    if (type_.type == DataType::kInt32) {
      scan(reinterpret_cast<const std::int32_t*>(data()));
    } else {
      scan(reinterpret_cast<const std::int64_t*>(data()));
    }
    range_ = range;
  });
  return range_;
}

void ColumnData::SetIntegerRange(IntRange range) {
  CLQ_CHECK(type_.is_integer(), "an integer range for a " + type_.ToString() + " column");
  std::call_once(range_once_, [&] { range_ = range; });
}

std::optional<RowCount> ColumnData::DistinctValues() const {
  const std::optional<IntRange> range = IntegerRange();
  std::call_once(distinct_once_, [this, &range] {
    if (!range) return;
    if (rows_ == 0) {
      distinct_ = 0;
      return;
    }
    const auto span =
        static_cast<std::uint64_t>(range->max) - static_cast<std::uint64_t>(range->min);
    if (span / 8 > rows_) return;
    std::vector<std::uint64_t> seen(span / 64 + 1, 0);
    const auto scan = [&](const auto* values) -> std::optional<RowCount> {
      RowCount distinct = 0;
      for (RowCount i = 0; i < rows_; ++i) {
        const std::uint64_t at =
            static_cast<std::uint64_t>(values[i]) - static_cast<std::uint64_t>(range->min);
        if (at > span) return std::nullopt;  // outside a range a producer recorded
        const std::uint64_t bit = std::uint64_t{1} << (at % 64);
        distinct += (seen[at / 64] & bit) == 0 ? 1 : 0;
        seen[at / 64] |= bit;
      }
      return distinct;
    };
    distinct_ = type_.type == DataType::kInt32
                    ? scan(reinterpret_cast<const std::int32_t*>(data()))
                    : scan(reinterpret_cast<const std::int64_t*>(data()));
  });
  return distinct_;
}

bool ColumnData::ValuesUnique() const {
  if (rows_ == 0) return false;
  // Fewer values in the range than rows: some repeat, without a scan (a
  // GROUP BY key of a derived table, new at every query, is mostly such).
  const std::optional<IntRange> range = IntegerRange();
  if (range &&
      static_cast<std::uint64_t>(range->max) - static_cast<std::uint64_t>(range->min) < rows_ - 1)
    return false;
  return DistinctValues() == rows_;
}

std::shared_ptr<const ColumnData> ColumnData::OrderCodes() const {
  CLQ_CHECK(type_.type == DataType::kChar, "order codes of a " + type_.ToString() + " column");
  std::call_once(codes_once_, [this] {
    const bool wide = rows_ > static_cast<RowCount>(std::numeric_limits<std::int32_t>::max());
    auto dictionary = std::make_shared<TextDictionary>();
    // Counted against no budget here: the planner checks the query's
    // budget before the first read (plan/text_order_codes.hpp).
    auto codes = std::make_shared<ColumnData>(
        wide ? ColumnType::Int64() : ColumnType::Int32(), rows_,
        [this, dictionary, wide](ColumnData& column, std::byte* data) {
          *dictionary = ComputeOrderCodes(this->data(), rows_, type_.width, data, wide);
          // The dictionary lives as long as the codes: held as theirs.
          const std::uint64_t bytes = dictionary->Bytes();
          AddHeldHostMemory(bytes);
          column.held_bytes_ += bytes;
          column.SetIntegerRange(
              {0, std::max<std::int64_t>(
                      0, static_cast<std::int64_t>(dictionary->values.size()) - 1)});
        },
        "order codes", kUnlimitedHostMemory, true);
    codes->dictionary_ = std::move(dictionary);
    codes_ = std::move(codes);
  });
  return codes_;
}

void ColumnData::AdoptOrderCodes(std::shared_ptr<ColumnData> codes,
                                 const ColumnData& source_codes) {
  CLQ_CHECK(codes != nullptr && codes->type() == source_codes.type(),
            "adopted order codes of another type");
  AdoptOrderCodes(std::move(codes), source_codes.dictionary_);
}

void ColumnData::AdoptOrderCodes(std::shared_ptr<ColumnData> codes,
                                 std::shared_ptr<const TextDictionary> dictionary) {
  CLQ_CHECK(type_.type == DataType::kChar && codes != nullptr && dictionary != nullptr &&
                codes->rows() == rows_ && codes->type().is_integer(),
            "adopted order codes that do not match their data");
  codes->dictionary_ = std::move(dictionary);
  bool adopted = false;
  std::call_once(codes_once_, [&] {
    codes_ = std::move(codes);
    adopted = true;
  });
  CLQ_CHECK(adopted, "order codes adopted after they were made");
}

std::shared_ptr<const TextDictionary> ColumnData::Dictionary() const {
  CLQ_CHECK(dictionary_ != nullptr, "a dictionary of data that are no order codes");
  Materialize();
  return dictionary_;
}

Column::Column(std::string name, std::shared_ptr<const ColumnData> data, RowCount offset,
               RowCount rows, std::shared_ptr<const ColumnData> nulls)
    : name_(std::move(name)),
      data_(std::move(data)),
      offset_(offset),
      rows_(rows),
      nulls_(std::move(nulls)) {
  CLQ_CHECK(data_ != nullptr, "column without data");
  CLQ_CHECK(offset_ + rows_ <= data_->rows(), "column slice outside its data");
  CLQ_CHECK(nulls_ == nullptr ||
                (nulls_->type() == ColumnType::Char(1) && nulls_->rows() == data_->rows()),
            "NULL map of column " + name_ + " does not match its data");
}

std::span<const std::int32_t> Column::int32s() const {
  CLQ_CHECK(type().type == DataType::kInt32, name_ + " is not INT32");
  return {reinterpret_cast<const std::int32_t*>(bytes()), static_cast<std::size_t>(rows_)};
}

std::span<const std::int64_t> Column::int64s() const {
  CLQ_CHECK(type().type == DataType::kInt64, name_ + " is not INT64");
  return {reinterpret_cast<const std::int64_t*>(bytes()), static_cast<std::size_t>(rows_)};
}

std::span<const double> Column::doubles() const {
  CLQ_CHECK(type().type == DataType::kDouble, name_ + " is not DOUBLE");
  return {reinterpret_cast<const double*>(bytes()), static_cast<std::size_t>(rows_)};
}

std::string_view Column::StringAt(RowCount row) const {
  CLQ_CHECK(type().type == DataType::kChar, name_ + " is not CHAR");
  return CharValue(reinterpret_cast<const char*>(bytes()) + row * type().width, type().width);
}

std::int64_t Column::IntegerAt(RowCount row) const {
  switch (type().type) {
    case DataType::kInt32:
      return int32s()[row];
    case DataType::kInt64:
      return int64s()[row];
    case DataType::kDouble:
      return static_cast<std::int64_t>(doubles()[row]);
    case DataType::kChar:
      break;
  }
  throw InternalError(name_ + " is not numeric");
}

double Column::RealAt(RowCount row) const {
  switch (type().type) {
    case DataType::kInt32:
      return int32s()[row];
    case DataType::kInt64:
      return static_cast<double>(int64s()[row]);
    case DataType::kDouble:
      return doubles()[row];
    case DataType::kChar:
      break;
  }
  throw InternalError(name_ + " is not numeric");
}

Table::Table(std::string name, std::vector<Column> columns)
    : name_(std::move(name)), id_(next_table_id++), columns_(std::move(columns)) {
  if (!columns_.empty()) rows_ = columns_.front().rows();
  for (const Column& c : columns_)
    CLQ_CHECK(c.rows() == rows_, "column " + c.name() + " of " + name_ + " has a different length");
  CLQ_CHECK(rows_ <= kMaxTableRows, "table " + name_ + " has too many rows");
  for (const Column& c : columns_)
    if (c.type().type == DataType::kChar)
      code_columns_.emplace_back("codes(" + c.name() + ")", c.shared_data()->OrderCodes(),
                                 c.offset(), c.rows(), c.shared_nulls());
}

std::size_t Table::OrderCodesSlot(std::size_t index) const {
  CLQ_CHECK(columns_.at(index).type().type == DataType::kChar,
            "order codes of column " + columns_[index].name() + ", which is not CHAR");
  std::size_t slot = columns_.size();
  for (std::size_t c = 0; c < index; ++c)
    if (columns_[c].type().type == DataType::kChar) ++slot;
  return slot;
}

Schema Table::schema() const {
  Schema schema;
  for (const Column& c : columns_)
    schema.push_back({c.name(), c.type(), c.nullable()});
  return schema;
}

std::optional<std::size_t> Table::FindColumn(std::string_view name) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (IdentifierEquals(columns_[i].name(), name)) return i;
  return std::nullopt;
}

TablePtr Table::Slice(std::string name, RowCount begin, RowCount count) const {
  CLQ_CHECK(begin + count <= rows_, "slice outside the table");
  std::vector<Column> columns;
  for (const Column& c : columns_)
    columns.emplace_back(c.name(), c.shared_data(), c.offset() + begin, count, c.shared_nulls());
  return std::make_shared<const Table>(std::move(name), std::move(columns));
}

TablePtr Table::Renamed(std::string name) const {
  return Slice(std::move(name), 0, rows_);
}

std::uint64_t RowWidth(const Schema& schema) {
  std::uint64_t width = 0;
  for (const ColumnSpec& spec : schema)
    width = SaturatingAdd(width, spec.type.width + (spec.nullable ? 1 : 0));
  return width;
}

std::uint64_t TableBytes(const Schema& schema, RowCount rows) {
  return SaturatingMultiply(rows, RowWidth(schema));
}

TableBuilder::TableBuilder(std::string name, const Schema& schema, RowCount rows,
                           std::uint64_t host_memory)
    : name_(std::move(name)), schema_(schema), rows_(rows) {
  if (rows > kMaxTableRows)
    throw InvalidInputError("table " + name_ + ": " + std::to_string(rows) +
                            " rows is more than clq supports (" + std::to_string(kMaxTableRows) +
                            ")");
  CheckHostMemory(host_memory,
                  "table " + name_ + " (" + std::to_string(rows) + " rows of " +
                      std::to_string(RowWidth(schema_)) + " bytes)",
                  TableBytes(schema_, rows));
  for (const ColumnSpec& spec : schema_) {
    data_.push_back(std::make_shared<ColumnData>(spec.type, rows));
    std::shared_ptr<ColumnData> nulls;
    if (spec.nullable) {
      nulls = std::make_shared<ColumnData>(ColumnType::Char(1), rows);
      std::memset(nulls->data(), 0, rows);
    }
    nulls_.push_back(std::move(nulls));
  }
}

void TableBuilder::SetNull(std::size_t column, RowCount row) {
  const std::uint32_t width = schema_.at(column).type.width;
  null_map(column)[row] = 1;
  std::memset(data_[column]->data() + row * width, 0, width);
}

std::uint8_t* TableBuilder::null_map(std::size_t index) {
  CLQ_CHECK(nulls_.at(index) != nullptr, "column " + schema_[index].name + " is NOT NULL");
  return reinterpret_cast<std::uint8_t*>(nulls_[index]->data());
}

void TableBuilder::SetString(std::size_t column, RowCount row, std::string_view value) {
  const std::uint32_t width = schema_.at(column).type.width;
  CLQ_CHECK(value.size() <= width, "string longer than its CHAR column");
  std::byte* p = data_[column]->data() + row * width;
  std::memcpy(p, value.data(), value.size());
  std::memset(p + value.size(), 0, width - value.size());
}

TablePtr TableBuilder::Finish() {
  std::vector<Column> columns;
  for (std::size_t i = 0; i < schema_.size(); ++i) {
    std::shared_ptr<ColumnData> nulls = std::move(nulls_[i]);
    if (nulls != nullptr) {
      const auto* map = reinterpret_cast<const std::uint8_t*>(nulls->data());
      if (std::none_of(map, map + rows_, [](std::uint8_t n) { return n != 0; })) nulls.reset();
    }
    columns.emplace_back(schema_[i].name, std::move(data_[i]), 0, rows_, std::move(nulls));
  }
  data_.clear();
  nulls_.clear();
  return std::make_shared<const Table>(std::move(name_), std::move(columns));
}

bool IdentifierEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string LowercaseIdentifier(std::string_view name) {
  std::string result(name);
  for (char& c : result)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return result;
}

}  // namespace clq
