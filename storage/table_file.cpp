#include "storage/table_file.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/errors.hpp"
#include "common/hash.hpp"
#include "common/parallel_ranges.hpp"
#include "storage/memory_advice.hpp"
#include "storage/temporary_file.hpp"

namespace clq {
namespace {

static_assert(std::endian::native == std::endian::little,
              "table files are little-endian; add byte swapping for this host");

constexpr char kMagic[8] = {'C', 'L', 'Q', 'T', 'A', 'B', 'L', 'E'};
constexpr std::uint64_t kPreambleBytes = 16;  // magic, version, header length
constexpr std::uint64_t kChecksumBytes = 8;
constexpr std::uint8_t kNullableFlag = 1;

struct CloseFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, CloseFile>;

std::string Describe(std::uint64_t bytes) {
  return std::to_string(bytes) + " bytes";
}

// ---------------------------------------------------------------------------
// Writing

template <typename T>
void Append(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void AppendString(std::string& out, std::string_view text) {
  Append(out, static_cast<std::uint32_t>(text.size()));
  out.append(text);
}

// Whether the column is stored with a NULL map: only when it holds a NULL,
// which a slice of a nullable column need not.
bool StoresNulls(const Column& column) {
  const std::uint8_t* map = column.null_map();
  return map != nullptr &&
         std::any_of(map, map + column.rows(), [](std::uint8_t n) { return n != 0; });
}

// Version 3 only where a column has a logical type, so that a table without
// one is written as before and older clq versions still read it.
std::uint32_t VersionFor(const Table& table) {
  for (const Column& c : table.columns())
    if (c.type().logical.kind != Logical::kNone) return kTableFileVersion;
  return 2;
}

std::string EncodeHeader(const Table& table) {
  const std::uint32_t version = VersionFor(table);
  std::string body;
  Append(body, static_cast<std::uint64_t>(table.rows()));
  AppendString(body, table.name());
  Append(body, static_cast<std::uint32_t>(table.columns().size()));
  for (const Column& c : table.columns()) {
    AppendString(body, c.name());
    Append(body, static_cast<std::uint8_t>(c.type().type));
    Append(body, c.type().width);
    Append(body, StoresNulls(c) ? kNullableFlag : std::uint8_t{0});
    if (version >= 3) {
      Append(body, static_cast<std::uint8_t>(c.type().logical.kind));
      Append(body, c.type().logical.precision);
      Append(body, c.type().logical.scale);
    }
  }
  std::string header(kMagic, sizeof(kMagic));
  Append(header, version);
  Append(header, static_cast<std::uint32_t>(body.size()));
  header += body;
  Append(header, Checksum64(std::as_bytes(std::span(header.data(), header.size()))));
  return header;
}

class Writer {
 public:
  Writer(std::FILE* file, const std::string& path) : file_(file), path_(path) {}
  void Write(const void* data, std::size_t bytes) {
    if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes)
      throw FileError("writing " + path_ + " failed: " + std::strerror(errno));
  }

 private:
  std::FILE* file_;
  const std::string& path_;
};

void WriteContents(const Table& table, std::FILE* file, const std::string& path) {
  Writer writer(file, path);
  const std::string header = EncodeHeader(table);
  writer.Write(header.data(), header.size());
  for (const Column& c : table.columns()) {
    writer.Write(c.bytes(), c.byte_size());
    const std::uint64_t checksum = Checksum64(std::span(c.bytes(), c.byte_size()));
    writer.Write(&checksum, sizeof(checksum));
    if (!StoresNulls(c)) continue;
    const auto* map = reinterpret_cast<const std::byte*>(c.null_map());
    writer.Write(map, c.rows());
    const std::uint64_t map_checksum = Checksum64(std::span(map, c.rows()));
    writer.Write(&map_checksum, sizeof(map_checksum));
  }
}

// ---------------------------------------------------------------------------
// Reading

FilePtr OpenForReading(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw FileError("cannot read " + path + ": it is a directory");
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw FileError("cannot open " + path + ": " + std::strerror(errno));
  return file;
}

std::uint64_t FileSize(std::FILE* file, const std::string& path) {
  if (std::fseek(file, 0, SEEK_END) != 0) throw FileError("cannot seek in " + path);
  const long size = std::ftell(file);
  if (size < 0 || std::fseek(file, 0, SEEK_SET) != 0) throw FileError("cannot seek in " + path);
  return static_cast<std::uint64_t>(size);
}

void ReadExactly(std::FILE* file, void* out, std::uint64_t bytes, const std::string& path,
                 const std::string& what) {
  const std::size_t got = std::fread(out, 1, static_cast<std::size_t>(bytes), file);
  if (got != bytes)
    throw FileError(path + ": truncated: expected " + Describe(bytes) + " of " + what + ", found " +
                    std::to_string(got));
}

// Bounds-checked reads from the header body.
class HeaderParser {
 public:
  HeaderParser(std::string_view body, const std::string& path) : body_(body), path_(path) {}

  template <typename T>
  T Read(const char* what) {
    Need(sizeof(T), what);
    T value;
    std::memcpy(&value, body_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string ReadString(const char* what) {
    const auto length = Read<std::uint32_t>(what);
    Need(length, what);
    std::string text(body_.substr(pos_, length));
    pos_ += length;
    return text;
  }
  bool AtEnd() const { return pos_ == body_.size(); }
  [[noreturn]] void Corrupt(const std::string& problem) const {
    throw FileError(path_ + ": corrupt header: " + problem);
  }

 private:
  void Need(std::size_t bytes, const char* what) const {
    if (bytes > body_.size() - pos_) Corrupt(std::string(what) + " runs past the header");
  }
  std::string_view body_;
  std::size_t pos_ = 0;
  const std::string& path_;
};

ColumnType ParseColumnType(HeaderParser& parser, const std::string& column) {
  const auto type = parser.Read<std::uint8_t>("a column type");
  const auto width = parser.Read<std::uint32_t>("a column width");
  ColumnType result;
  switch (type) {
    case static_cast<std::uint8_t>(DataType::kInt32):
      result = ColumnType::Int32();
      break;
    case static_cast<std::uint8_t>(DataType::kInt64):
      result = ColumnType::Int64();
      break;
    case static_cast<std::uint8_t>(DataType::kDouble):
      result = ColumnType::Double();
      break;
    case static_cast<std::uint8_t>(DataType::kChar):
      if (width == 0 || width > kMaxCharWidth)
        parser.Corrupt("column " + column + " has CHAR width " + std::to_string(width));
      result = ColumnType::Char(width);
      break;
    default:
      parser.Corrupt("column " + column + " has unknown type " + std::to_string(type));
  }
  if (result.width != width)
    parser.Corrupt("column " + column + " of type " + result.ToString() + " has width " +
                   std::to_string(width));
  return result;
}

// Version 3's logical type of a column: DATE on INT32, DECIMAL(p, s) with
// 1 <= p <= 18 and s <= p on INT64, else none (all three bytes zero).
LogicalType ParseLogicalType(HeaderParser& parser, const std::string& column,
                             const ColumnType& type) {
  const auto kind = parser.Read<std::uint8_t>("a column's logical type");
  const auto precision = parser.Read<std::uint8_t>("a column's precision");
  const auto scale = parser.Read<std::uint8_t>("a column's scale");
  const std::string bytes =
      std::to_string(kind) + ", " + std::to_string(precision) + ", " + std::to_string(scale);
  if (kind == static_cast<std::uint8_t>(Logical::kNone) && precision == 0 && scale == 0) return {};
  if (kind == static_cast<std::uint8_t>(Logical::kDate) && precision == 0 && scale == 0 &&
      type.type == DataType::kInt32)
    return LogicalType::Date();
  if (kind == static_cast<std::uint8_t>(Logical::kDecimal) && precision >= 1 &&
      precision <= kMaxDecimalPrecision && scale <= precision && type.type == DataType::kInt64)
    return LogicalType::Decimal(precision, scale);
  parser.Corrupt("column " + column + " of type " + type.ToString() +
                 " has an invalid logical type (" + bytes + ")");
}

// Reads and checks everything before the column data; leaves `file` at the
// first column. Also checks the file holds exactly the data the header
// announces, so that nothing is allocated for a truncated file.
TableFileInfo ReadHeader(std::FILE* file, const std::string& path) {
  const std::uint64_t file_size = FileSize(file, path);
  if (file_size == 0) throw FileError(path + ": empty file, not a clq table file");
  char preamble[kPreambleBytes];
  const std::size_t got = std::fread(preamble, 1, kPreambleBytes, file);
  if (std::memcmp(preamble, kMagic, std::min(got, sizeof(kMagic))) != 0)
    throw FileError(path + ": not a clq table file (bad magic)");
  if (got < kPreambleBytes)
    throw FileError(path + ": truncated: expected " + Describe(kPreambleBytes) +
                    " of file header, found " + std::to_string(got));
  std::uint32_t version;
  std::uint32_t body_size;
  std::memcpy(&version, preamble + 8, 4);
  std::memcpy(&body_size, preamble + 12, 4);
  if (version < kOldestTableFileVersion || version > kTableFileVersion)
    throw FileError(path + ": unsupported table file version " + std::to_string(version) +
                    " (this clq reads versions " + std::to_string(kOldestTableFileVersion) +
                    " to " + std::to_string(kTableFileVersion) + ")");
  const std::uint64_t available = file_size - kPreambleBytes;
  if (body_size + kChecksumBytes > available)
    throw FileError(path + ": truncated: expected " + Describe(body_size + kChecksumBytes) +
                    " of table header, found " + std::to_string(available));

  std::string header(preamble, kPreambleBytes);
  header.resize(kPreambleBytes + body_size);
  ReadExactly(file, header.data() + kPreambleBytes, body_size, path, "table header");
  std::uint64_t stored_checksum;
  ReadExactly(file, &stored_checksum, kChecksumBytes, path, "header checksum");
  if (Checksum64(std::as_bytes(std::span(header.data(), header.size()))) != stored_checksum)
    throw FileError(path + ": corrupt header (checksum mismatch)");

  HeaderParser parser(std::string_view(header).substr(kPreambleBytes), path);
  TableFileInfo info;
  info.rows = parser.Read<std::uint64_t>("the row count");
  if (info.rows > kMaxTableRows) parser.Corrupt(std::to_string(info.rows) + " rows");
  info.name = parser.ReadString("the table name");
  const auto columns = parser.Read<std::uint32_t>("the column count");
  // A table of no columns has no rows either: the row count would be lost.
  if (columns == 0) parser.Corrupt("the table has no columns");
  std::unordered_set<std::string> names;  // lowercase: names are SQL identifiers
  for (std::uint32_t i = 0; i < columns; ++i) {
    std::string name = parser.ReadString("a column name");
    if (name.empty()) parser.Corrupt("column " + std::to_string(i + 1) + " has no name");
    if (!names.insert(LowercaseIdentifier(name)).second)
      parser.Corrupt("two columns are named " + name);
    ColumnType type = ParseColumnType(parser, name);
    bool nullable = false;
    if (version >= 2) {
      const auto flags = parser.Read<std::uint8_t>("a column's flags");
      if ((flags & ~kNullableFlag) != 0)
        parser.Corrupt("column " + name + " has unknown flags " + std::to_string(flags));
      nullable = (flags & kNullableFlag) != 0;
    }
    if (version >= 3) type.logical = ParseLogicalType(parser, name, type);
    info.schema.push_back({std::move(name), type, nullable});
  }
  if (!parser.AtEnd()) parser.Corrupt("unexpected bytes after the last column description");

  std::uint64_t position = kPreambleBytes + body_size + kChecksumBytes;
  for (const ColumnSpec& spec : info.schema) {
    const std::uint64_t data_bytes = info.rows * spec.type.width;
    const std::uint64_t remaining = file_size - position;
    if (remaining < data_bytes)
      throw FileError(path + ": truncated: expected " + Describe(data_bytes) + " of column " +
                      spec.name + ", found " + std::to_string(remaining));
    if (remaining - data_bytes < kChecksumBytes)
      throw FileError(path + ": truncated: expected " + Describe(kChecksumBytes) +
                      " of checksum of column " + spec.name + ", found " +
                      std::to_string(remaining - data_bytes));
    position += data_bytes + kChecksumBytes;
    if (!spec.nullable) continue;
    // rows <= kMaxTableRows, so the sizes above do not overflow.
    const std::uint64_t map_remaining = file_size - position;
    if (map_remaining < info.rows + kChecksumBytes)
      throw FileError(path + ": truncated: expected " + Describe(info.rows + kChecksumBytes) +
                      " of NULL map and checksum of column " + spec.name + ", found " +
                      std::to_string(map_remaining));
    position += info.rows + kChecksumBytes;
  }
  if (position != file_size)
    throw FileError(path + ": corrupt: " + Describe(file_size - position) +
                    " after the last column");
  return info;
}

bool IsNaN(const std::byte* value) {
  double real;
  std::memcpy(&real, value, sizeof(real));
  return std::isnan(real);
}

// Whether a NUL byte comes before a non-NUL one in the `width` bytes.
bool HasNulInside(const std::byte* value, std::size_t width) {
  const auto* nul = static_cast<const std::byte*>(std::memchr(value, 0, width));
  return nul != nullptr &&
         std::any_of(nul, value + width, [](std::byte b) { return b != std::byte{0}; });
}

// Refuses values that no clq table holds, which a file whose checksums hold
// can still contain (another program's, or a damaged writer's): a NaN
// (tables hold none, and the expression compiler's proofs assume so), and a
// CHAR value with a NUL byte before a non-NUL one (values are NUL-padded on
// the right and hold no NUL, which the engines' comparisons and string
// functions assume).
void CheckValues(const ColumnSpec& spec, const std::byte* data, RowCount rows,
                 const std::string& path) {
  const bool real = spec.type.type == DataType::kDouble;
  if (!real && spec.type.type != DataType::kChar) return;
  const std::size_t width = spec.type.width;
  ParallelRanges(rows, std::size_t{1} << 20, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t row = begin; row < end; ++row) {
      const std::byte* value = data + row * width;
      if (real ? !IsNaN(value) : !HasNulInside(value, width)) continue;
      throw FileError(path + ": corrupt data in column " + spec.name + ": row " +
                      std::to_string(row + 1) +
                      (real ? " is NaN, which no clq table holds"
                            : " holds a NUL byte inside its value (CHAR values are NUL-padded "
                              "on the right only)"));
    }
  });
}

// Refuses a NULL map that no clq table has: a byte other than 0 and 1, no
// NULL at all (a table's column with none has no map), a NULL row whose
// value bytes are not zero.
void CheckNullMap(const ColumnSpec& spec, const std::uint8_t* map, const std::byte* data,
                  RowCount rows, const std::string& path) {
  const std::size_t width = spec.type.width;
  std::atomic<bool> any_null{false};
  ParallelRanges(rows, std::size_t{1} << 20, 1, [&](std::size_t begin, std::size_t end) {
    bool found = false;
    for (std::size_t row = begin; row < end; ++row) {
      if (map[row] == 0) continue;
      const std::string where =
          path + ": corrupt NULL map of column " + spec.name + ": row " + std::to_string(row + 1);
      if (map[row] != 1)
        throw FileError(where + " holds " + std::to_string(map[row]) + " (1 is NULL, 0 a value)");
      const std::byte* value = data + row * width;
      if (std::any_of(value, value + width, [](std::byte b) { return b != std::byte{0}; }))
        throw FileError(where + " is NULL but its value bytes are not zero");
      found = true;
    }
    if (found) any_null.store(true, std::memory_order_relaxed);
  });
  if (!any_null.load())
    throw FileError(path + ": corrupt NULL map of column " + spec.name +
                    ": the column is marked nullable but holds no NULL");
}

}  // namespace

void WriteFileAtomically(const std::string& path,
                         const std::function<void(std::FILE*, const std::string&)>& write) {
  namespace fs = std::filesystem;
  std::error_code error;
  const bool special = fs::exists(path, error) && !fs::is_regular_file(path, error);
  if (!special) RemoveStaleTemporaryFiles(path);
  const std::string target = special ? path : TemporaryPathFor(path);
  // Messages name `path`, the file the user asked for: the temporary file
  // is clq's business.
  const TemporaryFileGuard guard(special ? std::string() : target);
  try {
    FilePtr file(std::fopen(target.c_str(), "wb"));
    if (!file) throw FileError("cannot create " + path + ": " + std::strerror(errno));
    write(file.get(), path);
    if (std::fclose(file.release()) != 0)
      throw FileError("writing " + path + " failed: " + std::strerror(errno));
    if (!special) {
      fs::rename(target, path, error);
      if (error)
        throw FileError("cannot rename the finished " + target + " to " + path + ": " +
                        error.message());
    }
  } catch (...) {
    if (!special) fs::remove(target, error);
    throw;
  }
}

void WriteTableContents(const Table& table, std::FILE* file, const std::string& name) {
  WriteContents(table, file, name);
}

void WriteTableFile(const Table& table, const std::string& path) {
  WriteFileAtomically(
      path, [&](std::FILE* file, const std::string& name) { WriteContents(table, file, name); });
}

TableFileInfo ReadTableFileInfo(const std::string& path) {
  FilePtr file = OpenForReading(path);
  return ReadHeader(file.get(), path);
}

TablePtr ReadTableFile(const std::string& path, std::string name, std::uint64_t host_memory) {
  FilePtr file = OpenForReading(path);
  return ReadTableContents(file.get(), path, std::move(name), host_memory);
}

TablePtr ReadTableContents(std::FILE* file, const std::string& source, std::string name,
                           std::uint64_t host_memory) {
  TableFileInfo info = ReadHeader(file, source);
  TableBuilder builder(name.empty() ? info.name : std::move(name), info.schema, info.rows,
                       host_memory);
  for (std::size_t c = 0; c < info.schema.size(); ++c) {
    const ColumnSpec& spec = info.schema[c];
    const std::uint64_t bytes = info.rows * spec.type.width;
    std::byte* data = builder.column_data(c);
    AdviseHugePages(data, bytes);
    ReadExactly(file, data, bytes, source, "column " + spec.name);
    std::uint64_t stored_checksum;
    ReadExactly(file, &stored_checksum, kChecksumBytes, source, "checksum of column " + spec.name);
    if (Checksum64(std::span<const std::byte>(data, bytes)) != stored_checksum)
      throw FileError(source + ": corrupt data in column " + spec.name + " (checksum mismatch)");
    CheckValues(spec, data, info.rows, source);
    if (!spec.nullable) continue;
    auto* map = reinterpret_cast<std::byte*>(builder.null_map(c));
    ReadExactly(file, map, info.rows, source, "NULL map of column " + spec.name);
    ReadExactly(file, &stored_checksum, kChecksumBytes, source,
                "checksum of the NULL map of column " + spec.name);
    if (Checksum64(std::span<const std::byte>(map, info.rows)) != stored_checksum)
      throw FileError(source + ": corrupt NULL map of column " + spec.name +
                      " (checksum mismatch)");
    CheckNullMap(spec, builder.null_map(c), data, info.rows, source);
  }
  return builder.Finish();
}

}  // namespace clq
