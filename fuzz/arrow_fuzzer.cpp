// libFuzzer target for the Arrow importer (ImportArrowArray and
// ImportArrowStream, arrow/arrow_import.hpp: what the Python module runs on
// the Arrow C structs pyarrow, pandas, Polars or DuckDB hand it).
//
// The C Data interface carries no buffer sizes: a consumer must trust that
// each buffer is as long as the array's length, offset and string offsets
// say, and the specification puts that on the producer. So this target is a
// producer that is valid in structure, and the input chooses everything
// else: the number of columns (0 to 4), each column's format (every one the
// importer accepts, dictionaries of them with any index format, dictionaries
// of dictionaries, null (every value NULL), and formats it refuses: date,
// decimal, float16, timestamp, fixed-size binary, struct, binary, string
// view), names
// (empty, duplicates, case variants, arbitrary bytes), lengths and the array
// and batch offsets, null counts (0, -1 for unknown, the real count) and
// validity bitmaps, the values' bytes (so uint64 past INT64, NaN, strings
// with NUL bytes or longer than a CHAR holds, dictionary indices out of
// range or negative), string offsets (inside the data buffer; a decreasing
// pair now and then), ImportArrowArray or a stream of 0 to 3 batches whose
// get_schema or get_next may fail with a message, and whether the schema is
// a struct at all. Every buffer is allocated at exactly the size the
// structure implies, so that ASan reports a read past it; the columns that
// ask for it get 64-byte aligned buffers, which the zero-copy path needs.
//
// Input: bytes read in order, zeros past the end (so a short input is a
// small, valid table). A header byte (bits 0-1: columns - 1; bit 2: a
// stream; bit 3: the top level is the first column's array, not a struct;
// bit 4: a struct of no columns), a stream byte (bits 0-1: batches; bit 2:
// get_schema fails; bit 3: get_next fails, at the batch of bits 4-5; bit 6:
// get_last_error gives no message), each column's type (a format byte:
// bits 0-4 the format, bits 5-6 both set a dictionary, bit 7 aligned
// buffers; a dictionary's index format byte and value type after it), then
// its name byte; then each batch: its length, offset and validity, and each
// column's array (offset, spare length, validity, values). Readers below
// name each field. ARROW_FUZZER_VERBOSE=1 prints each input's outcome.
//
// The contract (arrow/arrow_import.hpp): an import returns a table or throws
// an InvalidInputError, and this target knows which from what it produced
// (the importer's rules written out again: a type it cannot store, a
// duplicate name, a uint64 past INT64, NaN, a dictionary index out of range,
// decreasing string offsets, a NUL byte in a string or one longer than
// kMaxCharWidth, a failing stream, each only at a row that is not NULL; a
// row is NULL where the struct's, the column's or (through a valid index)
// the dictionary's validity bit is clear, and in a column of the null
// type). Anything else is a finding: a crash, a
// sanitizer's report, an InternalError or another exception, an error where
// a table was due or a table where an error was, an error about a value
// that names no column, a table whose row count, columns, names, types or
// values or NULLs differ from what the producer put there (integers widened,
// float32 widened exactly, bools 0 or 1, strings NUL-padded CHAR of the
// longest one's width, zero bytes at NULL rows), a column not read in place where the importer
// promises it (one batch of int32, int64, float64 or date32, 64-byte aligned) or read in place from a batch
// already released, a struct handed over that is not released exactly once (a batch read in place
// only when the table goes, the rest by the time the import returns or throws), a caller's struct
// not marked released, or a stream called after an error or after its release.
//
// Build (clang only): cmake -S . -B build-fuzz -G Ninja -DCLQ_FUZZ=ON
//   -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
//   && cmake --build build-fuzz --target arrow_fuzzer
// Run: build-fuzz/fuzz/arrow_fuzzer -max_total_time=600 -rss_limit_mb=2048
//   -timeout=10 CORPUS  (CORPUS a scratch copy of fuzz/corpus/arrow, which
//   takes the new inputs)
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arrow/arrow_c_abi.hpp"
#include "arrow/arrow_import.hpp"
#include "common/errors.hpp"
#include "storage/table.hpp"

namespace {

[[noreturn]] void Finding(std::string_view what) {
  std::cerr << "arrow_fuzzer: " << what << "\n";
  std::abort();
}

void Expect(bool condition, std::string_view what) {
  if (!condition) Finding(what);
}

// The input's bytes in order, zeros past its end.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  void Fill(std::byte* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<std::byte>(Byte());
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// How a format's arrays are laid out, and what the importer makes of them.
enum class Layout : std::uint8_t {
  kFixed,   // validity, values of `width` bytes
  kBool,    // validity, values of one bit
  kText32,  // validity, int32 offsets, bytes
  kText64,  // validity, int64 offsets, bytes
  kView,    // validity, 16-byte views (all inline), variadic sizes (none)
  kNull,    // no buffers
  kStruct,  // validity, no children
};
enum class Stored : std::uint8_t { kRefused, kInt32, kInt64, kDouble, kChar, kDate, kDecimal };

struct Format {
  const char* format;
  Layout layout;
  std::size_t width;  // bytes of a kFixed value
  Stored stored;
  bool is_signed = false;  // of an integer
  bool is_float = false;
};

constexpr Format kFormats[] = {
    {"c", Layout::kFixed, 1, Stored::kInt32, true},
    {"C", Layout::kFixed, 1, Stored::kInt32},
    {"s", Layout::kFixed, 2, Stored::kInt32, true},
    {"S", Layout::kFixed, 2, Stored::kInt32},
    {"i", Layout::kFixed, 4, Stored::kInt32, true},
    {"I", Layout::kFixed, 4, Stored::kInt64},
    {"l", Layout::kFixed, 8, Stored::kInt64, true},
    {"L", Layout::kFixed, 8, Stored::kInt64},
    {"f", Layout::kFixed, 4, Stored::kDouble, false, true},
    {"g", Layout::kFixed, 8, Stored::kDouble, false, true},
    {"b", Layout::kBool, 0, Stored::kInt32},
    {"u", Layout::kText32, 0, Stored::kChar},
    {"U", Layout::kText64, 0, Stored::kChar},
    {"vu", Layout::kView, 0, Stored::kChar},
    // date32 as DATE (the days as they are); decimal128(10, 2) as DECIMAL(10, 2),
    // each value refused unless it fits 64 bits.
    {"tdD", Layout::kFixed, 4, Stored::kDate, true},
    {"d:10,2", Layout::kFixed, 16, Stored::kDecimal},
    // Formats clq cannot store, each laid out as the specification says.
    {"e", Layout::kFixed, 2, Stored::kRefused},
    {"tsu:", Layout::kFixed, 8, Stored::kRefused},
    {"w:4", Layout::kFixed, 4, Stored::kRefused},
    {"n", Layout::kNull, 0, Stored::kInt32},  // stored: every row NULL
    {"+s", Layout::kStruct, 0, Stored::kRefused},
    {"z", Layout::kText32, 0, Stored::kRefused},
};
constexpr std::size_t kFormatCount = std::size(kFormats);
constexpr std::size_t kIntegerFormats = 8;  // kFormats[0..8): the integer types

bool IsInteger(const Format& f) {
  return &f < kFormats + kIntegerFormats;
}

// A column's type: a format, or for a dictionary the indices' format and the
// values' type.
struct Type {
  const Format* format = nullptr;
  std::unique_ptr<Type> dictionary;
  bool aligned = false;  // its buffers 64-byte aligned
};

std::unique_ptr<Type> ReadType(Input& in, int depth) {
  auto type = std::make_unique<Type>();
  const std::uint8_t b = in.Byte();
  type->aligned = (b & 0x80) != 0;
  if ((b & 0x60) == 0x60 && depth < 2) {
    const std::uint8_t index = in.Byte();
    // Mostly an integer index type, the ones the specification allows.
    type->format =
        &kFormats[(index & 0x80) != 0 ? (index & 0x7f) % kFormatCount : index % kIntegerFormats];
    type->dictionary = ReadType(in, depth + 1);
    type->dictionary->aligned = type->aligned;
  } else {
    type->format = &kFormats[(b & 0x1f) % kFormatCount];
  }
  return type;
}

// Whether the importer can store the column: its formats are accepted, a
// dictionary's indices are integers and its values are no dictionary.
bool Storable(const Type& type) {
  if (type.dictionary)
    return IsInteger(*type.format) && !type.dictionary->dictionary &&
           type.dictionary->format->stored != Stored::kRefused;
  return type.format->stored != Stored::kRefused;
}

Stored StoredAs(const Type& type) {
  return type.dictionary ? type.dictionary->format->stored : type.format->stored;
}

std::string ReadName(Input& in) {
  static constexpr const char* kNames[] = {
      "",    "a", "A", "b",      "B",        "column 1", "Column 2", "COLUMN 3", "column 4",
      "a b", "x", "X", "select", "\xc3\xa4", "\xc3\x84", "_",        "order",    "column 01"};
  const std::uint8_t b = in.Byte();
  if (b < 0xf0) return kNames[b % std::size(kNames)];
  std::string name(b & 0x0f, ' ');
  for (char& c : name)
    c = static_cast<char>(std::max<std::uint8_t>(in.Byte(), 1));  // C strings hold no NUL
  return name;
}

// A count of elements: mostly a few, now and then a few hundred.
std::int64_t ReadLength(Input& in) {
  const std::uint8_t b = in.Byte();
  return b < 0xf0 ? b % 12 : (b - 0xef) * 24;
}

// An offset: mostly 0 to 2, now and then a multiple of 8 (which keeps a
// 64-byte aligned buffer's values aligned for int64 and float64).
std::int64_t ReadOffset(Input& in) {
  const std::uint8_t b = in.Byte();
  return b < 0xf0 ? b % 3 : (b - 0xf0) * 8;
}

// A buffer of exactly `size` bytes, 64-byte aligned or wherever malloc puts
// it, freed with its array.
struct Buffer {
  std::byte* data = nullptr;
  std::size_t size = 0;
  Buffer(std::size_t bytes, bool aligned) : size(bytes) {
    void* p = nullptr;
    if (aligned) {
      if (posix_memalign(&p, 64, bytes) != 0) p = nullptr;
    } else {
      p = std::malloc(bytes);
    }
    if (p == nullptr) Finding("out of memory");
    data = static_cast<std::byte*>(p);
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// A struct handed over to the importer: how often it was released.
struct Tracker {
  int releases = 0;
  bool handed = false;
  std::vector<std::pair<const std::byte*, std::size_t>> buffers;  // a batch's, for zero-copy
};

// An array as the producer holds it: its buffers, children and dictionary.
struct ArrayNode {
  std::int64_t length = 0;
  std::int64_t offset = 0;
  std::int64_t null_count = 0;
  std::vector<std::unique_ptr<Buffer>> owned;
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<ArrayNode>> children;
  std::vector<ArrowArray*> child_arrays;
  std::unique_ptr<ArrayNode> dictionary;
  ArrowArray array{};

  std::byte* Add(std::size_t bytes, bool aligned) {
    owned.push_back(std::make_unique<Buffer>(bytes, aligned));
    buffers.push_back(owned.back()->data);
    return owned.back()->data;
  }
  const std::byte* At(std::size_t buffer) const {
    return static_cast<const std::byte*>(buffers[buffer]);
  }
  bool IsNull(std::int64_t element) const {
    if (null_count == 0 || buffers.empty() || buffers[0] == nullptr) return false;
    const auto bits = static_cast<std::uint8_t>(At(0)[element >> 3]);
    return ((bits >> (element & 7)) & 1) == 0;
  }
  void CollectBuffers(Tracker& tracker) const {
    for (const auto& b : owned)
      tracker.buffers.emplace_back(b->data, b->size);
    for (const auto& c : children)
      c->CollectBuffers(tracker);
    if (dictionary) dictionary->CollectBuffers(tracker);
  }
};

struct SchemaNode {
  std::string format;
  std::string name;
  std::vector<std::unique_ptr<SchemaNode>> children;
  std::vector<ArrowSchema*> child_schemas;
  std::unique_ptr<SchemaNode> dictionary;
  ArrowSchema schema{};
};

// What a handed-over struct's private_data points at: its tracker and the
// tree it owns until released.
struct Handle {
  Tracker* tracker = nullptr;
  std::unique_ptr<ArrayNode> array;
  std::unique_ptr<SchemaNode> schema;
};

void ReleaseChildArray(ArrowArray* a);
void ReleaseChildSchema(ArrowSchema* s);

// Releases the children (those the consumer did not move out), as a
// producer's release must.
void ReleaseChildrenOf(ArrayNode& node) {
  for (auto& c : node.children)
    if (c->array.release != nullptr) c->array.release(&c->array);
  if (node.dictionary && node.dictionary->array.release != nullptr)
    node.dictionary->array.release(&node.dictionary->array);
}
void ReleaseChildrenOf(SchemaNode& node) {
  for (auto& c : node.children)
    if (c->schema.release != nullptr) c->schema.release(&c->schema);
  if (node.dictionary && node.dictionary->schema.release != nullptr)
    node.dictionary->schema.release(&node.dictionary->schema);
}

void ReleaseChildArray(ArrowArray* a) {
  ReleaseChildrenOf(*static_cast<ArrayNode*>(a->private_data));
  a->release = nullptr;
}
void ReleaseChildSchema(ArrowSchema* s) {
  ReleaseChildrenOf(*static_cast<SchemaNode*>(s->private_data));
  s->release = nullptr;
}

// A top-level struct's release frees its whole tree, so that a read of the
// values after it is a use after free.
void ReleaseArray(ArrowArray* a) {
  auto* handle = static_cast<Handle*>(a->private_data);
  a->release = nullptr;
  if (++handle->tracker->releases > 1) Finding("an Arrow array was released twice");
  ReleaseChildrenOf(*handle->array);
  handle->array.reset();
}
void ReleaseSchema(ArrowSchema* s) {
  auto* handle = static_cast<Handle*>(s->private_data);
  s->release = nullptr;
  if (++handle->tracker->releases > 1) Finding("an Arrow schema was released twice");
  ReleaseChildrenOf(*handle->schema);
  handle->schema.reset();
}

void WireArray(ArrayNode& node) {
  ArrowArray& a = node.array;
  a = ArrowArray{};
  a.length = node.length;
  a.offset = node.offset;
  a.null_count = node.null_count;
  a.n_buffers = static_cast<std::int64_t>(node.buffers.size());
  a.buffers = node.buffers.empty() ? nullptr : node.buffers.data();
  node.child_arrays.clear();
  for (auto& c : node.children) {
    WireArray(*c);
    node.child_arrays.push_back(&c->array);
  }
  a.n_children = static_cast<std::int64_t>(node.children.size());
  a.children = node.child_arrays.empty() ? nullptr : node.child_arrays.data();
  if (node.dictionary) {
    WireArray(*node.dictionary);
    a.dictionary = &node.dictionary->array;
  }
  a.release = ReleaseChildArray;
  a.private_data = &node;
}

void WireSchema(SchemaNode& node) {
  ArrowSchema& s = node.schema;
  s = ArrowSchema{};
  s.format = node.format.c_str();
  s.name = node.name.c_str();
  s.flags = ARROW_FLAG_NULLABLE;
  node.child_schemas.clear();
  for (auto& c : node.children) {
    WireSchema(*c);
    node.child_schemas.push_back(&c->schema);
  }
  s.n_children = static_cast<std::int64_t>(node.children.size());
  s.children = node.child_schemas.empty() ? nullptr : node.child_schemas.data();
  if (node.dictionary) {
    WireSchema(*node.dictionary);
    s.dictionary = &node.dictionary->schema;
  }
  s.release = ReleaseChildSchema;
  s.private_data = &node;
}

std::unique_ptr<SchemaNode> MakeSchema(const Type& type, std::string name) {
  auto node = std::make_unique<SchemaNode>();
  node->format = type.format->format;
  node->name = std::move(name);
  if (type.dictionary) node->dictionary = MakeSchema(*type.dictionary, "");
  return node;
}

// The validity bitmap of the node's offset + length elements: none (null
// count 0 or -1, unknown), all valid (null count 0), or the input's bits
// with a null count of -1 or the real count of the length elements after
// the offset.
void AddValidity(ArrayNode& node, Input& in, bool aligned) {
  const std::int64_t elements = node.offset + node.length;
  const std::size_t bytes = static_cast<std::size_t>((elements + 7) / 8);
  const std::uint8_t mode = in.Byte() % 5;
  if (mode == 0 || mode == 4) {
    node.buffers.push_back(nullptr);
    node.null_count = mode == 0 ? 0 : -1;
    return;
  }
  std::byte* bits = node.Add(bytes, aligned);
  if (mode == 1) {
    std::memset(bits, 0xff, bytes);
    node.null_count = 0;
    return;
  }
  in.Fill(bits, bytes);
  if (mode == 2) {
    node.null_count = -1;
    return;
  }
  node.null_count = 1;  // so that IsNull reads the bits
  std::int64_t nulls = 0;
  for (std::int64_t e = node.offset; e < elements; ++e)
    nulls += node.IsNull(e) ? 1 : 0;
  node.null_count = nulls;
}

// Strings' offsets and bytes: each element's length byte is a short string
// of the input's bytes, a string of one repeated byte around kMaxCharWidth
// long, or (0xff) an offset below the previous one.
template <typename Offset>
void AddText(ArrayNode& node, Input& in, bool aligned) {
  const std::int64_t elements = node.offset + node.length;
  std::vector<Offset> offsets;
  std::vector<std::byte> bytes;
  std::int64_t at = in.Byte() % 4;  // the first offset need not be 0
  offsets.push_back(static_cast<Offset>(at));
  bytes.resize(static_cast<std::size_t>(at), std::byte{'j'});
  for (std::int64_t e = 0; e < elements; ++e) {
    const std::uint8_t code = in.Byte();
    if (code == 0xff && at > 0) {
      at -= 1 + in.Byte() % at;
    } else {
      std::size_t n = code % 32;
      std::optional<std::uint8_t> repeated;
      if (code >= 0xf0) {
        n = clq::kMaxCharWidth - 16 + (code - 0xf0) * 4u;
        repeated = in.Byte();
      }
      const auto begin = static_cast<std::size_t>(at);
      if (bytes.size() < begin + n) bytes.resize(begin + n);
      for (std::size_t i = 0; i < n; ++i)
        bytes[begin + i] = static_cast<std::byte>(repeated ? *repeated : in.Byte());
      at += static_cast<std::int64_t>(n);
    }
    offsets.push_back(static_cast<Offset>(at));
  }
  std::byte* o = node.Add(offsets.size() * sizeof(Offset), aligned);
  std::memcpy(o, offsets.data(), offsets.size() * sizeof(Offset));
  // A producer may pass no data buffer when it is empty.
  if (bytes.empty() && (in.Byte() & 1) != 0) {
    node.buffers.push_back(nullptr);
  } else {
    std::byte* d = node.Add(bytes.size(), aligned);
    if (!bytes.empty()) std::memcpy(d, bytes.data(), bytes.size());
  }
}

// Fills `elements` dictionary indices of format `f` with values in range,
// one past the range, or the input's raw bytes (negative, huge).
void FillIndices(std::byte* values, std::int64_t elements, const Format& f,
                 std::int64_t dictionary_length, Input& in) {
  const bool raw = in.Byte() % 4 == 3;
  for (std::int64_t e = 0; e < elements; ++e) {
    std::byte* value = values + e * static_cast<std::int64_t>(f.width);
    if (raw) {
      in.Fill(value, f.width);
    } else {
      const std::uint64_t index = in.Byte() % static_cast<std::uint64_t>(dictionary_length + 1);
      std::memcpy(value, &index, f.width);  // little-endian: the low bytes
    }
  }
}

std::unique_ptr<ArrayNode> MakeArray(const Type& type, std::int64_t needed, Input& in) {
  auto node = std::make_unique<ArrayNode>();
  const Format& f = *type.format;
  const bool aligned = type.aligned;
  node->offset = ReadOffset(in);
  node->length = needed + in.Byte() % 3;
  const std::int64_t elements = node->offset + node->length;
  if (f.layout == Layout::kNull)
    node->null_count = node->length;
  else
    AddValidity(*node, in, aligned);
  switch (f.layout) {
    case Layout::kFixed: {
      const std::size_t bytes = static_cast<std::size_t>(elements) * f.width;
      std::byte* values = node->Add(bytes, aligned);
      if (type.dictionary && IsInteger(f)) {
        node->dictionary = MakeArray(*type.dictionary, ReadLength(in) % 8, in);
        FillIndices(values, elements, f, node->dictionary->length, in);
      } else {
        in.Fill(values, bytes);
      }
      break;
    }
    case Layout::kBool: {
      const std::size_t bytes = static_cast<std::size_t>((elements + 7) / 8);
      in.Fill(node->Add(bytes, aligned), bytes);
      break;
    }
    case Layout::kText32:
      AddText<std::int32_t>(*node, in, aligned);
      break;
    case Layout::kText64:
      AddText<std::int64_t>(*node, in, aligned);
      break;
    case Layout::kView: {
      const std::size_t bytes = static_cast<std::size_t>(elements) * 16;
      std::byte* views = node->Add(bytes, aligned);
      std::memset(views, 0, bytes);
      for (std::int64_t e = 0; e < elements; ++e) {
        const std::int32_t n = in.Byte() % 13;  // inline: no data buffer
        std::memcpy(views + e * 16, &n, 4);
        in.Fill(views + e * 16 + 4, static_cast<std::size_t>(n));
      }
      node->Add(0, aligned);  // the variadic buffers' sizes: none
      break;
    }
    case Layout::kNull:
    case Layout::kStruct:
      break;
  }
  // A dictionary whose index format is not an integer still needs one.
  if (type.dictionary && !node->dictionary)
    node->dictionary = MakeArray(*type.dictionary, ReadLength(in) % 8, in);
  return node;
}

// What a row of a column should come out as.
struct Value {
  bool null = false;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;
};

std::int64_t ReadIntegerAt(const ArrayNode& node, const Format& f, std::int64_t element,
                           bool& past_int64) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, node.At(1) + element * static_cast<std::int64_t>(f.width), f.width);
  past_int64 = false;
  if (f.is_signed && f.width < 8 && ((bits >> (f.width * 8 - 1)) & 1) != 0)
    bits |= ~std::uint64_t{0} << (f.width * 8);  // sign-extend
  if (!f.is_signed && f.width == 8 && bits > static_cast<std::uint64_t>(INT64_MAX))
    past_int64 = true;
  return static_cast<std::int64_t>(bits);
}

// Element `element` of `node` (of a storable `type`) as the importer should
// read it, or the reason it must refuse it.
std::optional<Value> Expected(const Type& type, const ArrayNode& node, std::int64_t element,
                              std::string& refusal) {
  const Format& f = *type.format;
  Value v;
  if ((f.layout == Layout::kNull && !type.dictionary) || node.IsNull(element)) {
    v.null = true;
    return v;
  }
  if (type.dictionary) {
    bool past = false;
    const std::int64_t index = ReadIntegerAt(node, f, element, past);
    const ArrayNode& dictionary = *node.dictionary;
    if (past || index < 0 || index >= dictionary.length) {
      refusal = "a dictionary index out of range";
      return std::nullopt;
    }
    return Expected(*type.dictionary, dictionary, dictionary.offset + index, refusal);
  }
  switch (f.layout) {
    case Layout::kFixed:
      if (f.is_float) {
        if (f.width == 4) {
          float x;
          std::memcpy(&x, node.At(1) + element * 4, 4);
          v.real = static_cast<double>(x);
        } else {
          std::memcpy(&v.real, node.At(1) + element * 8, 8);
        }
        if (std::isnan(v.real)) {
          refusal = "NaN";
          return std::nullopt;
        }
      } else if (f.stored == Stored::kDecimal) {
        // Little-endian 128 bits: the low word, then the high word, which
        // must be the low word's sign for the value to fit 64 bits.
        std::int64_t words[2];
        std::memcpy(words, node.At(1) + element * 16, 16);
        if (words[1] != (words[0] < 0 ? -1 : 0)) {
          refusal = "a decimal past 64 bits";
          return std::nullopt;
        }
        v.integer = words[0];
      } else {
        bool past = false;
        v.integer = ReadIntegerAt(node, f, element, past);
        if (past) {
          refusal = "a uint64 past INT64";
          return std::nullopt;
        }
      }
      return v;
    case Layout::kBool:
      v.integer = (static_cast<std::uint8_t>(node.At(1)[element >> 3]) >> (element & 7)) & 1;
      return v;
    case Layout::kText32:
    case Layout::kText64: {
      std::int64_t begin = 0, end = 0;
      if (f.layout == Layout::kText32) {
        std::int32_t o[2];
        std::memcpy(o, node.At(1) + element * 4, 8);
        begin = o[0];
        end = o[1];
      } else {
        std::memcpy(&begin, node.At(1) + element * 8, 8);
        std::memcpy(&end, node.At(1) + element * 8 + 8, 8);
      }
      if (end < begin) {
        refusal = "decreasing string offsets";
        return std::nullopt;
      }
      if (end > begin)
        v.text.assign(reinterpret_cast<const char*>(node.At(2)) + begin,
                      static_cast<std::size_t>(end - begin));
      if (v.text.find('\0') != std::string::npos) {
        refusal = "a NUL byte in a string";
        return std::nullopt;
      }
      if (v.text.size() > clq::kMaxCharWidth) {
        refusal = "a string longer than CHAR holds";
        return std::nullopt;
      }
      return v;
    }
    case Layout::kView: {
      // All inline here (MakeArray): length, then up to 12 bytes in the view.
      std::int32_t length = 0;
      std::memcpy(&length, node.At(1) + element * 16, 4);
      v.text.assign(reinterpret_cast<const char*>(node.At(1)) + element * 16 + 4,
                    static_cast<std::size_t>(length));
      if (v.text.find('\0') != std::string::npos) {
        refusal = "a NUL byte in a string";
        return std::nullopt;
      }
      return v;
    }
    default:
      break;
  }
  Finding("the model met a format clq cannot store");
}

// One import: what the producer made and what must come out.
struct Case {
  bool stream = false;
  bool struct_top = true;
  std::vector<std::unique_ptr<Type>> types;
  std::vector<std::string> names;
  std::unique_ptr<SchemaNode> schema;
  std::vector<std::unique_ptr<ArrayNode>> batches;
  int get_next_fails_at = -1;    // a stream's get_next fails at this batch (-1: never)
  bool schema_fails = false;     // a stream's get_schema fails
  bool error_message = true;     // get_last_error gives a message
  std::deque<Tracker> trackers;  // of the schema, then each batch, then the stream
  std::deque<Handle> handles;
};

constexpr const char* kProducerError = "producer error: the source could not be read";

// The stream's state, reachable from its private_data.
struct StreamState {
  Case* c = nullptr;
  std::size_t next = 0;
  bool failed = false;
  bool released = false;
  bool schema_given = false;
};

int StreamGetSchema(ArrowArrayStream* s, ArrowSchema* out) {
  auto* st = static_cast<StreamState*>(s->private_data);
  Expect(!st->released, "get_schema called on a released stream");
  Expect(!st->failed, "get_schema called after the stream failed");
  Expect(!st->schema_given, "get_schema called twice");
  if (st->c->schema_fails) {
    st->failed = true;
    return EINVAL;
  }
  st->schema_given = true;
  Case& c = *st->c;
  c.trackers[0].handed = true;
  Handle& h = c.handles.emplace_back();
  h.tracker = &c.trackers[0];
  h.schema = std::move(c.schema);
  *out = h.schema->schema;
  out->release = ReleaseSchema;
  out->private_data = &h;
  return 0;
}

int StreamGetNext(ArrowArrayStream* s, ArrowArray* out) {
  auto* st = static_cast<StreamState*>(s->private_data);
  Expect(!st->released, "get_next called on a released stream");
  Expect(!st->failed, "get_next called after the stream failed");
  Case& c = *st->c;
  if (c.get_next_fails_at >= 0 && st->next == static_cast<std::size_t>(c.get_next_fails_at)) {
    st->failed = true;
    return EIO;
  }
  if (st->next == c.batches.size()) {
    *out = ArrowArray{};  // the end: a released array
    return 0;
  }
  const std::size_t b = st->next++;
  Tracker& t = c.trackers[1 + b];
  t.handed = true;
  Handle& h = c.handles.emplace_back();
  h.tracker = &t;
  h.array = std::move(c.batches[b]);
  *out = h.array->array;
  out->release = ReleaseArray;
  out->private_data = &h;
  return 0;
}

const char* StreamLastError(ArrowArrayStream* s) {
  auto* st = static_cast<StreamState*>(s->private_data);
  Expect(!st->released, "get_last_error called on a released stream");
  return st->c->error_message ? kProducerError : nullptr;
}

// Frees what was never handed over, as a producer's stream release does.
void StreamRelease(ArrowArrayStream* s) {
  auto* st = static_cast<StreamState*>(s->private_data);
  s->release = nullptr;
  Case& c = *st->c;
  if (++c.trackers.back().releases > 1) Finding("the Arrow stream was released twice");
  st->released = true;
  c.schema.reset();
  for (auto& b : c.batches)
    b.reset();
}

// The row count, each column's type and values, or the reason for a
// refusal, of what the producer made.
struct Outcome {
  std::string refusal;     // empty: a table is due
  bool of_values = false;  // refused for a value, which the message must place
  clq::RowCount rows = 0;
  std::vector<clq::ColumnType> types;
  std::vector<std::vector<Value>> values;
};

Outcome Predict(const Case& c) {
  Outcome o;
  if (c.stream && c.schema_fails) {
    o.refusal = "get_schema fails";
    return o;
  }
  if (c.stream && c.get_next_fails_at >= 0) {
    o.refusal = "get_next fails";
    return o;
  }
  if (!c.struct_top) {
    o.refusal = "not a struct";
    return o;
  }
  if (c.types.empty()) {
    o.refusal = "no columns";
    return o;
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < c.types.size(); ++i) {
    if (!Storable(*c.types[i])) {
      o.refusal = "a type clq cannot store";
      return o;
    }
    names.push_back(c.names[i].empty() ? "column " + std::to_string(i + 1) : c.names[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (clq::IdentifierEquals(names[i], names[j])) {
        o.refusal = "a duplicate name";
        return o;
      }
  }
  o.values.resize(c.types.size());
  o.of_values = true;
  for (const auto& batch : c.batches) {
    for (std::int64_t r = 0; r < batch->length; ++r) {
      // A NULL row of the struct is NULL in every column, whatever the
      // children hold.
      if (batch->IsNull(batch->offset + r)) {
        for (std::size_t i = 0; i < c.types.size(); ++i)
          o.values[i].push_back(Value{.null = true});
        continue;
      }
      for (std::size_t i = 0; i < c.types.size(); ++i) {
        const ArrayNode& child = *batch->children[i];
        std::optional<Value> v =
            Expected(*c.types[i], child, child.offset + batch->offset + r, o.refusal);
        if (!v) return o;
        o.values[i].push_back(std::move(*v));
      }
    }
    o.rows += static_cast<clq::RowCount>(batch->length);
  }
  for (std::size_t i = 0; i < c.types.size(); ++i) {
    switch (StoredAs(*c.types[i])) {
      case Stored::kInt32:
        o.types.push_back(clq::ColumnType::Int32());
        break;
      case Stored::kInt64:
        o.types.push_back(clq::ColumnType::Int64());
        break;
      case Stored::kDouble:
        o.types.push_back(clq::ColumnType::Double());
        break;
      case Stored::kDate:
        o.types.push_back(clq::ColumnType::Date());
        break;
      case Stored::kDecimal:
        o.types.push_back(clq::ColumnType::Decimal(10, 2));
        break;
      default: {
        std::size_t width = 1;
        for (const Value& v : o.values[i])
          if (!v.null) width = std::max(width, v.text.size());
        o.types.push_back(clq::ColumnType::Char(static_cast<std::uint32_t>(width)));
        break;
      }
    }
  }
  return o;
}

Case ReadCase(Input& in) {
  Case c;
  const std::uint8_t header = in.Byte();
  c.stream = (header & 0x04) != 0;
  c.struct_top = (header & 0x08) == 0;
  const std::size_t columns = (header & 0x10) != 0 && c.struct_top ? 0 : 1 + (header & 3);
  const std::uint8_t stream = in.Byte();
  std::size_t batch_count = 1;
  if (c.stream) {
    batch_count = stream & 3;
    c.schema_fails = (stream & 0x04) != 0;
    if ((stream & 0x08) != 0) c.get_next_fails_at = ((stream >> 4) & 3) % (batch_count + 1);
    c.error_message = (stream & 0x40) == 0;
  }
  // A non-struct top level is the first column's type and array.
  const std::size_t types = std::max<std::size_t>(columns, c.struct_top ? 0 : 1);
  for (std::size_t i = 0; i < types; ++i) {
    c.types.push_back(ReadType(in, 0));
    c.names.push_back(ReadName(in));
  }
  if (c.struct_top) {
    c.schema = std::make_unique<SchemaNode>();
    c.schema->format = "+s";
    for (std::size_t i = 0; i < columns; ++i)
      c.schema->children.push_back(MakeSchema(*c.types[i], c.names[i]));
  } else {
    c.schema = MakeSchema(*c.types[0], c.names[0]);
  }
  WireSchema(*c.schema);
  for (std::size_t b = 0; b < batch_count; ++b) {
    if (!c.struct_top) {
      c.batches.push_back(MakeArray(*c.types[0], ReadLength(in), in));
    } else {
      auto batch = std::make_unique<ArrayNode>();
      batch->length = ReadLength(in);
      batch->offset = ReadOffset(in);
      AddValidity(*batch, in, false);
      for (std::size_t i = 0; i < columns; ++i)
        batch->children.push_back(MakeArray(*c.types[i], batch->offset + batch->length, in));
      c.batches.push_back(std::move(batch));
    }
    WireArray(*c.batches.back());
  }
  c.trackers.resize(1 + c.batches.size() + (c.stream ? 1 : 0));
  for (std::size_t b = 0; b < c.batches.size(); ++b)
    c.batches[b]->CollectBuffers(c.trackers[1 + b]);
  return c;
}

// The batch whose buffers hold `p`, or -1.
int BatchHolding(const Case& c, const std::byte* p) {
  const std::size_t batches = c.trackers.size() - 1 - (c.stream ? 1 : 0);
  for (std::size_t b = 0; b < batches; ++b)
    for (const auto& [data, size] : c.trackers[1 + b].buffers)
      if (p >= data && p < data + size) return static_cast<int>(b);
  return -1;
}

void CheckTable(const Case& c, const Outcome& o, const clq::Table& table,
                const std::vector<const std::byte*>& in_place) {
  Expect(table.name() == "t", "the table lost its name");
  Expect(table.rows() == o.rows, "the row count is not the sum of the batches' lengths");
  Expect(table.columns().size() == c.types.size(), "the column count differs from the schema's");
  for (std::size_t i = 0; i < c.types.size(); ++i) {
    const clq::Column& column = table.column(i);
    const std::string name = c.names[i].empty() ? "column " + std::to_string(i + 1) : c.names[i];
    Expect(column.name() == name, "column " + name + " is named " + column.name());
    Expect(column.type() == o.types[i], "column " + name + " has the wrong type");
    Expect(column.rows() == o.rows, "columns of different lengths");
    // Read in place exactly where the importer promises it.
    const int holder = BatchHolding(c, column.bytes());
    if (in_place[i] != nullptr) {
      Expect(column.bytes() == in_place[i], "column " + name + " was not read in place");
    } else {
      Expect(holder < 0, "column " + name + " was read in place where it must be copied");
    }
    if (holder >= 0)
      Expect(c.trackers[1 + static_cast<std::size_t>(holder)].releases == 0,
             "column " + name + " is read in place from a released batch");
    const std::uint32_t width = o.types[i].width;
    for (clq::RowCount r = 0; r < o.rows; ++r) {
      const Value& want = o.values[i][r];
      const std::string at = "column " + name + ", row " + std::to_string(r + 1);
      Expect(column.IsNull(r) == want.null, at + (want.null ? ": not NULL" : ": NULL"));
      if (want.null) {
        for (std::uint32_t b = 0; b < width; ++b)
          Expect(column.bytes()[r * width + b] == std::byte{0}, at + ": a NULL with value bytes");
        continue;
      }
      switch (o.types[i].type) {
        case clq::DataType::kInt32:
        case clq::DataType::kInt64:
          Expect(column.IntegerAt(r) == want.integer, at + ": a wrong integer");
          break;
        case clq::DataType::kDouble: {
          const double got = column.RealAt(r);
          Expect(std::memcmp(&got, &want.real, sizeof got) == 0, at + ": a wrong double");
          break;
        }
        case clq::DataType::kChar: {
          std::string padded = want.text;
          padded.resize(width, '\0');
          Expect(std::memcmp(column.bytes() + r * width, padded.data(), width) == 0,
                 at + ": a wrong string");
          break;
        }
      }
    }
  }
}

// Where each column must be read in place (single batch of int32, int64,
// float64 or date32 whose first value is 64-byte aligned), else null.
std::vector<const std::byte*> InPlace(const Case& c, const Outcome& o) {
  std::vector<const std::byte*> where(c.types.size(), nullptr);
  if (c.batches.size() != 1 || o.rows == 0) return where;
  const ArrayNode& batch = *c.batches[0];
  for (std::size_t i = 0; i < c.types.size(); ++i) {
    const Type& t = *c.types[i];
    const std::string_view format = t.format->format;
    if (t.dictionary || (format != "i" && format != "l" && format != "g" && format != "tdD"))
      continue;
    // A column with a NULL is copied, its values at NULL rows zeroed.
    if (std::any_of(o.values[i].begin(), o.values[i].end(), [](const Value& v) { return v.null; }))
      continue;
    const ArrayNode& child = *batch.children[i];
    const std::byte* first =
        child.At(1) + (child.offset + batch.offset) * static_cast<std::int64_t>(t.format->width);
    if (reinterpret_cast<std::uintptr_t>(first) % clq::kHostBlockAlignment == 0) where[i] = first;
  }
  return where;
}

void Run(Case& c) {
  const Outcome want = Predict(c);
  const std::vector<const std::byte*> in_place =
      want.refusal.empty() ? InPlace(c, want) : std::vector<const std::byte*>();
  std::string failure;
  clq::TablePtr table;
  ArrowSchema schema{};
  ArrowArray array{};
  ArrowArrayStream stream{};
  StreamState state;
  try {
    if (c.stream) {
      state.c = &c;
      stream.get_schema = StreamGetSchema;
      stream.get_next = StreamGetNext;
      stream.get_last_error = StreamLastError;
      stream.release = StreamRelease;
      stream.private_data = &state;
      c.trackers.back().handed = true;
      table = clq::ImportArrowStream("t", &stream);
    } else {
      Handle& hs = c.handles.emplace_back();
      hs.tracker = &c.trackers[0];
      hs.schema = std::move(c.schema);
      schema = hs.schema->schema;
      schema.release = ReleaseSchema;
      schema.private_data = &hs;
      c.trackers[0].handed = true;
      Handle& ha = c.handles.emplace_back();
      ha.tracker = &c.trackers[1];
      ha.array = std::move(c.batches[0]);
      array = ha.array->array;
      array.release = ReleaseArray;
      array.private_data = &ha;
      c.trackers[1].handed = true;
      table = clq::ImportArrowArray("t", &schema, &array);
    }
  } catch (const clq::InternalError& e) {
    Finding(std::string("InternalError: ") + e.what());
  } catch (const clq::InvalidInputError& e) {
    failure = e.what();
    Expect(!failure.empty(), "an empty error message");
  } catch (const std::exception& e) {
    Finding(std::string("unexpected exception: ") + e.what());
  }
  if (std::getenv("ARROW_FUZZER_VERBOSE") != nullptr)
    std::cerr << "arrow_fuzzer: " << c.types.size() << " column(s), " << c.batches.size()
              << (c.stream ? " batch(es) in a stream" : " batch") << "; due: "
              << (want.refusal.empty() ? std::to_string(want.rows) + " row(s)" : want.refusal)
              << "; got: " << (table ? std::to_string(table->rows()) + " row(s)" : failure)
              << "; read in place: "
              << std::count_if(in_place.begin(), in_place.end(),
                               [](auto p) { return p != nullptr; })
              << "\n";
  if (c.stream) {
    Expect(stream.release == nullptr, "the caller's stream is not marked released");
  } else {
    Expect(schema.release == nullptr && array.release == nullptr,
           "the caller's schema or array is not marked released");
  }
  if (!want.refusal.empty()) {
    Expect(!table, "a table from Arrow data with " + want.refusal);
    if (want.of_values)
      Expect(failure.find("column '") != std::string::npos,
             "an error about a value that names no column: " + failure);
    if (c.stream && c.get_next_fails_at >= 0 && c.error_message)
      Expect(failure.find(kProducerError) != std::string::npos,
             "the error does not pass on the stream's message: " + failure);
  } else {
    Expect(table != nullptr, "refused valid Arrow data: " + failure);
    // The schema goes at once, so do the batches no column reads in place.
    Expect(c.trackers[0].releases == 1, "the schema is not released by the import");
    CheckTable(c, want, *table, in_place);
    for (std::size_t b = 1; b < 1 + c.batches.size(); ++b) {
      bool kept = false;
      for (const std::byte* p : in_place)
        kept = kept || (p != nullptr && BatchHolding(c, p) == static_cast<int>(b - 1));
      Expect(c.trackers[b].releases == (kept ? 0 : 1),
             kept ? "a batch read in place was released while its table lives"
                  : "a batch was not released by the import");
    }
    table.reset();
  }
  for (const Tracker& t : c.trackers)
    Expect(t.releases == (t.handed ? 1 : 0),
           t.handed ? "a struct handed over was not released exactly once"
                    : "a struct never handed over was released");
  if (c.stream && !state.released) Finding("the stream was not released");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  Case c = ReadCase(in);
  Run(c);
  return 0;
}
