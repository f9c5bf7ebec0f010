// Device-resident intermediate results.
//
// A DeviceVector is one contiguous device buffer of fixed-width values (the
// output of an expression, a gathered column, join keys) with an optional
// NULL map. RowIds is a vector of 32-bit row ids into a table (late
// materialisation: operators pass row ids and gather columns only where a
// later step or the final result needs them).
//
// Both own their buffers (returned to the engine's pool when destroyed).
// `size` counts elements; a buffer's capacity may be larger.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "common/types.hpp"
#include "runtime/buffer_pool.hpp"
#include "runtime/engine.hpp"

namespace clq {

struct DeviceVector {
  ColumnType type = ColumnType::Int64();
  DeviceBuffer values;  // size * type.width bytes
  DeviceBuffer nulls;   // empty: no NULLs; else size bytes, 1 = NULL
  RowCount size = 0;
  // Integer values: known bounds, evaluated lazily (they may come from
  // column statistics that cost a scan); empty when unknown.
  std::function<std::optional<IntRange>()> range;

  bool has_nulls() const { return !nulls.empty(); }
  std::uint64_t byte_size() const { return size * type.width; }
};

// A read-only view of device values without ownership: a DeviceVector's
// buffers, or one tablet of a table column. `nulls` is a null cl::Buffer when
// no value is NULL. Valid while the viewed buffers live.
struct VectorView {
  cl::Buffer values;
  cl::Buffer nulls;
  ColumnType type = ColumnType::Int64();
  RowCount size = 0;

  bool has_nulls() const { return nulls() != nullptr; }
};

VectorView View(const DeviceVector& vector);

struct RowIds {
  DeviceBuffer ids;  // size uint32 values
  RowCount size = 0;
};

// A device vector of `size` values of `type`, uninitialised, without NULL map.
DeviceVector AllocateVector(Engine& engine, ColumnType type, RowCount size, const char* purpose);
RowIds AllocateRowIds(Engine& engine, RowCount size, const char* purpose);

// Host copies, for results and tests (blocking).
template <typename T>
std::vector<T> DownloadValues(Engine& engine, const DeviceVector& vector);
std::vector<std::uint8_t> DownloadNulls(Engine& engine, const DeviceVector& vector);
std::vector<std::uint32_t> DownloadRowIds(Engine& engine, const RowIds& ids);

// Device copies of host data (blocking), for tests and small inputs.
template <typename T>
DeviceVector UploadValues(Engine& engine, ColumnType type, const std::vector<T>& values);
RowIds UploadRowIds(Engine& engine, const std::vector<std::uint32_t>& ids);

}  // namespace clq
