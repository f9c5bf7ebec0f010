#include "operators/result_builder.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "common/errors.hpp"
#include "common/parallel_ranges.hpp"
#include "operators/pinned_result_download.hpp"
#include "sql/substring.hpp"

namespace clq {
namespace {

// memcpy that accepts empty ranges: an empty vector's data() may be null,
// which memcpy must not be given even for zero bytes.
void CopyBytes(void* target, const void* source, std::size_t bytes) {
  if (bytes != 0) std::memcpy(target, source, bytes);
}

// Sizes `column` (whose type is set) for `rows` values of a vector of `type`.
void SizeColumn(ResultColumn& column, ColumnType type, RowCount rows) {
  switch (column.type) {
    case sql::ValueType::kInteger:
      column.integers.resize(rows);
      break;
    case sql::ValueType::kReal:
      column.reals.resize(rows);
      break;
    case sql::ValueType::kText:
      CLQ_CHECK(type.type == DataType::kChar, "TEXT result from a numeric vector");
      column.text_width = type.width;
      column.text.resize(rows * type.width);
      break;
    case sql::ValueType::kNull:
      column.nulls.assign(rows, 1);
      break;
  }
}

// Whether ConvertRowRange can fill a `column` of its type from `type`.
void CheckConvertible(const ResultColumn& column, ColumnType type) {
  switch (column.type) {
    case sql::ValueType::kInteger:
      if (type.type != DataType::kInt32 && type.type != DataType::kInt64)
        throw InternalError("INTEGER result from a " + type.ToString() + " vector");
      break;
    case sql::ValueType::kReal:
      if (type.type == DataType::kChar) throw InternalError("REAL result from a CHAR vector");
      break;
    case sql::ValueType::kText:
    case sql::ValueType::kNull:
      break;
  }
}

// Converts `rows` raw fixed-width values of `type` into rows [first, first +
// rows) of the sized `column` (CheckConvertible passed: this runs on worker
// threads, which must not throw).
void ConvertRowRange(ResultColumn& column, ColumnType type, const std::byte* data, RowCount first,
                     RowCount rows) noexcept {
  switch (column.type) {
    case sql::ValueType::kInteger:
      if (type.type == DataType::kInt32) {
        const auto* v = reinterpret_cast<const std::int32_t*>(data);
        std::copy(v, v + rows, column.integers.begin() + first);
      } else {
        CopyBytes(column.integers.data() + first, data, rows * sizeof(std::int64_t));
      }
      break;
    case sql::ValueType::kReal:
      if (type.type == DataType::kDouble) {
        CopyBytes(column.reals.data() + first, data, rows * sizeof(double));
      } else if (type.type == DataType::kInt32) {
        const auto* v = reinterpret_cast<const std::int32_t*>(data);
        std::copy(v, v + rows, column.reals.begin() + first);
      } else {
        const auto* v = reinterpret_cast<const std::int64_t*>(data);
        for (RowCount i = 0; i < rows; ++i)
          column.reals[first + i] = static_cast<double>(v[i]);
      }
      break;
    case sql::ValueType::kText:
      CopyBytes(column.text.data() + first * type.width, data, rows * type.width);
      break;
    case sql::ValueType::kNull:
      break;
  }
}

// ConvertRowRange split across threads for large ranges: a 100M-row INT32
// result widened to INTEGER is 800 MB of fresh memory to fault in and fill.
void ConvertRows(ResultColumn& column, ColumnType type, const std::byte* data, RowCount first,
                 RowCount rows) {
  CheckConvertible(column, type);
  ParallelRanges(rows, std::size_t{1} << 20, 64, [&](std::size_t begin, std::size_t end) {
    ConvertRowRange(column, type, data + begin * type.width, first + begin, end - begin);
  });
}

// Fills `column` (whose type is set) from raw fixed-width values.
void FillFromBytes(ResultColumn& column, ColumnType type, const std::byte* data, RowCount rows) {
  SizeColumn(column, type, rows);
  ConvertRows(column, type, data, 0, rows);
}

// Fills `column` (whose type is set) with `vector`'s values: those whose
// device layout is the result's straight into the result (one pass over
// host memory), others (INT32 widened to INTEGER) converted piece by piece.
// Large ranges go through pinned staging.
void DownloadThroughStaging(Engine& engine, ResultColumn& column, const DeviceVector& vector) {
  const sql::ValueType type = column.type;
  const std::uint64_t bytes = vector.byte_size();
  SizeColumn(column, vector.type, vector.size);
  void* direct = nullptr;
  if (type == sql::ValueType::kInteger && vector.type.type == DataType::kInt64) {
    direct = column.integers.data();
  } else if (type == sql::ValueType::kReal && vector.type.type == DataType::kDouble) {
    direct = column.reals.data();
  } else if (type == sql::ValueType::kText) {
    direct = column.text.data();  // SizeColumn checked that the vector is CHAR
  }
  if (direct != nullptr) {
    if (bytes > 0) engine.DownloadStaged(vector.values.get(), 0, bytes, direct, "download result");
  } else if (type != sql::ValueType::kNull) {
    // Converted as the pieces arrive (from pinned staging on GPUs, from the
    // mapped buffer on CPUs): a host staging copy of the whole result would
    // be fresh memory the size of the download, paid for in page faults.
    const std::uint64_t width = vector.type.width;
    engine.DownloadConsumed(
        vector.values.get(), 0, bytes,
        [&](std::uint64_t at, const std::byte* data, std::uint64_t size) {
          CLQ_CHECK(at % width == 0 && size % width == 0, "download piece splits a value");
          ConvertRows(column, vector.type, data, at / width, size / width);
        },
        "download result");
  }
}

}  // namespace

ResultColumn DownloadResultColumn(Engine& engine, const std::string& name, sql::ValueType type,
                                  const DeviceVector& vector) {
  ResultColumn column;
  column.name = name;
  column.type = type;
  // Large numeric results travel in one DMA into pinned blocks where the
  // engine has them (operators/pinned_result_download.hpp).
  if (!DownloadIntoPinnedResult(engine, column, vector))
    DownloadThroughStaging(engine, column, vector);
  if (vector.has_nulls() && type != sql::ValueType::kNull) {
    column.nulls = DownloadNulls(engine, vector);
    if (std::none_of(column.nulls.begin(), column.nulls.end(),
                     [](std::uint8_t n) { return n != 0; }))
      column.nulls.clear();
  }
  return column;
}

ResultColumn HostResultColumn(const std::string& name, sql::ValueType type, const Column& source,
                              RowCount begin, RowCount rows) {
  ResultColumn column;
  column.name = name;
  column.type = type;
  FillFromBytes(column, source.type(), source.bytes() + begin * source.type().width, rows);
  if (const std::uint8_t* nulls = source.null_map()) {
    column.nulls.assign(nulls + begin, nulls + begin + rows);
    if (std::none_of(column.nulls.begin(), column.nulls.end(), [](std::uint8_t n) { return n; }))
      column.nulls.clear();
  }
  return column;
}

ResultColumn HostGatheredResultColumn(const std::string& name, sql::ValueType type,
                                      const Column& source, const std::vector<std::uint32_t>& ids) {
  const std::size_t width = source.type().width;
  std::vector<std::byte> bytes(ids.size() * width);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    CLQ_CHECK(ids[i] < source.rows(), "row id past the column");
    std::memcpy(bytes.data() + i * width, source.bytes() + std::size_t{ids[i]} * width, width);
  }
  ResultColumn column;
  column.name = name;
  column.type = type;
  FillFromBytes(column, source.type(), bytes.data(), ids.size());
  if (const std::uint8_t* nulls = source.null_map()) {
    column.nulls.resize(ids.size());
    bool any = false;
    for (std::size_t i = 0; i < ids.size(); ++i)
      any |= (column.nulls[i] = nulls[ids[i]]) != 0;
    if (!any) column.nulls.clear();
  }
  return column;
}

ResultColumn ValuesResultColumn(const std::string& name, sql::ValueType type,
                                const std::vector<sql::Value>& values) {
  ResultColumn column;
  column.name = name;
  column.type = type;
  bool any_null = false;
  for (const sql::Value& v : values)
    any_null |= v.is_null();
  if (any_null) column.nulls.resize(values.size());
  std::uint32_t width = 1;
  for (const sql::Value& v : values)
    if (v.type == sql::ValueType::kText)
      width = std::max<std::uint32_t>(width, static_cast<std::uint32_t>(v.text.size()));
  if (type == sql::ValueType::kText) {
    column.text_width = width;
    column.text.assign(values.size() * width, '\0');
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const sql::Value& v = values[i];
    if (v.is_null()) column.nulls[i] = 1;
    switch (type) {
      case sql::ValueType::kInteger:
        column.integers.push_back(v.is_null() ? 0 : v.integer);
        break;
      case sql::ValueType::kReal:
        column.reals.push_back(v.is_null()                       ? 0.0
                               : v.type == sql::ValueType::kReal ? v.real
                                                                 : static_cast<double>(v.integer));
        break;
      case sql::ValueType::kText:
        CopyBytes(column.text.data() + i * width, v.text.data(), v.text.size());
        break;
      case sql::ValueType::kNull:
        break;
    }
  }
  if (type == sql::ValueType::kNull) column.nulls.assign(values.size(), 1);
  return column;
}

ResultColumn SubstringResultColumn(ResultColumn column, std::int64_t start,
                                   std::optional<std::int64_t> length) {
  if (column.type == sql::ValueType::kNull) return column;
  CLQ_CHECK(column.type == sql::ValueType::kText, "SUBSTRING of a result column of numbers");
  const RowCount rows = column.rows();
  const std::uint64_t from_width = column.text_width;
  const std::optional<sql::SubstringWindow> window = sql::FixedSubstringWindow(start, length);
  std::uint64_t width = from_width;
  std::uint64_t begin = 0;
  if (window) {
    begin = std::min<std::uint64_t>(from_width, window->begin);
    width -= begin;
    if (window->length) width = std::min(width, *window->length);
  } else if (length && *length < 0) {
    // From the end and back from there: at most |length| bytes.
    width = std::min<std::uint64_t>(width, static_cast<std::uint64_t>(-*length));
  } else {
    // From the end: at most the -start last bytes, and `length` of them.
    width = std::min<std::uint64_t>(width, static_cast<std::uint64_t>(-start));
    if (length) width = std::min<std::uint64_t>(width, static_cast<std::uint64_t>(*length));
  }
  ResultColumn cut;
  cut.name = std::move(column.name);
  cut.type = sql::ValueType::kText;
  cut.text_width = static_cast<std::uint32_t>(std::max<std::uint64_t>(width, 1));
  cut.text.resize(rows * cut.text_width);
  const char* from = column.text.data();
  char* to = cut.text.data();
  const std::uint64_t to_width = cut.text_width;
  ParallelRanges(rows, std::size_t{1} << 16, 64, [&](std::size_t first, std::size_t end) {
    if (window && width > 0) {
      // A value is NUL-padded to its slot and holds no NUL, so the bytes
      // [begin, begin + width) of its slot are its cut, NUL-padded (a NULL's
      // are whatever its slot held: the NULL map marks it).
      for (std::size_t r = first; r < end; ++r)
        std::memcpy(to + r * to_width, from + r * from_width + begin, width);
      return;
    }
    if (window) {  // the cut is empty
      std::memset(to + first * to_width, 0, (end - first) * to_width);
      return;
    }
    for (std::size_t r = first; r < end; ++r) {
      const char* slot = from + r * from_width;
      const void* nul = from_width == 0 ? slot : std::memchr(slot, 0, from_width);
      const std::size_t size = nul == nullptr
                                   ? from_width
                                   : static_cast<std::size_t>(static_cast<const char*>(nul) - slot);
      const std::string_view value = sql::Substring({slot, size}, start, length);
      CLQ_CHECK(value.size() <= to_width, "a SUBSTRING cut wider than its column");
      char* out = to + r * to_width;
      CopyBytes(out, value.data(), value.size());
      std::memset(out + value.size(), 0, to_width - value.size());
    }
  });
  cut.nulls = std::move(column.nulls);
  return cut;
}

}  // namespace clq
