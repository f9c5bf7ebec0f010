#include "arrow/arrow_import.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "common/errors.hpp"

namespace clq {
namespace {

// A C Data interface struct (ArrowSchema, ArrowArray, ArrowArrayStream)
// moved out of the caller's, released when the holder goes.
template <typename T>
struct Owned {
  T s{};
  explicit Owned(T* from) : s(*from) { from->release = nullptr; }
  ~Owned() {
    if (s.release != nullptr) s.release(&s);
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
};
using OwnedSchema = Owned<ArrowSchema>;
using OwnedArray = Owned<ArrowArray>;
using OwnedStream = Owned<ArrowArrayStream>;

using Batch = std::shared_ptr<OwnedArray>;

enum class Kind : std::uint8_t {
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kFloat32,
  kFloat64,
  kBool,
  kUtf8,
  kLargeUtf8,
  kUtf8View,    // "vu": 16-byte views, short strings inline, long ones in data buffers
  kNull,        // Arrow's null type: every value NULL, no buffers
  kDate32,      // "tdD": days since 1970-01-01, stored as DATE
  kDecimal64,   // "d:p,s,64", stored as DECIMAL(p, s)
  kDecimal128,  // "d:p,s" or "d:p,s,128": stored as DECIMAL when each value fits 64 bits
};

bool IsText(Kind k) {
  return k == Kind::kUtf8 || k == Kind::kLargeUtf8 || k == Kind::kUtf8View;
}
bool IsInteger(Kind k) {
  return k <= Kind::kUInt64;
}

std::string Quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

// What a format clq cannot store is, for the message.
std::string Describe(std::string_view format) {
  if (format == "tdD" || format == "tdm") return "date";
  if (format.starts_with("d:")) return "decimal";
  if (format.starts_with("ts")) return "timestamp";
  if (format.starts_with("tt")) return "time";
  if (format.starts_with("tD") || format.starts_with("ti")) return "duration or interval";
  if (format == "e") return "float16";
  if (format == "z" || format == "Z" || format.starts_with("w:")) return "binary";
  if (format == "vz") return "binary view";
  if (format.starts_with("+")) return "nested";
  return "unknown";
}

Kind KindOf(std::string_view format, std::string_view column) {
  if (format == "vu") return Kind::kUtf8View;
  if (format == "tdD") return Kind::kDate32;
  if (format.starts_with("d:")) {
    if (format.ends_with(",64")) return Kind::kDecimal64;
    const std::size_t commas =
        static_cast<std::size_t>(std::count(format.begin(), format.end(), ','));
    if (commas == 1 || format.ends_with(",128")) return Kind::kDecimal128;
  }
  if (format.size() == 1) {
    switch (format[0]) {
      case 'c':
        return Kind::kInt8;
      case 'C':
        return Kind::kUInt8;
      case 's':
        return Kind::kInt16;
      case 'S':
        return Kind::kUInt16;
      case 'i':
        return Kind::kInt32;
      case 'I':
        return Kind::kUInt32;
      case 'l':
        return Kind::kInt64;
      case 'L':
        return Kind::kUInt64;
      case 'f':
        return Kind::kFloat32;
      case 'g':
        return Kind::kFloat64;
      case 'b':
        return Kind::kBool;
      case 'u':
        return Kind::kUtf8;
      case 'U':
        return Kind::kLargeUtf8;
      case 'n':
        return Kind::kNull;
      default:
        break;
    }
  }
  throw InvalidInputError("column " + Quoted(column) + " has the Arrow type '" +
                          std::string(format) + "' (" + Describe(format) +
                          "), which clq cannot store yet (it stores INT32, INT64, DOUBLE, "
                          "CHAR, DATE and DECIMAL: Arrow integers, floats, bools, strings, "
                          "date32 and decimals)");
}

// One column's Arrow type: its values', and for a dictionary its indices'.
struct FieldType {
  std::string name;
  Kind values = Kind::kInt32;
  std::optional<Kind> index;  // a dictionary's index type
  LogicalType logical;        // DATE for date32, DECIMAL(p, s) for decimals
};

// "d:p,s[,bits]" to DECIMAL(p, s); a precision past 18 is stored as 18, and
// each value must then fit 64 bits (checked as it is read).
LogicalType DecimalType(std::string_view format, const std::string& column) {
  unsigned precision = 0, scale = 0;
  const char* at = format.data() + 2;
  const char* end = format.data() + format.size();
  auto [p_end, p_error] = std::from_chars(at, end, precision);
  bool ok = p_error == std::errc() && p_end < end && *p_end == ',';
  if (ok) {
    auto [s_end, s_error] = std::from_chars(p_end + 1, end, scale);
    ok = s_error == std::errc() && (s_end == end || *s_end == ',');
  }
  if (!ok || precision == 0 || scale > precision || scale > kMaxDecimalPrecision)
    throw InvalidInputError("column " + Quoted(column) + " has the Arrow decimal type '" +
                            std::string(format) +
                            "', which clq cannot store (it stores DECIMAL(p, s) with s <= 18)");
  return LogicalType::Decimal(
      static_cast<std::uint8_t>(std::min<unsigned>(precision, kMaxDecimalPrecision)),
      static_cast<std::uint8_t>(scale));
}

FieldType ReadField(const ArrowSchema& field, std::size_t position) {
  FieldType t;
  t.name = field.name != nullptr ? field.name : "";
  if (t.name.empty()) t.name = "column " + std::to_string(position + 1);
  if (field.format == nullptr) throw InvalidInputError("column " + Quoted(t.name) + " has no type");
  if (field.dictionary != nullptr) {
    t.index = KindOf(field.format, t.name);
    if (!IsInteger(*t.index))
      throw InvalidInputError("column " + Quoted(t.name) + ": dictionary indices are not integers");
    if (field.dictionary->format == nullptr)
      throw InvalidInputError("column " + Quoted(t.name) + "'s dictionary has no type");
    // Its values would be indices into another dictionary, not the column's.
    if (field.dictionary->dictionary != nullptr)
      throw InvalidInputError("column " + Quoted(t.name) +
                              " has a dictionary whose values are dictionary-encoded, which clq "
                              "cannot read yet");
    t.values = KindOf(field.dictionary->format, t.name);
  } else {
    t.values = KindOf(field.format, t.name);
  }
  const char* values_format = field.dictionary != nullptr ? field.dictionary->format : field.format;
  if (t.values == Kind::kDate32) t.logical = LogicalType::Date();
  if (t.values == Kind::kDecimal64 || t.values == Kind::kDecimal128)
    t.logical = DecimalType(values_format, t.name);
  return t;
}

ColumnType StorageType(Kind k) {
  switch (k) {
    case Kind::kInt8:
    case Kind::kUInt8:
    case Kind::kInt16:
    case Kind::kUInt16:
    case Kind::kInt32:
    case Kind::kBool:
    case Kind::kNull:  // as a CSV column of nothing but NULLs
    case Kind::kDate32:
      return ColumnType::Int32();
    case Kind::kUInt32:
    case Kind::kInt64:
    case Kind::kUInt64:
    case Kind::kDecimal64:
    case Kind::kDecimal128:
      return ColumnType::Int64();
    case Kind::kFloat32:
    case Kind::kFloat64:
      return ColumnType::Double();
    case Kind::kUtf8:
    case Kind::kLargeUtf8:
    case Kind::kUtf8View:
      break;
  }
  return ColumnType::Char(1);  // the width is set from the values
}

std::size_t ValueWidth(Kind k) {
  switch (k) {
    case Kind::kInt8:
    case Kind::kUInt8:
      return 1;
    case Kind::kInt16:
    case Kind::kUInt16:
      return 2;
    case Kind::kInt32:
    case Kind::kUInt32:
    case Kind::kFloat32:
    case Kind::kDate32:
      return 4;
    case Kind::kDecimal128:
      return 16;
    default:
      return 8;
  }
}

// A column's array in one batch: `array`, whose element i is row i of the
// batch after the batch's own offset (a struct's offset applies to its
// children, which add their own).
struct Chunk {
  const ArrowArray* array = nullptr;
  std::int64_t first = 0;  // array.offset + the batch's offset
  std::int64_t rows = 0;
  RowCount row_base = 0;              // the table row of its first row
  const ArrowArray* batch = nullptr;  // the struct array: a NULL row of it is NULL in every column
};

void Require(bool ok, const std::string& column, const char* what) {
  if (!ok)
    throw InvalidInputError("column " + Quoted(column) + ": malformed Arrow array (" + what + ")");
}

bool BitSet(const void* bitmap, std::int64_t bit) {
  const auto* bytes = static_cast<const std::uint8_t*>(bitmap);
  return ((bytes[bit >> 3] >> (bit & 7)) & 1) != 0;
}

// Whether an element (offset included) is NULL: its validity bit is clear.
// A null count of 0 or no validity bitmap means no NULL; -1 means the count
// is unknown, and the bits tell.
bool IsNullAt(const ArrowArray& a, std::int64_t element) {
  if (a.null_count == 0 || a.n_buffers < 1 || a.buffers == nullptr || a.buffers[0] == nullptr)
    return false;
  return !BitSet(a.buffers[0], element);
}

// Whether the array may hold a NULL (a null count other than 0 and a
// validity bitmap).
bool IsNullAtAll(const ArrowArray& a) {
  return a.null_count != 0 && a.n_buffers >= 1 && a.buffers != nullptr && a.buffers[0] != nullptr;
}

// A positive null count needs the bitmap that says which elements are NULL.
void RequireValidity(const ArrowArray& a, const std::string& column) {
  Require(
      a.null_count <= 0 || (a.n_buffers >= 1 && a.buffers != nullptr && a.buffers[0] != nullptr),
      column, "a null count without a validity bitmap");
}

std::int64_t IntegerAt(const ArrowArray& a, Kind k, std::int64_t element) {
  const void* data = a.buffers[1];
  switch (k) {
    case Kind::kInt8:
      return static_cast<const std::int8_t*>(data)[element];
    case Kind::kUInt8:
      return static_cast<const std::uint8_t*>(data)[element];
    case Kind::kInt16:
      return static_cast<const std::int16_t*>(data)[element];
    case Kind::kUInt16:
      return static_cast<const std::uint16_t*>(data)[element];
    case Kind::kInt32:
    case Kind::kDate32:
      return static_cast<const std::int32_t*>(data)[element];
    case Kind::kDecimal64:
      return static_cast<const std::int64_t*>(data)[element];
    case Kind::kDecimal128: {
      // Little-endian two's complement: fits 64 bits when the high word is
      // the low word's sign.
      const auto* words = static_cast<const std::int64_t*>(data) + 2 * element;
      if (words[1] != (words[0] < 0 ? -1 : 0))
        throw InvalidInputError(
            "a decimal value needs more than 64 bits, past clq's DECIMAL (18 digits)");
      return words[0];
    }
    case Kind::kUInt32:
      return static_cast<const std::uint32_t*>(data)[element];
    case Kind::kInt64:
      return static_cast<const std::int64_t*>(data)[element];
    case Kind::kUInt64: {
      const std::uint64_t v = static_cast<const std::uint64_t*>(data)[element];
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw InvalidInputError("the uint64 value " + std::to_string(v) +
                                " is past INT64's range, clq's widest integer");
      return static_cast<std::int64_t>(v);
    }
    case Kind::kBool:
      return BitSet(data, element) ? 1 : 0;
    default:
      break;
  }
  throw InternalError("not an integer Arrow type");
}

// A string view array's buffers (C Data interface): validity, the 16-byte
// views, the variadic data buffers, and last the int64 sizes of the data
// buffers. A view is an int32 length, then the string itself when it is at
// most 12 bytes, else a 4-byte prefix, an int32 data buffer index and an
// int32 offset into that buffer.
constexpr std::int64_t kViewBytes = 16;
constexpr std::int32_t kViewInline = 12;

std::string_view ViewAt(const ArrowArray& a, std::int64_t element, const std::string& column) {
  const char* view = static_cast<const char*>(a.buffers[1]) + element * kViewBytes;
  std::int32_t length = 0;
  std::memcpy(&length, view, sizeof length);
  Require(length >= 0, column, "negative string view length");
  if (length <= kViewInline) return {view + 4, static_cast<std::size_t>(length)};
  std::int32_t buffer = 0;
  std::int32_t offset = 0;
  std::memcpy(&buffer, view + 8, sizeof buffer);
  std::memcpy(&offset, view + 12, sizeof offset);
  const std::int64_t data_buffers = a.n_buffers - 3;
  Require(buffer >= 0 && buffer < data_buffers, column, "string view data buffer out of range");
  Require(a.buffers[a.n_buffers - 1] != nullptr, column, "no string view buffer sizes");
  std::int64_t size = 0;
  std::memcpy(&size,
              static_cast<const char*>(a.buffers[a.n_buffers - 1]) + buffer * sizeof(std::int64_t),
              sizeof size);
  Require(offset >= 0 && static_cast<std::int64_t>(offset) + length <= size, column,
          "string view past its data buffer");
  Require(a.buffers[2 + buffer] != nullptr, column, "no string data");
  return {static_cast<const char*>(a.buffers[2 + buffer]) + offset,
          static_cast<std::size_t>(length)};
}

std::string_view TextAt(const ArrowArray& a, Kind k, std::int64_t element,
                        const std::string& column) {
  if (k == Kind::kUtf8View) return ViewAt(a, element, column);
  std::int64_t begin = 0;
  std::int64_t end = 0;
  if (k == Kind::kUtf8) {
    const auto* offsets = static_cast<const std::int32_t*>(a.buffers[1]);
    begin = offsets[element];
    end = offsets[element + 1];
  } else {
    const auto* offsets = static_cast<const std::int64_t*>(a.buffers[1]);
    begin = offsets[element];
    end = offsets[element + 1];
  }
  Require(begin >= 0 && end >= begin, column, "string offsets decrease");
  if (end == begin) return {};
  Require(a.buffers[2] != nullptr, column, "no string data");
  return {static_cast<const char*>(a.buffers[2]) + begin, static_cast<std::size_t>(end - begin)};
}

// NaN is no value in clq: a REAL operation that yields one gives NULL (as in
// SQLite), and the expression compiler's proofs assume that tables hold
// none. It is refused rather than made NULL: a NaN that Arrow marks valid is
// a value the producer meant, which clq cannot keep (Arrow's NULL is the
// validity bit, which clq reads).
constexpr const char* kNaN =
    "NaN, which clq cannot store (a table holds none: its NULLs are Arrow's validity bits)";

// Refuses the first NaN of `rows` float64 values read in place.
void RefuseNaN(const std::byte* values, RowCount rows, const std::string& column) {
  for (RowCount r = 0; r < rows; ++r) {
    double value;
    std::memcpy(&value, values + r * sizeof(double), sizeof(double));
    if (std::isnan(value))
      throw InvalidInputError("column " + Quoted(column) + ", row " + std::to_string(r + 1) + ": " +
                              kNaN);
  }
}

// Whether an array of values of kind k has its layout's number of buffers:
// validity and values, for strings also their characters; a string view
// array has any number of data buffers and then their sizes.
bool BufferCountFits(const ArrowArray& a, Kind k) {
  if (k == Kind::kUtf8View) return a.n_buffers >= 3;
  return a.n_buffers == (IsText(k) ? 3 : 2);
}

// Checks the buffers a column's arrays must have.
void CheckChunk(const Chunk& chunk, const FieldType& type) {
  const ArrowArray& a = *chunk.array;
  const std::string& column = type.name;
  Require(a.length >= 0 && a.offset >= 0 && chunk.first >= 0, column, "negative length or offset");
  Require(chunk.first - a.offset + chunk.rows <= a.length, column, "shorter than its batch");
  if (!type.index && type.values == Kind::kNull) return;  // no buffers to read
  const bool text = !type.index && IsText(type.values);
  Require(BufferCountFits(a, text ? type.values : Kind::kInt32), column, "wrong number of buffers");
  if (chunk.rows == 0) return;
  Require(a.buffers != nullptr && a.buffers[1] != nullptr, column, "no data buffer");
  RequireValidity(a, column);
  if (!type.index) return;
  Require(a.dictionary != nullptr, column, "dictionary missing");
  const ArrowArray& dictionary = *a.dictionary;
  Require(dictionary.length >= 0 && dictionary.offset >= 0, column,
          "negative dictionary length or offset");
  if (type.values == Kind::kNull || dictionary.length == 0) return;
  Require(BufferCountFits(dictionary, type.values) && dictionary.buffers != nullptr &&
              dictionary.buffers[1] != nullptr,
          column, "dictionary without values");
  RequireValidity(dictionary, column);
}

// Row r of a dictionary chunk whose index is not NULL: the dictionary's
// element, the index checked against the dictionary's length.
std::int64_t DictionaryElement(const Chunk& chunk, const FieldType& type, std::int64_t r) {
  const ArrowArray& dictionary = *chunk.array->dictionary;
  const std::int64_t at = chunk.first + r;
  // A uint64 index past INT64 is out of range, not a value for IntegerAt to
  // refuse (its message names no column and speaks of a value).
  const bool past_int64 = *type.index == Kind::kUInt64 &&
                          static_cast<const std::uint64_t*>(chunk.array->buffers[1])[at] >
                              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const std::int64_t index = past_int64 ? -1 : IntegerAt(*chunk.array, *type.index, at);
  Require(index >= 0 && index < dictionary.length, type.name, "dictionary index out of range");
  return dictionary.offset + index;
}

// Whether row r of a chunk is NULL: the batch's row is, the column's
// element is, or (a dictionary) the element its index refers to is. Checks
// the index of a row that is not NULL, so that the values are read only
// through indices in range.
bool ChunkNull(const Chunk& chunk, const FieldType& type, std::int64_t r) {
  if (chunk.batch != nullptr && IsNullAt(*chunk.batch, chunk.batch->offset + r)) return true;
  if (type.values == Kind::kNull && !type.index) return true;
  if (IsNullAt(*chunk.array, chunk.first + r)) return true;
  if (!type.index) return false;
  const std::int64_t element = DictionaryElement(chunk, type, r);
  return type.values == Kind::kNull || IsNullAt(*chunk.array->dictionary, element);
}

// The column's NULL map (1 = NULL), or null when no row is NULL.
std::shared_ptr<ColumnData> NullMap(const std::vector<Chunk>& chunks, const FieldType& type,
                                    RowCount rows) {
  std::shared_ptr<ColumnData> nulls;
  for (const Chunk& chunk : chunks) {
    for (std::int64_t r = 0; r < chunk.rows; ++r) {
      if (!ChunkNull(chunk, type, r)) continue;
      if (!nulls) {
        nulls = std::make_shared<ColumnData>(ColumnType::Char(1), rows);
        std::memset(nulls->data(), 0, rows);
      }
      nulls->data()[chunk.row_base + static_cast<RowCount>(r)] = std::byte{1};
    }
  }
  return nulls;
}

bool IsNullRow(const ColumnData* nulls, RowCount row) {
  return nulls != nullptr && nulls->data()[row] != std::byte{0};
}

// REQUIRES: row r of the chunk is not NULL.
std::string_view ChunkText(const Chunk& chunk, const FieldType& type, std::int64_t r) {
  if (type.index)
    return TextAt(*chunk.array->dictionary, type.values, DictionaryElement(chunk, type, r),
                  type.name);
  return TextAt(*chunk.array, type.values, chunk.first + r, type.name);
}

// The column's values, zero at NULL rows (whose Arrow values are undefined,
// so they are never read).
std::shared_ptr<const ColumnData> CopyColumn(const std::vector<Chunk>& chunks,
                                             const FieldType& type, RowCount rows,
                                             const ColumnData* nulls) {
  auto null_at = [&](const Chunk& chunk, std::int64_t r) {
    return IsNullRow(nulls, chunk.row_base + static_cast<RowCount>(r));
  };
  if (type.values == Kind::kNull) {
    auto data = std::make_shared<ColumnData>(StorageType(type.values), rows);
    std::memset(data->data(), 0, data->byte_size());
    return data;
  }
  if (IsText(type.values)) {
    std::size_t width = 1;
    for (const Chunk& chunk : chunks)
      for (std::int64_t r = 0; r < chunk.rows; ++r)
        if (!null_at(chunk, r)) width = std::max(width, ChunkText(chunk, type, r).size());
    if (width > kMaxCharWidth)
      throw InvalidInputError("column " + Quoted(type.name) + " holds a string of " +
                              std::to_string(width) + " bytes; clq stores at most " +
                              std::to_string(kMaxCharWidth));
    auto data =
        std::make_shared<ColumnData>(ColumnType::Char(static_cast<std::uint32_t>(width)), rows);
    std::memset(data->data(), 0, data->byte_size());
    for (const Chunk& chunk : chunks) {
      for (std::int64_t r = 0; r < chunk.rows; ++r) {
        if (null_at(chunk, r)) continue;
        const std::string_view s = ChunkText(chunk, type, r);
        if (s.find('\0') != std::string_view::npos)
          throw InvalidInputError("column " + Quoted(type.name) +
                                  " holds a string with a NUL byte (row " +
                                  std::to_string(chunk.row_base + static_cast<RowCount>(r) + 1) +
                                  "), which CHAR cannot store");
        if (!s.empty())
          std::memcpy(data->data() + (chunk.row_base + static_cast<RowCount>(r)) * width, s.data(),
                      s.size());
      }
    }
    return data;
  }
  ColumnType storage = StorageType(type.values);
  storage.logical = type.logical;
  auto data = std::make_shared<ColumnData>(storage, rows);
  if (nulls != nullptr) std::memset(data->data(), 0, data->byte_size());
  for (const Chunk& chunk : chunks) {
    const ArrowArray* array = chunk.array;
    for (std::int64_t r = 0; r < chunk.rows; ++r) {
      if (null_at(chunk, r)) continue;
      std::int64_t element = chunk.first + r;
      if (type.index) {
        element = DictionaryElement(chunk, type, r);
        array = chunk.array->dictionary;
      }
      const RowCount row = chunk.row_base + static_cast<RowCount>(r);
      try {
        switch (storage.type) {
          case DataType::kInt32:
            reinterpret_cast<std::int32_t*>(data->data())[row] =
                static_cast<std::int32_t>(IntegerAt(*array, type.values, element));
            break;
          case DataType::kInt64:
            reinterpret_cast<std::int64_t*>(data->data())[row] =
                IntegerAt(*array, type.values, element);
            break;
          default: {
            const double value =
                type.values == Kind::kFloat32
                    ? static_cast<double>(static_cast<const float*>(array->buffers[1])[element])
                    : static_cast<const double*>(array->buffers[1])[element];
            if (std::isnan(value)) throw InvalidInputError(kNaN);
            reinterpret_cast<double*>(data->data())[row] = value;
            break;
          }
        }
      } catch (const InvalidInputError& e) {
        throw InvalidInputError("column " + Quoted(type.name) + ", row " + std::to_string(row + 1) +
                                ": " + e.what());
      }
    }
  }
  return data;
}

TablePtr Build(std::string name, const ArrowSchema& schema, const std::vector<Batch>& batches) {
  if (schema.format == nullptr || std::string_view(schema.format) != "+s")
    throw InvalidInputError(
        "Arrow data to register must be a table, a record batch or a struct array (format "
        "'+s'), not '" +
        std::string(schema.format != nullptr ? schema.format : "") + "'");
  const std::size_t fields = static_cast<std::size_t>(std::max<std::int64_t>(schema.n_children, 0));
  if (fields == 0) throw InvalidInputError("Arrow data to register has no columns");
  std::vector<FieldType> types;
  for (std::size_t c = 0; c < fields; ++c) {
    types.push_back(ReadField(*schema.children[c], c));
    for (std::size_t d = 0; d < c; ++d)
      if (IdentifierEquals(types[d].name, types[c].name))
        throw InvalidInputError("column name " + Quoted(types[c].name) +
                                " appears twice (clq names are case-insensitive)");
  }

  RowCount rows = 0;
  std::vector<std::vector<Chunk>> chunks(fields);
  for (const Batch& batch : batches) {
    const ArrowArray& a = batch->s;
    if (a.length < 0 || a.offset < 0 || a.n_children != static_cast<std::int64_t>(fields) ||
        (a.length > 0 && a.children == nullptr))
      throw InvalidInputError("malformed Arrow batch: its columns do not match its schema");
    if (a.length > 0 && a.null_count > 0 && !IsNullAtAll(a))
      throw InvalidInputError("malformed Arrow batch: a null count without a validity bitmap");
    // A NULL row of the struct is NULL in each column, whatever the
    // children hold there (Arrow's meaning of a struct's validity).
    const ArrowArray* batch_nulls = IsNullAtAll(a) ? &a : nullptr;
    for (std::size_t c = 0; c < fields && a.length > 0; ++c) {
      const Chunk chunk{a.children[c], a.children[c]->offset + a.offset, a.length, rows,
                        batch_nulls};
      CheckChunk(chunk, types[c]);
      chunks[c].push_back(chunk);
    }
    rows += static_cast<RowCount>(a.length);
    if (rows > kMaxTableRows)
      throw InvalidInputError("Arrow data of more than " + std::to_string(kMaxTableRows) +
                              " rows; a clq table holds fewer");
  }

  std::vector<Column> columns;
  for (std::size_t c = 0; c < fields; ++c) {
    const FieldType& type = types[c];
    std::shared_ptr<const ColumnData> data;
    const bool in_place_type =
        !type.index && (type.values == Kind::kInt32 || type.values == Kind::kInt64 ||
                        type.values == Kind::kFloat64 || type.values == Kind::kDate32 ||
                        type.values == Kind::kDecimal64);
    std::shared_ptr<ColumnData> nulls = NullMap(chunks[c], type, rows);
    if (in_place_type && batches.size() == 1 && rows > 0 && !nulls) {
      const Chunk& chunk = chunks[c][0];
      const auto* values = static_cast<const std::byte*>(chunk.array->buffers[1]) +
                           chunk.first * static_cast<std::int64_t>(ValueWidth(type.values));
      if (reinterpret_cast<std::uintptr_t>(values) % kHostBlockAlignment == 0) {
        if (type.values == Kind::kFloat64) RefuseNaN(values, rows, type.name);
        ColumnType storage = StorageType(type.values);
        storage.logical = type.logical;
        data =
            std::make_shared<ColumnData>(storage, rows, values, std::shared_ptr<void>(batches[0]));
      }
    }
    if (!data) data = CopyColumn(chunks[c], type, rows, nulls.get());
    columns.emplace_back(type.name, std::move(data), 0, rows, std::move(nulls));
  }
  return std::make_shared<const Table>(std::move(name), std::move(columns));
}

}  // namespace

TablePtr ImportArrowArray(std::string name, ArrowSchema* schema, ArrowArray* array) {
  CLQ_CHECK(schema != nullptr && array != nullptr, "null Arrow struct");
  const OwnedSchema owned_schema(schema);
  auto batch = std::make_shared<OwnedArray>(array);
  if (owned_schema.s.release == nullptr || batch->s.release == nullptr)
    throw InvalidInputError("the Arrow schema or array was already released");
  return Build(std::move(name), owned_schema.s, {batch});
}

TablePtr ImportArrowStream(std::string name, ArrowArrayStream* stream) {
  CLQ_CHECK(stream != nullptr, "null Arrow stream");
  OwnedStream owned(stream);
  if (owned.s.release == nullptr) throw InvalidInputError("the Arrow stream was already released");
  auto fail = [&](const char* what) {
    const char* detail =
        owned.s.get_last_error != nullptr ? owned.s.get_last_error(&owned.s) : nullptr;
    throw InvalidInputError(std::string("reading the Arrow stream's ") + what + " failed" +
                            (detail != nullptr ? std::string(": ") + detail : std::string()));
  };
  ArrowSchema raw_schema{};
  if (owned.s.get_schema(&owned.s, &raw_schema) != 0) fail("schema");
  const OwnedSchema schema(&raw_schema);
  std::vector<Batch> batches;
  for (;;) {
    ArrowArray raw{};
    if (owned.s.get_next(&owned.s, &raw) != 0) fail("next batch");
    if (raw.release == nullptr) break;  // the end of the stream
    batches.push_back(std::make_shared<OwnedArray>(&raw));
  }
  return Build(std::move(name), schema.s, batches);
}

}  // namespace clq
