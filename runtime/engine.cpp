#include "runtime/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "common/errors.hpp"
#include "common/hash.hpp"
#include "runtime/cl_error.hpp"
#include "runtime/device_table.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/pinned_result_pool.hpp"
#include "runtime/pinned_staging.hpp"
#include "runtime/program_cache.hpp"

namespace clq {
namespace {

// Everything a compiled binary depends on.
std::string ProgramKey(const DeviceInfo& info, const std::string& options) {
  std::uint64_t source_hash = Fnv1a64("");
  for (const KernelSource& source : EmbeddedKernelSources())
    source_hash = Fnv1a64(source.text, Fnv1a64(source.file_name, source_hash));
  char hash_text[32];
  std::snprintf(hash_text, sizeof(hash_text), "%016llx",
                static_cast<unsigned long long>(source_hash));
  return "clq-program-v1\nplatform=" + info.platform_name + " " + info.platform_version +
         "\ndevice=" + info.name + "\nvendor=" + info.vendor + "\ndriver=" + info.driver_version +
         "\ndevice_version=" + info.device_version + "\noptions=" + options +
         "\nsources=" + hash_text;
}

// PoCL compiles a kernel when it is first enqueued and keeps it in its own
// on-disk cache (POCL_CACHE_DIR), keyed by sources, options and device. Asking
// it for the program binary instead compiles every kernel at once, many
// times the cost of clBuildProgram, while a query uses two to five of them.
// So on PoCL clq exports no binary and lets PoCL cache what is used; a warm
// build from source then costs next to nothing.
bool DriverCachesKernelsItself(const DeviceInfo& info) {
  return info.IsPocl();
}

std::uint64_t RetainLimit(const DeviceInfo& info) {
  return info.global_mem_bytes / 4;
}

}  // namespace

namespace {

// The device as the engine treats it: without the capabilities the options
// tell it to assume absent.
DeviceInfo AssumedInfo(DeviceInfo info, const EngineOptions& options) {
  if (options.assume_no_fp64) info.fp64 = false;
  if (options.assume_no_int64_atomics) info.int64_atomics = false;
  // A device-memory cap: the device as if it had no more memory (OpenCL's
  // own floor for the largest allocation is a quarter of global memory).
  if (options.device_memory > 0) {
    info.global_mem_bytes = std::min(info.global_mem_bytes, options.device_memory);
    info.max_alloc_bytes = std::min(info.max_alloc_bytes, info.global_mem_bytes / 4);
  }
  return info;
}

// The pool of pinned result blocks where the options or the device call for
// one: devices that stage their transfers (not CPUs, which read host memory
// in place) gain a DMA at the pinned bandwidth straight into the result.
std::shared_ptr<PinnedResultPool> ResultPoolFor(const DeviceInfo& info,
                                                const EngineOptions& options,
                                                const cl::Context& context,
                                                const cl::Device& device) {
  if (!Decide(options.pinned_results, info.kind != DeviceKind::kCpu)) return nullptr;
  std::uint64_t kept = 0;
  if (options.pinned_results_kept) {
    kept = *options.pinned_results_kept;
  } else {
    // NVIDIA mirrors each pinned block in device memory, so free blocks kept
    // for reuse take device memory from the tables too.
    kept = std::min(options.host_memory / 4, info.global_mem_bytes / 4);
  }
  return std::make_shared<PinnedResultPool>(context, device, kept);
}

}  // namespace

Engine::Engine(const DeviceHandle& device, const EngineOptions& options)
    : info_(AssumedInfo(device.info, options)),
      own_memory_bytes_(device.info.global_mem_bytes),
      device_(device.device),
      tuning_(ChooseTuning(info_, options)),
      options_(options),
      pool_(cl::Context(), 0, 0) {
  const auto start = std::chrono::steady_clock::now();
  try {
    context_ = cl::Context(device_);
    queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "creating a context and queue on " + info_.name);
  }
  build_report_.context_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool capped = options.device_memory > 0;
  pool_ = BufferPool(context_, info_.max_alloc_bytes, RetainLimit(info_),
                     capped ? info_.global_mem_bytes : 0);
  BuildProgram();
  // Under a cap, tables are copied in tablets whose numeric columns take at
  // most 1/16 of it (a CHAR column 1/8), so that the few columns a step
  // reads, two tablets of each while the next uploads, fit the half of it
  // tables may hold; evicted least recently used first, a table larger than
  // the cap streams.
  tables_ = std::make_unique<DeviceTableCache>(
      *this, info_.global_mem_bytes / 2,
      capped ? TableResidency::kCopy : DefaultTableResidency(*this), options.tablet_rows,
      capped ? info_.global_mem_bytes / 16 : 0);
  pool_.set_reclaim(
      [tables = tables_.get()](bool everything) { tables->ReleaseForRoom(everything); });
  try {
    result_pool_ = ResultPoolFor(info_, options_, context_, device_);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "creating the pinned result pool's queue on " + info_.name);
  }
}

Engine::~Engine() {
  try {
    if (transfer_queue_()) transfer_queue_.finish();
    queue_.finish();
  } catch (const cl::Error&) {
    // The device failed; its transfers are gone with it.
  }
}

std::size_t Engine::TabletCountFor(const Table& table) const {
  return tables_->Tablets(table).size();
}

void Engine::BuildProgram() {
  const auto start = std::chrono::steady_clock::now();
  const std::string build_options = BuildOptions(info_, tuning_);
  const std::string key = ProgramKey(info_, build_options);
  build_report_.driver_caches_kernels = DriverCachesKernelsItself(info_);
  ProgramCache cache(options_.use_program_cache && !build_report_.driver_caches_kernels
                         ? options_.cache_directory
                         : std::filesystem::path());
  build_report_.options = build_options;
  if (cache.enabled()) build_report_.cache_file = cache.PathFor(key);

  const std::vector<cl::Device> devices{device_};
  if (auto binary = cache.Load(key)) {
    try {
      cl::Program program(context_, devices, cl::Program::Binaries{*binary});
      program.build(devices, build_options.c_str());
      program_ = program;
      build_report_.from_cache = true;
    } catch (const cl::Error&) {
      // A stale or foreign binary: fall through to a build from source.
    }
  }
  if (!build_report_.from_cache) {
    cl::Program::Sources sources;
    for (const KernelSource& source : EmbeddedKernelSources())
      sources.emplace_back(source.text);
    cl::Program program;
    try {
      program = cl::Program(context_, sources);
      program.build(devices, build_options.c_str());
    } catch (const cl::Error& error) {
      std::string log;
      try {
        log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
      } catch (const cl::Error&) {
      }
      throw DeviceError(
          error.what(), error.err(),
          "building the kernels for " + info_.name + " with options '" + build_options + "'", log);
    }
    program_ = program;
    PrintBuildLogIfAsked(program);
    if (cache.enabled()) {
      try {
        const auto binaries = program_.getInfo<CL_PROGRAM_BINARIES>();
        if (!binaries.empty()) cache.Store(key, binaries.front());
      } catch (const cl::Error&) {
        // Some drivers cannot export binaries; the cache is only an optimisation.
      }
    }
  }

  try {
    std::vector<cl::Kernel> kernels;
    program_.createKernels(&kernels);
    for (cl::Kernel& kernel : kernels) {
      std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
      while (!name.empty() && name.back() == '\0')
        name.pop_back();
      const std::size_t limit = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_);
      if (limit < tuning_.work_group_size) {
        throw DeviceLimitError("kernel " + name + " runs at most " + std::to_string(limit) +
                               " work-items per group on " + info_.name + ", fewer than WG_SIZE " +
                               std::to_string(tuning_.work_group_size) +
                               "; set the work-group size (CLQ_WG_SIZE) to a smaller power of "
                               "two");
      }
      kernel_names_.emplace(kernel(), name);
      kernels_.emplace(std::move(name), kernel);
    }
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "creating kernels on " + info_.name);
  }
  build_report_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Engine::PrintBuildLogIfAsked(const cl::Program& program) const {
  // For kernel work: with NVIDIA's -cl-nv-verbose (extra build options) the
  // log holds ptxas's registers and spills per kernel, as the driver built them.
  if (!options_.print_build_log) return;
  try {
    std::fprintf(stderr, "%s\n", program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_).c_str());
  } catch (const cl::Error&) {
  }
}

std::map<std::string, cl::Kernel, std::less<>> Engine::BuildExtraKernels(
    std::span<const KernelSource> extra) {
  cl::Program::Sources sources;
  for (const KernelSource& source : EmbeddedKernelSources()) {
    const std::string name = source.file_name;
    if (name == "common.cl" || name.ends_with(".h")) sources.emplace_back(source.text);
  }
  for (const KernelSource& source : extra)
    sources.emplace_back(source.text);
  const std::string options = BuildOptions(info_, tuning_);
  cl::Program program;
  try {
    program = cl::Program(context_, sources);
    program.build(std::vector<cl::Device>{device_}, options.c_str());
  } catch (const cl::Error& error) {
    std::string log;
    try {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
    } catch (const cl::Error&) {
    }
    throw DeviceError(error.what(), error.err(), "building extra kernels for " + info_.name, log);
  }
  PrintBuildLogIfAsked(program);
  std::vector<cl::Kernel> kernels;
  program.createKernels(&kernels);
  std::map<std::string, cl::Kernel, std::less<>> result;
  for (cl::Kernel& kernel : kernels) {
    std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
    while (!name.empty() && name.back() == '\0')
      name.pop_back();
    result.emplace(std::move(name), kernel);
  }
  return result;
}

cl::Kernel& Engine::kernel(std::string_view name) {
  auto it = kernels_.find(name);
  if (it == kernels_.end()) throw InternalError("no kernel named " + std::string(name));
  return it->second;
}

void Engine::AfterEnqueue(const cl::Event& event, std::string_view stage, StageKind kind,
                          std::uint64_t bytes) {
  profiler_.Record(stage, kind, event, bytes);
  if (options_.sync) {
    try {
      queue_.finish();
    } catch (const cl::Error& error) {
      throw TranslateClError(error, "finishing stage " + std::string(stage) + " (CLQ_SYNC)");
    }
  }
}

void Engine::Launch(cl::Kernel& kernel, std::uint64_t groups, std::string_view stage) {
  if (groups == 0) return;
  cl::Event event;
  try {
    queue_.enqueueNDRangeKernel(kernel, cl::NullRange,
                                cl::NDRange(groups * tuning_.work_group_size),
                                cl::NDRange(tuning_.work_group_size), nullptr, &event);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "launching stage " + std::string(stage));
  }
  if (launch_observer_) {
    const auto name = kernel_names_.find(kernel());
    launch_observer_(name == kernel_names_.end() ? std::string_view("(extra kernel)")
                                                 : std::string_view(name->second));
  }
  AfterEnqueue(event, stage, StageKind::kKernel, 0);
}

void Engine::Upload(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                    const void* source, std::string_view stage) {
  if (bytes == 0) return;
  cl::Event event;
  try {
    queue_.enqueueWriteBuffer(buffer, CL_TRUE, offset, bytes, source, nullptr, &event);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "uploading " + std::string(stage));
  }
  AfterEnqueue(event, stage, StageKind::kUpload, bytes);
}

void Engine::Download(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                      void* destination, std::string_view stage) {
  if (bytes == 0) return;
  cl::Event event;
  try {
    queue_.enqueueReadBuffer(buffer, CL_TRUE, offset, bytes, destination, nullptr, &event);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "downloading " + std::string(stage));
  }
  AfterEnqueue(event, stage, StageKind::kDownload, bytes);
}

PinnedStaging* Engine::StagingFor(std::uint64_t bytes) {
  // CPU devices share host memory: staging would only add a copy.
  if (info_.kind == DeviceKind::kCpu || bytes < PinnedStaging::kMinimumBytes) return nullptr;
  if (!staging_) staging_ = std::make_unique<PinnedStaging>(context_, queue_);
  return staging_.get();
}

cl::Buffer Engine::HostView(const std::byte* data, std::uint64_t bytes,
                            std::shared_ptr<const void> owner) {
  try {
    // The device only reads it (CL_MEM_READ_ONLY), so the const_cast never
    // leads to a write of the host table.
    cl::Buffer buffer(context_, cl_mem_flags{CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR}, bytes,
                      static_cast<void*>(const_cast<std::byte*>(data)));
    auto* keep = new std::shared_ptr<const void>(std::move(owner));
    const cl_int status = clSetMemObjectDestructorCallback(
        buffer(),
        [](cl_mem, void* user) { delete static_cast<std::shared_ptr<const void>*>(user); }, keep);
    if (status != CL_SUCCESS) {
      delete keep;
      throw cl::Error(status, "clSetMemObjectDestructorCallback");
    }
    return buffer;
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "creating a view of a host column");
  }
}

void Engine::UploadStaged(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                          const void* source, std::string_view stage) {
  PinnedStaging* staging = StagingFor(bytes);
  if (staging == nullptr) {
    Upload(buffer, offset, bytes, source, stage);
    return;
  }
  try {
    staging->Upload(buffer, offset, bytes, static_cast<const std::byte*>(source),
                    [&](const cl::Event& event, std::uint64_t chunk) {
                      profiler_.Record(stage, StageKind::kUpload, event, chunk);
                    });
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "uploading " + std::string(stage));
  }
}

void Engine::DownloadStaged(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                            void* destination, std::string_view stage) {
  if (StagingFor(bytes) == nullptr) {
    Download(buffer, offset, bytes, destination, stage);
    return;
  }
  // Staged: each pinned chunk copied into place as it arrives.
  auto* target = static_cast<std::byte*>(destination);
  DownloadConsumed(
      buffer, offset, bytes,
      [target](std::uint64_t at, const std::byte* data, std::uint64_t size) {
        ParallelCopy(target + at, data, size);
      },
      stage);
}

void Engine::DownloadConsumed(const cl::Buffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                              const PinnedStaging::ChunkConsumer& consume, std::string_view stage) {
  if (bytes == 0) return;
  try {
    if (PinnedStaging* staging = StagingFor(bytes)) {
      staging->Download(buffer, offset, bytes, consume,
                        [&](const cl::Event& event, std::uint64_t chunk) {
                          profiler_.Record(stage, StageKind::kDownload, event, chunk);
                        });
      return;
    }
    cl::Event event;
    void* mapped =
        queue_.enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_READ, offset, bytes, nullptr, &event);
    AfterEnqueue(event, stage, StageKind::kDownload, bytes);
    const auto unmap = [&] {
      cl::Event done;
      queue_.enqueueUnmapMemObject(buffer, mapped, nullptr, &done);
      done.wait();
    };
    try {
      consume(0, static_cast<const std::byte*>(mapped), bytes);
    } catch (...) {
      unmap();
      throw;
    }
    unmap();
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "downloading " + std::string(stage));
  }
}

void Engine::Copy(const cl::Buffer& source, std::uint64_t source_offset,
                  const cl::Buffer& destination, std::uint64_t destination_offset,
                  std::uint64_t bytes, std::string_view stage) {
  if (bytes == 0) return;
  cl::Event event;
  try {
    queue_.enqueueCopyBuffer(source, destination, source_offset, destination_offset, bytes, nullptr,
                             &event);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "copying " + std::string(stage));
  }
  AfterEnqueue(event, stage, StageKind::kDeviceCopy, bytes);
}

void Engine::Fill(const cl::Buffer& buffer, std::uint32_t pattern, std::uint64_t offset,
                  std::uint64_t bytes, std::string_view stage) {
  if (bytes == 0) return;
  cl::Event event;
  try {
    queue_.enqueueFillBuffer(buffer, pattern, offset, bytes, nullptr, &event);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "filling " + std::string(stage));
  }
  AfterEnqueue(event, stage, StageKind::kDeviceCopy, bytes);
}

void Engine::Finish() {
  try {
    if (transfer_queue_()) transfer_queue_.finish();
    queue_.finish();
    ReleaseUploadSources(true);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "waiting for the device");
  }
}

cl::CommandQueue& Engine::TransferQueue() {
  if (!transfer_queue_()) {
    try {
      transfer_queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE);
    } catch (const cl::Error& error) {
      throw TranslateClError(error, "creating a transfer queue on " + info_.name);
    }
  }
  return transfer_queue_;
}

void Engine::ReleaseUploadSources(bool all) {
  std::erase_if(upload_sources_, [all](auto& upload) {
    if (all) {
      upload.first.wait();
      return true;
    }
    return upload.first.template getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE;
  });
}

void Engine::UploadAhead(const cl::Buffer& buffer, std::uint64_t bytes, const std::byte* source,
                         bool pinned, std::shared_ptr<const void> keep, std::string_view stage) {
  if (bytes == 0) return;
  try {
    ReleaseUploadSources(false);
    cl::CommandQueue& transfer = TransferQueue();
    const bool staged =
        !pinned && info_.kind != DeviceKind::kCpu && bytes >= PinnedStaging::kMinimumBytes;
    cl::Event arrived;
    if (staged) {
      if (!transfer_staging_)
        transfer_staging_ = std::make_unique<PinnedStaging>(context_, transfer);
      // The source is copied into staging before this returns.
      arrived = transfer_staging_->UploadEnqueued(
          buffer, 0, bytes, source, [&](const cl::Event& event, std::uint64_t chunk) {
            profiler_.Record(stage, StageKind::kUpload, event, chunk);
          });
    } else {
      upload_sources_.reserve(upload_sources_.size() + 1);  // no allocation after the enqueue
      transfer.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, source, nullptr, &arrived);
      upload_sources_.emplace_back(arrived, std::move(keep));
      transfer.flush();
      profiler_.Record(stage, StageKind::kUpload, arrived, bytes);
    }
    const std::vector<cl::Event> wait{arrived};
    queue_.enqueueBarrierWithWaitList(&wait);
    if (options_.sync) {
      transfer.finish();
      queue_.finish();
    }
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "uploading " + std::string(stage));
  }
}

cl::Event Engine::Mark() {
  ReleaseUploadSources(false);
  cl::Event marker;
  try {
    queue_.enqueueMarkerWithWaitList(nullptr, &marker);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "marking the queue");
  }
  return marker;
}

void Engine::Wait(const cl::Event& event) {
  try {
    queue_.flush();
    if (transfer_queue_()) transfer_queue_.flush();
    event.wait();
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "waiting for the device");
  }
}

}  // namespace clq
