// Arrow arrays built by hand as a producer would (for tests of arrow/):
// columns with their buffers, validity bitmaps, dictionaries, and record
// batches (struct arrays) of them, whose release callbacks count calls.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arrow/arrow_c_abi.hpp"
#include "arrow/arrow_import.hpp"

namespace clq::testing::arrow {

// A producer's column: its buffers and the struct pointing at them.
struct TestColumn {
  std::string format;
  std::string name;
  std::vector<std::uint8_t> validity;
  std::vector<std::uint8_t> values;  // raw bytes, 64-byte aligned by over-allocation
  std::size_t values_shift = 0;      // where the aligned values start in `values`
  std::vector<std::int32_t> offsets;
  std::string chars;
  std::vector<std::string> data_buffers;   // a string view array's long strings
  std::vector<std::int64_t> buffer_sizes;  // and their sizes, its last buffer
  std::int64_t length = 0;
  std::int64_t offset = 0;
  std::int64_t null_count = 0;
  std::shared_ptr<TestColumn> dictionary;
  std::vector<const void*> buffers;
  ArrowArray array{};
  ArrowSchema schema{};
};

inline int g_released = 0;  // structs released through the callbacks below

inline void ReleaseTestArray(ArrowArray* a) {
  ++g_released;
  a->release = nullptr;
}
inline void ReleaseTestSchema(ArrowSchema* s) {
  ++g_released;
  s->release = nullptr;
}

template <typename T>
inline std::shared_ptr<TestColumn> Fixed(std::string format, std::string name, std::vector<T> v,
                                         std::int64_t offset = 0) {
  auto c = std::make_shared<TestColumn>();
  c->format = std::move(format);
  c->name = std::move(name);
  c->values.resize(v.size() * sizeof(T) + 64);
  const auto address = reinterpret_cast<std::uintptr_t>(c->values.data());
  c->values_shift = (64 - address % 64) % 64;
  if (!v.empty()) std::memcpy(c->values.data() + c->values_shift, v.data(), v.size() * sizeof(T));
  c->length = static_cast<std::int64_t>(v.size()) - offset;
  c->offset = offset;
  c->buffers = {nullptr, c->values.data() + c->values_shift};
  return c;
}

inline std::shared_ptr<TestColumn> Strings(std::string name, const std::vector<std::string>& v) {
  auto c = std::make_shared<TestColumn>();
  c->format = "u";
  c->name = std::move(name);
  c->offsets.push_back(0);
  for (const std::string& s : v) {
    c->chars += s;
    c->offsets.push_back(static_cast<std::int32_t>(c->chars.size()));
  }
  c->length = static_cast<std::int64_t>(v.size());
  c->buffers = {nullptr, c->offsets.data(), c->chars.data()};
  return c;
}

// A string view ("vu") column as Polars exports one: strings of at most
// 12 bytes inline in their views, longer ones in `data_buffers` data
// buffers (the i-th long string in buffer i % data_buffers, after a byte of
// padding, so that offsets are not all zero).
inline std::shared_ptr<TestColumn> StringViews(std::string name, const std::vector<std::string>& v,
                                               std::size_t data_buffers = 2) {
  auto c = std::make_shared<TestColumn>();
  c->format = "vu";
  c->name = std::move(name);
  c->values.assign(v.size() * 16, 0);
  c->data_buffers.assign(data_buffers, "");
  std::size_t long_strings = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint8_t* view = c->values.data() + i * 16;
    const auto length = static_cast<std::int32_t>(v[i].size());
    std::memcpy(view, &length, 4);
    if (v[i].size() <= 12) {
      std::memcpy(view + 4, v[i].data(), v[i].size());
      continue;
    }
    const auto buffer = static_cast<std::int32_t>(long_strings++ % data_buffers);
    std::string& data = c->data_buffers[static_cast<std::size_t>(buffer)];
    data += '#';
    const auto offset = static_cast<std::int32_t>(data.size());
    data += v[i];
    std::memcpy(view + 4, v[i].data(), 4);
    std::memcpy(view + 8, &buffer, 4);
    std::memcpy(view + 12, &offset, 4);
  }
  c->length = static_cast<std::int64_t>(v.size());
  c->buffers = {nullptr, c->values.data()};
  for (const std::string& data : c->data_buffers) {
    c->buffers.push_back(data.data());
    c->buffer_sizes.push_back(static_cast<std::int64_t>(data.size()));
  }
  c->buffers.push_back(c->buffer_sizes.data());
  return c;
}

inline void SetNulls(TestColumn& c, const std::vector<bool>& null) {
  c.validity.assign((null.size() + 7) / 8, 0);
  for (std::size_t i = 0; i < null.size(); ++i)
    if (!null[i])
      c.validity[i / 8] = static_cast<std::uint8_t>(c.validity[i / 8] | (1u << (i % 8)));
  c.null_count = static_cast<std::int64_t>(std::count(null.begin(), null.end(), true));
  c.buffers[0] = c.validity.data();
}

inline void Wire(TestColumn& c) {
  c.array = ArrowArray{};
  c.array.length = c.length;
  c.array.offset = c.offset;
  c.array.null_count = c.null_count;
  c.array.n_buffers = static_cast<std::int64_t>(c.buffers.size());
  c.array.buffers = c.buffers.data();
  c.array.release = ReleaseTestArray;
  c.schema = ArrowSchema{};
  c.schema.format = c.format.c_str();
  c.schema.name = c.name.c_str();
  c.schema.release = ReleaseTestSchema;
  if (c.dictionary) {
    Wire(*c.dictionary);
    c.array.dictionary = &c.dictionary->array;
    c.schema.dictionary = &c.dictionary->schema;
  }
}

// A record batch of `columns` (a struct array and its schema).
struct TestBatch {
  std::vector<std::shared_ptr<TestColumn>> columns;
  std::vector<ArrowArray*> arrays;
  std::vector<ArrowSchema*> schemas;
  std::vector<const void*> buffers = {nullptr};
  ArrowArray array{};
  ArrowSchema schema{};
  std::int64_t offset = 0;

  void Wire() {
    arrays.clear();
    schemas.clear();
    for (auto& c : columns) {
      arrow::Wire(*c);
      arrays.push_back(&c->array);
      schemas.push_back(&c->schema);
    }
    array = ArrowArray{};
    array.length = columns.empty() ? 0 : columns[0]->length - offset;
    array.offset = offset;
    array.n_buffers = 1;
    array.buffers = buffers.data();
    array.n_children = static_cast<std::int64_t>(columns.size());
    array.children = arrays.data();
    array.release = ReleaseTestArray;
    schema = ArrowSchema{};
    schema.format = "+s";
    schema.name = "";
    schema.n_children = static_cast<std::int64_t>(columns.size());
    schema.children = schemas.data();
    schema.release = ReleaseTestSchema;
  }
};

inline TablePtr Import(TestBatch& batch) {
  batch.Wire();
  return ImportArrowArray("t", &batch.schema, &batch.array);
}

}  // namespace clq::testing::arrow
