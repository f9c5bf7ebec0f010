#include "arrow/arrow_export.hpp"

#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/errors.hpp"

namespace clq {
namespace {

struct Exported {
  std::shared_ptr<const QueryResult> shared;
  const QueryResult& result;
  std::vector<bool> large_text;  // per column: TEXT past int32 offsets
  bool batch_sent = false;
  std::string last_error;

  explicit Exported(std::shared_ptr<const QueryResult> r) : shared(std::move(r)), result(*shared) {}
};

std::uint64_t TextBytes(const ResultColumn& column, RowCount rows) {
  std::uint64_t bytes = 0;
  for (RowCount r = 0; r < rows; ++r)
    if (!column.IsNull(r)) bytes += column.TextAt(r).size();
  return bytes;
}

// DATE as date32 (days) and DECIMAL(p, s) as decimal128(p, s): their values
// are converted into buffers of the array (4 and 16 bytes a value).
std::string FormatOf(const ResultColumn& column, bool large_text) {
  switch (column.type) {
    case sql::ValueType::kInteger:
      if (column.logical.is_date()) return "tdD";
      if (column.logical.is_decimal())
        return "d:" + std::to_string(column.logical.precision) + "," +
               std::to_string(column.logical.scale);
      return "l";
    case sql::ValueType::kReal:
      return "g";
    case sql::ValueType::kText:
      return large_text ? "U" : "u";
    case sql::ValueType::kNull:
      return "n";
  }
  return "n";
}

// --- Schemas -------------------------------------------------------------------

struct SchemaHolder {
  std::string format;
  std::string name;
  std::vector<ArrowSchema*> children;
};

void ReleaseSchema(ArrowSchema* schema) {
  auto* holder = static_cast<SchemaHolder*>(schema->private_data);
  for (ArrowSchema* child : holder->children) {
    if (child->release != nullptr) child->release(child);
    delete child;
  }
  delete holder;
  schema->release = nullptr;
}

void FillSchema(ArrowSchema* out, std::string format, std::string name, std::int64_t flags,
                std::vector<ArrowSchema*> children) {
  auto* holder = new SchemaHolder{std::move(format), std::move(name), std::move(children)};
  *out = ArrowSchema{};
  out->format = holder->format.c_str();
  out->name = holder->name.c_str();
  out->flags = flags;
  out->n_children = static_cast<std::int64_t>(holder->children.size());
  out->children = holder->children.empty() ? nullptr : holder->children.data();
  out->release = ReleaseSchema;
  out->private_data = holder;
}

void ExportSchema(const Exported& e, ArrowSchema* out) {
  std::vector<ArrowSchema*> children;
  try {
    for (std::size_t c = 0; c < e.result.columns.size(); ++c) {
      const ResultColumn& column = e.result.columns[c];
      children.push_back(new ArrowSchema{});
      FillSchema(children.back(), FormatOf(column, e.large_text[c]), column.name,
                 ARROW_FLAG_NULLABLE, {});
    }
  } catch (...) {
    for (ArrowSchema* child : children) {
      if (child->release != nullptr) child->release(child);
      delete child;
    }
    throw;
  }
  FillSchema(out, "+s", "", 0, std::move(children));
}

// --- Arrays --------------------------------------------------------------------

// The data buffer of an empty array: consumers may read a pointer, never a
// value, and some refuse a null one.
alignas(64) constexpr std::int64_t kEmptyValues[1] = {0};
const void* const kEmpty = kEmptyValues;

struct ArrayHolder {
  std::shared_ptr<const Exported> keep;  // the result whose buffers are lent
  std::vector<const void*> buffers;
  std::vector<std::uint8_t> validity;
  std::vector<std::int32_t> offsets32;
  std::vector<std::int64_t> offsets64;
  std::vector<char> text;
  std::vector<std::int32_t> dates;     // a DATE column's days
  std::vector<std::int64_t> decimals;  // a DECIMAL column's values, two int64 words each
  std::vector<ArrowArray*> children;
};

void ReleaseArray(ArrowArray* array) {
  auto* holder = static_cast<ArrayHolder*>(array->private_data);
  for (ArrowArray* child : holder->children) {
    if (child->release != nullptr) child->release(child);
    delete child;
  }
  delete holder;
  array->release = nullptr;
}

void FillArray(ArrowArray* out, ArrayHolder* holder, std::int64_t length, std::int64_t null_count) {
  *out = ArrowArray{};
  out->length = length;
  out->null_count = null_count;
  out->n_buffers = static_cast<std::int64_t>(holder->buffers.size());
  out->buffers = holder->buffers.empty() ? nullptr : holder->buffers.data();
  out->n_children = static_cast<std::int64_t>(holder->children.size());
  out->children = holder->children.empty() ? nullptr : holder->children.data();
  out->release = ReleaseArray;
  out->private_data = holder;
}

template <typename Offset>
void TextBuffers(const ResultColumn& column, RowCount rows, std::vector<Offset>& offsets,
                 std::vector<char>& text) {
  offsets.resize(rows + 1);
  offsets[0] = 0;
  for (RowCount r = 0; r < rows; ++r) {
    if (!column.IsNull(r)) {
      const std::string_view s = column.TextAt(r);
      text.insert(text.end(), s.begin(), s.end());
    }
    offsets[r + 1] = static_cast<Offset>(text.size());
  }
}

void ExportColumn(const std::shared_ptr<const Exported>& e, std::size_t c, ArrowArray* out) {
  const ResultColumn& column = e->result.columns[c];
  const RowCount rows = e->result.rows;
  auto holder = std::make_unique<ArrayHolder>();
  holder->keep = e;
  std::int64_t nulls = 0;
  if (column.type == sql::ValueType::kNull) {
    ArrayHolder* h = holder.release();
    FillArray(out, h, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(rows));
    return;
  }
  const void* validity = nullptr;
  if (!column.nulls.empty()) {
    holder->validity.assign((rows + 7) / 8, 0);
    for (RowCount r = 0; r < rows; ++r) {
      if (column.nulls[r] != 0) {
        ++nulls;
      } else {
        holder->validity[r >> 3] =
            static_cast<std::uint8_t>(holder->validity[r >> 3] | (1u << (r & 7)));
      }
    }
    if (nulls > 0) validity = holder->validity.data();
  }
  holder->buffers.push_back(validity);
  switch (column.type) {
    case sql::ValueType::kInteger:
      if (column.logical.is_date()) {
        // Days of a DATE always fit 32 bits (the binder keeps them in range).
        holder->dates.resize(rows);
        for (RowCount r = 0; r < rows; ++r)
          holder->dates[r] = static_cast<std::int32_t>(column.integers[r]);
        holder->buffers.push_back(rows > 0 ? holder->dates.data() : kEmpty);
      } else if (column.logical.is_decimal()) {
        // Little-endian 128-bit two's complement: the value, then its sign.
        holder->decimals.resize(2 * rows);
        for (RowCount r = 0; r < rows; ++r) {
          holder->decimals[2 * r] = column.integers[r];
          holder->decimals[2 * r + 1] = column.integers[r] < 0 ? -1 : 0;
        }
        holder->buffers.push_back(rows > 0 ? holder->decimals.data() : kEmpty);
      } else {
        holder->buffers.push_back(rows > 0 ? column.integers.data() : kEmpty);
      }
      break;
    case sql::ValueType::kReal:
      holder->buffers.push_back(rows > 0 ? column.reals.data() : kEmpty);
      break;
    default:
      if (e->large_text[c]) {
        TextBuffers(column, rows, holder->offsets64, holder->text);
        holder->buffers.push_back(holder->offsets64.data());
      } else {
        TextBuffers(column, rows, holder->offsets32, holder->text);
        holder->buffers.push_back(holder->offsets32.data());
      }
      holder->buffers.push_back(holder->text.empty() ? kEmpty : holder->text.data());
      break;
  }
  ArrayHolder* h = holder.release();
  FillArray(out, h, static_cast<std::int64_t>(rows), nulls);
}

void ExportBatch(const std::shared_ptr<const Exported>& e, ArrowArray* out) {
  auto holder = std::make_unique<ArrayHolder>();
  holder->keep = e;
  holder->buffers.push_back(nullptr);  // a struct's validity: no NULL rows
  try {
    for (std::size_t c = 0; c < e->result.columns.size(); ++c) {
      holder->children.push_back(new ArrowArray{});
      ExportColumn(e, c, holder->children.back());
    }
  } catch (...) {
    for (ArrowArray* child : holder->children) {
      if (child->release != nullptr) child->release(child);
      delete child;
    }
    holder->children.clear();
    throw;
  }
  ArrayHolder* h = holder.release();
  FillArray(out, h, static_cast<std::int64_t>(e->result.rows), 0);
}

// --- The stream ----------------------------------------------------------------

using StreamState = std::shared_ptr<Exported>;

StreamState& State(ArrowArrayStream* stream) {
  return *static_cast<StreamState*>(stream->private_data);
}

int GetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  try {
    ExportSchema(*State(stream), out);
    return 0;
  } catch (const std::exception& error) {
    State(stream)->last_error = error.what();
    return ENOMEM;
  }
}

int GetNext(ArrowArrayStream* stream, ArrowArray* out) {
  StreamState& state = State(stream);
  if (state->batch_sent) {
    *out = ArrowArray{};  // release == nullptr: the end of the stream
    return 0;
  }
  try {
    ExportBatch(state, out);
    state->batch_sent = true;
    return 0;
  } catch (const std::exception& error) {
    state->last_error = error.what();
    return ENOMEM;
  }
}

const char* GetLastError(ArrowArrayStream* stream) {
  const std::string& error = State(stream)->last_error;
  return error.empty() ? nullptr : error.c_str();
}

void ReleaseStream(ArrowArrayStream* stream) {
  delete static_cast<StreamState*>(stream->private_data);
  stream->release = nullptr;
}

}  // namespace

void ExportArrowStream(std::shared_ptr<const QueryResult> result, ArrowArrayStream* out) {
  CLQ_CHECK(result != nullptr, "no result to export");
  auto exported = std::make_shared<Exported>(std::move(result));
  for (const ResultColumn& column : exported->result.columns)
    exported->large_text.push_back(
        column.type == sql::ValueType::kText &&
        TextBytes(column, exported->result.rows) >
            static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()));
  *out = ArrowArrayStream{};
  out->get_schema = GetSchema;
  out->get_next = GetNext;
  out->get_last_error = GetLastError;
  out->release = ReleaseStream;
  out->private_data = new StreamState(std::move(exported));
}

}  // namespace clq
