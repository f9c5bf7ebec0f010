#include "operators/pinned_result_download.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include "common/errors.hpp"
#include "operators/kernel_args.hpp"
#include "runtime/pinned_result_pool.hpp"

namespace clq {
namespace {

constexpr const char* kWidenKernel = "widen_int32";

// widen_int32 (kernels_cl/widen.cl), in order: target[i] = source[first + i]
// for i < n.
struct WidenArgs {
  cl::Buffer source;
  cl_ulong first = 0;
  cl_ulong n = 0;
  cl::Buffer target;
};

void Bind(cl::Kernel& kernel, const WidenArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.source).Add(a.first).Add(a.n).Add(a.target);
  args.Done();
}

// Most bytes of the device buffer an INT32 result is widened into, piece by
// piece: large enough that each DMA runs at the pinned bandwidth, small
// enough not to take a quarter of the device at the end of a query.
constexpr std::uint64_t kWidenPieceBytes = std::uint64_t{256} << 20;

// The device buffer `rows` INT32 values are widened into, in pieces of
// `piece` rows; nullopt where the device (or its memory cap) has no room
// for it: the result then takes the staging path, which needs none.
std::optional<DeviceBuffer> WidenBuffer(Engine& engine, RowCount rows, RowCount& piece) {
  const std::uint64_t tile = engine.tuning().tile_size();
  const std::uint64_t bytes = std::min(engine.pool().max_alloc_bytes(), kWidenPieceBytes);
  const RowCount limit = std::max<RowCount>(bytes / sizeof(std::int64_t) / tile, 1) * tile;
  piece = std::min(rows, limit);
  try {
    return engine.pool().Acquire(piece * sizeof(std::int64_t), "widened result");
  } catch (const DeviceLimitError&) {
    return std::nullopt;
  }
}

// Widens `rows` INT32 values into `target` through `wide` (`piece` rows at
// a time), each piece read in one DMA.
void WidenAndDownload(Engine& engine, const cl::Buffer& source, RowCount rows,
                      const DeviceBuffer& wide, RowCount piece, std::int64_t* target) {
  cl::Kernel& kernel = engine.kernel(kWidenKernel);
  for (RowCount first = 0; first < rows; first += piece) {
    const RowCount n = std::min(piece, rows - first);
    Bind(kernel, WidenArgs{source, first, n, wide.get()});
    engine.Launch(kernel, engine.TilesFor(n), "widen result");
    engine.Download(wide.get(), 0, n * sizeof(std::int64_t), target + first, "download result");
  }
}

// A result vector of `rows` values in a pinned block of `pool`; nullopt
// when the pool has none to give (ordinary memory would be read at a
// fraction of the pinned bandwidth: staging does better there).
template <typename T>
std::optional<ResultVector<T>> PinnedVector(const std::shared_ptr<PinnedResultPool>& pool,
                                            RowCount rows) {
  ResultVector<T> values{UninitialisedAllocator<T>(pool)};
  values.reserve(rows);
  if (!pool->Lent(values.data())) return std::nullopt;
  values.resize(rows);
  return values;
}

}  // namespace

bool DownloadIntoPinnedResult(Engine& engine, ResultColumn& column, const DeviceVector& vector) {
  const std::shared_ptr<PinnedResultPool>& pool = engine.result_pool();
  if (!pool || pool->context()() != engine.context()()) return false;
  if (vector.size * sizeof(std::int64_t) < pool->minimum_bytes()) return false;
  const DataType type = vector.type.type;
  const cl::Buffer& source = vector.values.get();
  if (column.type == sql::ValueType::kInteger &&
      (type == DataType::kInt32 || type == DataType::kInt64)) {
    RowCount piece = 0;
    std::optional<DeviceBuffer> wide;
    if (type == DataType::kInt32) {
      wide = WidenBuffer(engine, vector.size, piece);
      if (!wide) return false;
    }
    std::optional<ResultVector<std::int64_t>> values =
        PinnedVector<std::int64_t>(pool, vector.size);
    if (!values) return false;
    if (type == DataType::kInt32) {
      WidenAndDownload(engine, source, vector.size, *wide, piece, values->data());
    } else {
      engine.Download(source, 0, vector.byte_size(), values->data(), "download result");
    }
    column.integers = std::move(*values);
    return true;
  }
  if (column.type == sql::ValueType::kReal && type == DataType::kDouble) {
    std::optional<ResultVector<double>> values = PinnedVector<double>(pool, vector.size);
    if (!values) return false;
    engine.Download(source, 0, vector.byte_size(), values->data(), "download result");
    column.reals = std::move(*values);
    return true;
  }
  return false;
}

KernelSet PinnedResultKernels(const Engine& engine) {
  KernelSet kernels;
  if (engine.result_pool()) kernels.AddWhenNeeded(kWidenKernel);
  return kernels;
}

}  // namespace clq
