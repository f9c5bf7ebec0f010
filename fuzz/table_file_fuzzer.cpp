// libFuzzer target for the table-file reader (ReadTableContents, what
// ReadTableFile and so `clq query --table` run on a file's bytes; the
// layout is storage/table_file.hpp's).
//
// Input: a table file's bytes, read once as they are and, when they reach
// that far, once more with every checksum the layout places recomputed
// (those of the NULL maps too), so that mutations get past the checksums to
// the header's fields (the flags byte included), the column data and the
// NULL maps.
//
// The contract (storage/table_file.hpp): a read returns a table or throws a
// FileError naming the input. Anything else is a finding: an InternalError
// or another exception, a sanitizer's report, an allocation past
// -rss_limit_mb (a size taken from the file without checking it against the
// file's length), or a returned table that breaks an invariant a query
// relies on (columns of one length, at least one column, distinct non-empty
// column names, CHAR values without NUL bytes within their width, DOUBLE
// values that are not NaN, NULL maps of 0 and 1 that hold a NULL, zero
// bytes at NULL rows) or that the writer does not turn back into the same
// bytes (every byte of the format is meaningful, so a difference is a field
// the reader misread or ignored; a version 1 file is compared as the
// version 2 file it becomes: a zero flags byte after each column's width).
//
// Build (clang only): cmake -S . -B build-fuzz -G Ninja -DCLQ_FUZZ=ON
//   -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
//   && cmake --build build-fuzz --target table_file_fuzzer
// Run: build-fuzz/fuzz/table_file_fuzzer -max_total_time=600
//   -rss_limit_mb=2048 -timeout=10 CORPUS  (CORPUS a scratch copy of
//   fuzz/corpus/table_file, which takes the new inputs)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/hash.hpp"
#include "storage/table.hpp"
#include "storage/table_file.hpp"

namespace {

constexpr const char* kSource = "fuzz.clq";

struct CloseFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

[[noreturn]] void Finding(std::string_view what) {
  std::cerr << "table_file_fuzzer: " << what << "\n";
  std::abort();
}

void Expect(bool condition, std::string_view what) {
  if (!condition) Finding(what);
}

// The table file the writer makes of `table`.
std::string Encode(const clq::Table& table) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* stream = open_memstream(&buffer, &size);
  if (stream == nullptr) Finding("open_memstream failed");
  clq::WriteTableContents(table, stream, "memory");
  std::fclose(stream);
  std::string bytes(buffer, size);
  std::free(buffer);
  return bytes;
}

std::string AsVersion2(const std::string& file);

void CheckTable(const clq::Table& table, std::string_view file) {
  Expect(!table.columns().empty(), "a table without columns");
  for (std::size_t c = 0; c < table.columns().size(); ++c) {
    const clq::Column& column = table.column(c);
    Expect(!column.name().empty(), "a column without a name");
    for (std::size_t d = 0; d < c; ++d)
      Expect(!clq::IdentifierEquals(column.name(), table.column(d).name()),
             "two columns named " + column.name());
    Expect(column.rows() == table.rows(), "columns of different lengths");
    const clq::ColumnType type = column.type();
    if (column.nullable()) {
      bool any_null = false;
      for (clq::RowCount r = 0; r < column.rows(); ++r) {
        const std::uint8_t n = column.null_map()[r];
        Expect(n <= 1, "a NULL map byte other than 0 and 1 in column " + column.name());
        if (n == 0) continue;
        any_null = true;
        const std::byte* value = column.bytes() + r * type.width;
        for (std::uint32_t b = 0; b < type.width; ++b)
          Expect(value[b] == std::byte{0},
                 "a NULL row with value bytes in column " + column.name());
      }
      Expect(any_null, "a NULL map without a NULL in column " + column.name());
    }
    if (type.type == clq::DataType::kChar) {
      Expect(type.width >= 1 && type.width <= clq::kMaxCharWidth, "a CHAR width out of range");
      for (clq::RowCount r = 0; r < column.rows(); ++r)
        Expect(column.StringAt(r).find('\0') == std::string_view::npos,
               "a CHAR value of column " + column.name() + " holds a NUL byte");
    } else if (type.type == clq::DataType::kDouble) {
      for (const double value : column.doubles())
        Expect(!std::isnan(value), "DOUBLE column " + column.name() + " holds NaN");
    }
  }
  Expect(Encode(table) == AsVersion2(std::string(file)), "the writer does not give the file back");
}

void Read(const std::string& file) {
  // fmemopen needs a buffer of at least one byte.
  std::string buffer = file.empty() ? std::string(1, '\0') : file;
  std::unique_ptr<std::FILE, CloseFile> stream(fmemopen(buffer.data(), file.size(), "rb"));
  if (!stream) Finding("fmemopen failed");
  clq::TablePtr table;
  try {
    table = clq::ReadTableContents(stream.get(), kSource);
  } catch (const clq::InternalError& e) {
    Finding(e.what());
  } catch (const clq::FileError& e) {
    Expect(std::string_view(e.what()).find(kSource) != std::string_view::npos,
           std::string("an error that does not name the file: ") + e.what());
    return;
  } catch (const std::exception& e) {
    Finding(std::string("unexpected exception: ") + e.what());
  }
  CheckTable(*table, file);
}

// Little-endian fields of a byte string, reading past its end as nothing.
class Fields {
 public:
  Fields(std::string_view bytes, std::size_t pos) : bytes_(bytes), pos_(pos) {}
  template <typename T>
  bool Read(T& value) {
    if (bytes_.size() < sizeof(T) || pos_ > bytes_.size() - sizeof(T)) return false;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  std::size_t position() const { return pos_; }
  bool Skip(std::uint64_t bytes) {
    if (bytes > bytes_.size() - pos_) return false;
    pos_ += bytes;
    return true;
  }

 private:
  std::string_view bytes_;
  std::size_t pos_;
};

// Stores at `at` the checksum of bytes [from, at) when the file holds both.
bool PutChecksum(std::string& file, std::uint64_t from, std::uint64_t at) {
  if (at < from || at > file.size() || file.size() - at < 8) return false;
  const std::uint64_t sum = clq::Checksum64(
      std::as_bytes(std::span(file.data() + from, static_cast<std::size_t>(at - from))));
  std::memcpy(file.data() + at, &sum, 8);
  return true;
}

// Recomputes the checksums the layout places, as far as the header's fields
// say where they are; the rest of the bytes stay as they are.
void RepairChecksums(std::string& file) {
  std::uint32_t version = 0, body = 0;
  if (!Fields(file, 8).Read(version) || !Fields(file, 12).Read(body)) return;
  const std::uint64_t header_end = 16 + std::uint64_t{body};
  if (!PutChecksum(file, 0, header_end)) return;
  Fields header(std::string_view(file).substr(0, header_end), 16);
  std::uint64_t rows = 0;
  std::uint32_t length = 0, columns = 0;
  if (!header.Read(rows) || !header.Read(length) || !header.Skip(length) || !header.Read(columns))
    return;
  if (rows > file.size()) return;
  std::uint64_t position = header_end + 8;
  for (std::uint32_t c = 0; c < columns; ++c) {
    std::uint8_t type = 0, flags = 0;
    std::uint32_t width = 0;
    if (!header.Read(length) || !header.Skip(length) || !header.Read(type) || !header.Read(width))
      return;
    if (version >= 2 && !header.Read(flags)) return;
    if (width != 0 && rows > file.size() / width) return;
    const std::uint64_t end = position + rows * width;
    if (!PutChecksum(file, position, end)) return;
    position = end + 8;
    if ((flags & 1) == 0) continue;
    if (!PutChecksum(file, position, position + rows)) return;
    position += rows + 8;
  }
}

// A version 1 file as the version 2 file that holds the same table (a zero
// flags byte after each column's width); other files as they are.
std::string AsVersion2(const std::string& file) {
  std::uint32_t version = 0, body = 0;
  if (!Fields(file, 8).Read(version) || version != 1 || !Fields(file, 12).Read(body)) return file;
  const std::uint64_t header_end = 16 + std::uint64_t{body};
  Fields header(std::string_view(file).substr(0, header_end), 16);
  std::uint64_t rows = 0;
  std::uint32_t length = 0, columns = 0;
  if (!header.Read(rows) || !header.Read(length) || !header.Skip(length) || !header.Read(columns))
    return file;
  std::string upgraded = file;
  std::size_t inserted = 0;
  for (std::uint32_t c = 0; c < columns; ++c) {
    std::uint8_t type = 0;
    std::uint32_t width = 0;
    if (!header.Read(length) || !header.Skip(length) || !header.Read(type) || !header.Read(width))
      return file;
    upgraded.insert(header.position() + inserted, 1, '\0');
    ++inserted;
  }
  const std::uint32_t new_version = 2;
  const std::uint32_t new_body = body + static_cast<std::uint32_t>(inserted);
  std::memcpy(upgraded.data() + 8, &new_version, 4);
  std::memcpy(upgraded.data() + 12, &new_body, 4);
  PutChecksum(upgraded, 0, 16 + std::uint64_t{new_body});
  return upgraded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file(reinterpret_cast<const char*>(data), size);
  Read(file);
  std::string repaired = file;
  RepairChecksums(repaired);
  if (repaired != file) Read(repaired);
  return 0;
}
