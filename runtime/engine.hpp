// One engine per device: the context, an in-order queue with profiling, every
// kernel of kernels_cl/ built once at construction, a buffer pool and a
// profiler. Operators take an Engine& explicitly; there is no global default.
//
// Construction builds one program from all embedded sources with
// -cl-std=CL1.2 and the device's -D options (runtime/device_tuning.hpp), or
// loads the binary from the program cache (runtime/program_cache.hpp). After
// that no query compiles OpenCL C; on PoCL, which keeps its own kernel cache,
// a kernel's first launch may still generate its machine code (once per
// machine, not per query).
//
// Launch functions only enqueue; Finish() waits. With EngineOptions::sync
// every enqueue is followed by clFinish, so an asynchronous error surfaces at
// the call that caused it. Not thread-safe: one thread drives an engine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/options.hpp"
#include "runtime/buffer_pool.hpp"
#include "runtime/cl.hpp"
#include "runtime/device_info.hpp"
#include "runtime/device_tuning.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/pinned_staging.hpp"
#include "runtime/profiler.hpp"

namespace clq {

class DeviceTableCache;
class PinnedResultPool;
class PinnedStaging;
class Table;

struct ProgramBuildReport {
  double context_seconds = 0;  // wall time to create the context and queue
  double seconds = 0;          // wall time to create the program (build or cache load)
  bool from_cache = false;     // true when the binary came from the program cache
  // PoCL: clq's cache is not used; the driver compiles each kernel when it
  // first runs and caches it itself (runtime/engine.cpp says why).
  bool driver_caches_kernels = false;
  std::string options;
  std::filesystem::path cache_file;  // empty when the cache is disabled
};

class Engine {
 public:
  Engine(const DeviceHandle& device, const EngineOptions& options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The device as the engine treats it: fp64 and 64-bit atomics cleared
  // when EngineOptions::assume_no_fp64 / assume_no_int64_atomics say so.
  const DeviceInfo& info() const { return info_; }
  // The device's own global memory, whatever EngineOptions::device_memory
  // caps: what a driver's memory beside clq's buffers (NVIDIA's mirrors of
  // pinned host blocks) comes out of.
  std::uint64_t own_memory_bytes() const { return own_memory_bytes_; }
  const DeviceTuning& tuning() const { return tuning_; }
  const EngineOptions& options() const { return options_; }
  const ProgramBuildReport& build_report() const { return build_report_; }
  const cl::Context& context() const { return context_; }
  const cl::Device& device() const { return device_; }
  cl::CommandQueue& queue() { return queue_; }
  BufferPool& pool() { return pool_; }
  Profiler& profiler() { return profiler_; }
  // Tables resident on this device (runtime/device_table.hpp).
  DeviceTableCache& tables() { return *tables_; }
  const DeviceTableCache& tables() const { return *tables_; }
  // Pinned blocks for large result columns (runtime/pinned_result_pool.hpp),
  // or null where results take ordinary memory (EngineOptions::pinned_results).
  const std::shared_ptr<PinnedResultPool>& result_pool() const { return result_pool_; }
  // Replaces it (null: none); tests install pools of small blocks.
  void set_result_pool(std::shared_ptr<PinnedResultPool> pool) { result_pool_ = std::move(pool); }
  // Number of tablets `table` has on this device.
  std::size_t TabletCountFor(const Table& table) const;

  // Builds extra kernels (benchmark yardsticks) with this device's options,
  // after the shared headers and common.cl; not cached.
  std::map<std::string, cl::Kernel, std::less<>> BuildExtraKernels(
      std::span<const KernelSource> sources);

  // The kernel of that name; throws InternalError when no such kernel exists.
  cl::Kernel& kernel(std::string_view name);

  // Called with the kernel's name at every launch while set (an empty
  // function stops it): how tests see which kernels a plan launched.
  using LaunchObserver = std::function<void(std::string_view kernel)>;
  void SetLaunchObserver(LaunchObserver observer) { launch_observer_ = std::move(observer); }

  // Work-groups needed to give each `per_group` elements a group.
  std::uint64_t GroupsFor(std::uint64_t elements, std::uint64_t per_group) const {
    return (elements + per_group - 1) / per_group;
  }
  // Work-groups needed to cover `elements` with one tile (WG_SIZE * IPT) each.
  std::uint64_t TilesFor(std::uint64_t elements) const {
    return GroupsFor(elements, tuning_.tile_size());
  }

  // Enqueues `kernel` over `groups` work-groups of WG_SIZE work-items (nothing
  // when groups == 0) and records it under `stage`.
  void Launch(cl::Kernel& kernel, std::uint64_t groups, std::string_view stage);

  // Enqueue host<->device copies (blocking: the host memory may be reused on
  // return) and record them under `stage`.
  void Upload(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
              const void* source, std::string_view stage);
  void Download(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                void* destination, std::string_view stage);
  // Upload of a large host range through pinned staging buffers (double
  // buffered, so the copy into staging overlaps the transfer): several times
  // the bandwidth of a write from ordinary host memory on NVIDIA. Blocking. On
  // CPU devices, where "device" memory is host memory, a plain write.
  void UploadStaged(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                    const void* source, std::string_view stage);
  // An upload of a streamed table's tablet: enqueued on the engine's
  // transfer queue, which the compute queue waits for (a barrier, no host
  // wait), so that it travels while the kernels of the tablet before run.
  // From memory pinned by this context (`pinned`) in one DMA, else through
  // the transfer queue's own pinned staging on GPUs; `keep` holds the
  // source until the device has read it. Returns once enqueued.
  void UploadAhead(const cl::Buffer& buffer, std::uint64_t bytes, const std::byte* source,
                   bool pinned, std::shared_ptr<const void> keep, std::string_view stage);
  // A marker on the compute queue: complete once every command enqueued on
  // it before is.
  cl::Event Mark();
  // Waits for an event of either queue (both flushed first).
  void Wait(const cl::Event& event);
  // A read-only buffer over `bytes` of host memory at `data` (CL_MEM_USE_HOST_PTR:
  // zero-copy on CPU devices). `owner` is kept alive until OpenCL destroys
  // the buffer, whoever holds it last (a kernel argument included).
  cl::Buffer HostView(const std::byte* data, std::uint64_t bytes,
                      std::shared_ptr<const void> owner);
  // Download of a large device range through the same pinned staging buffers
  // (the chunk copied out overlaps the next transfer). Blocking.
  void DownloadStaged(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                      void* destination, std::string_view stage);
  // Download of a device range handed to `consume` in pieces, in order (each
  // valid during its call): through pinned staging for large ranges on GPUs,
  // else one piece mapped in place (on CPU devices no copy at all). For
  // results converted on the way to the host (INT32 widened to INTEGER).
  void DownloadConsumed(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                        const PinnedStaging::ChunkConsumer& consume, std::string_view stage);
  // Device-to-device copy (enqueued only).
  void Copy(const cl::Buffer& source, std::uint64_t source_offset, const cl::Buffer& destination,
            std::uint64_t destination_offset, std::uint64_t bytes, std::string_view stage);
  // Fills `bytes` of `buffer` with a repeated 32-bit pattern (enqueued only).
  void Fill(const cl::Buffer& buffer, std::uint32_t pattern, std::uint64_t offset,
            std::uint64_t bytes, std::string_view stage);

  // Waits for every command of both queues.
  void Finish();

 private:
  // The queue UploadAhead enqueues on, created on first use.
  cl::CommandQueue& TransferQueue();
  // Drops the sources of UploadAhead's transfers that are done (all: waits
  // for them).
  void ReleaseUploadSources(bool all);
  // Prints the program's build log to stderr when the options ask for it.
  void PrintBuildLogIfAsked(const cl::Program& program) const;
  // The pinned staging buffers when a transfer of `bytes` pays for them
  // (GPUs, at least PinnedStaging::kMinimumBytes); nullptr for a direct copy.
  PinnedStaging* StagingFor(std::uint64_t bytes);
  void BuildProgram();
  void AfterEnqueue(const cl::Event& event, std::string_view stage, StageKind kind,
                    std::uint64_t bytes);

  DeviceInfo info_;
  std::uint64_t own_memory_bytes_ = 0;
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  DeviceTuning tuning_;
  EngineOptions options_;
  ProgramBuildReport build_report_;
  cl::Program program_;
  std::map<std::string, cl::Kernel, std::less<>> kernels_;
  std::unordered_map<cl_kernel, std::string> kernel_names_;
  LaunchObserver launch_observer_;
  BufferPool pool_;
  Profiler profiler_;
  std::unique_ptr<PinnedStaging> staging_;  // created on first use by StagingFor
  cl::CommandQueue transfer_queue_;
  std::unique_ptr<PinnedStaging> transfer_staging_;
  // UploadAhead's transfers from host memory and what keeps that memory.
  std::vector<std::pair<cl::Event, std::shared_ptr<const void>>> upload_sources_;
  std::unique_ptr<DeviceTableCache> tables_;
  std::shared_ptr<PinnedResultPool> result_pool_;
};

}  // namespace clq
