#include "operators/device_vector.hpp"

#include "common/errors.hpp"

namespace clq {

VectorView View(const DeviceVector& vector) {
  return {vector.values.get(), vector.has_nulls() ? vector.nulls.get() : cl::Buffer(), vector.type,
          vector.size};
}

DeviceVector AllocateVector(Engine& engine, ColumnType type, RowCount size, const char* purpose) {
  DeviceVector vector;
  vector.type = type;
  vector.size = size;
  vector.values = engine.pool().Acquire(size * type.width, purpose);
  return vector;
}

RowIds AllocateRowIds(Engine& engine, RowCount size, const char* purpose) {
  if (size > kMaxTableRows) throw DeviceLimitError(std::string(purpose) + ": too many rows");
  RowIds ids;
  ids.size = size;
  ids.ids = engine.pool().Acquire(size * sizeof(std::uint32_t), purpose);
  return ids;
}

template <typename T>
std::vector<T> DownloadValues(Engine& engine, const DeviceVector& vector) {
  CLQ_CHECK(sizeof(T) == vector.type.width || vector.type.type == DataType::kChar,
            "DownloadValues with a mismatched element size");
  std::vector<T> host(vector.byte_size() / sizeof(T));
  engine.Download(vector.values.get(), 0, vector.byte_size(), host.data(), "download vector");
  return host;
}

template std::vector<std::int32_t> DownloadValues(Engine&, const DeviceVector&);
template std::vector<std::uint32_t> DownloadValues(Engine&, const DeviceVector&);
template std::vector<std::int64_t> DownloadValues(Engine&, const DeviceVector&);
template std::vector<std::uint64_t> DownloadValues(Engine&, const DeviceVector&);
template std::vector<double> DownloadValues(Engine&, const DeviceVector&);
template std::vector<char> DownloadValues(Engine&, const DeviceVector&);

std::vector<std::uint8_t> DownloadNulls(Engine& engine, const DeviceVector& vector) {
  std::vector<std::uint8_t> host(vector.size, 0);
  if (vector.has_nulls())
    engine.Download(vector.nulls.get(), 0, vector.size, host.data(), "download NULL map");
  return host;
}

std::vector<std::uint32_t> DownloadRowIds(Engine& engine, const RowIds& ids) {
  std::vector<std::uint32_t> host(ids.size);
  engine.Download(ids.ids.get(), 0, ids.size * sizeof(std::uint32_t), host.data(),
                  "download row ids");
  return host;
}

template <typename T>
DeviceVector UploadValues(Engine& engine, ColumnType type, const std::vector<T>& values) {
  CLQ_CHECK(sizeof(T) == type.width, "UploadValues with a mismatched element size");
  DeviceVector vector = AllocateVector(engine, type, values.size(), "uploaded vector");
  engine.Upload(vector.values.get(), 0, vector.byte_size(), values.data(), "upload vector");
  return vector;
}

template DeviceVector UploadValues(Engine&, ColumnType, const std::vector<std::int32_t>&);
template DeviceVector UploadValues(Engine&, ColumnType, const std::vector<std::int64_t>&);
template DeviceVector UploadValues(Engine&, ColumnType, const std::vector<double>&);

RowIds UploadRowIds(Engine& engine, const std::vector<std::uint32_t>& host) {
  RowIds ids = AllocateRowIds(engine, host.size(), "uploaded row ids");
  engine.Upload(ids.ids.get(), 0, host.size() * sizeof(std::uint32_t), host.data(),
                "upload row ids");
  return ids;
}

}  // namespace clq
