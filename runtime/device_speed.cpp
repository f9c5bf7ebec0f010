#include "runtime/device_speed.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <memory>
#include <numeric>
#include <vector>

#include "common/errors.hpp"
#include "runtime/cl_error.hpp"

namespace clq {
namespace {

// The read buffer starts here and grows 8x while a read takes under
// kTimedSeconds, up to kMostBytes (or a quarter of the device's memory).
constexpr std::uint64_t kFirstBytes = 64ull << 10;
constexpr std::uint64_t kMostBytes = 64ull << 20;
constexpr double kTimedSeconds = 2e-3;

template <typename F>
double TimedSeconds(F&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

DeviceSpeed MeasureDeviceSpeed(Engine& engine) {
  const DeviceInfo& info = engine.info();
  const std::uint64_t most = std::max<std::uint64_t>(
      std::bit_floor(std::min({kMostBytes, info.max_alloc_bytes / 2, info.global_mem_bytes / 4})),
      kFirstBytes);
  DeviceSpeed speed;
  try {
    // Filled as far as uploaded: a slow device reads a small part.
    const std::unique_ptr<std::uint32_t[]> words(new std::uint32_t[most / 4]);
    const auto fill = [&](std::uint64_t from, std::uint64_t to) {
      std::iota(words.get() + from / 4, words.get() + to / 4, static_cast<std::uint32_t>(from));
    };
    cl::Buffer source(engine.context(), CL_MEM_READ_ONLY, most);
    const std::uint64_t most_groups = engine.TilesFor(most / 16);
    cl::Buffer partials(engine.context(), CL_MEM_READ_WRITE, most_groups * sizeof(cl_ulong));
    cl::Kernel& sum = engine.kernel("bandwidth_sum");
    sum.setArg(0, source);
    sum.setArg(2, partials);
    // Sums the first `bytes` of `source`; the groups it ran.
    const auto read = [&](std::uint64_t bytes) {
      sum.setArg(1, static_cast<cl_ulong>(bytes / 16));
      const std::uint64_t groups = engine.TilesFor(bytes / 16);
      engine.Launch(sum, groups, "device speed");
      engine.Finish();
      return groups;
    };
    fill(0, kFirstBytes);
    engine.UploadStaged(source, 0, kFirstBytes, words.get(), "device speed");
    read(16);  // the kernel's first launch (a driver may build it then)
    std::vector<double> launches;
    for (int i = 0; i < 5; ++i)
      launches.push_back(TimedSeconds([&] { read(16); }));
    std::sort(launches.begin(), launches.end());
    speed.launch_seconds = launches[launches.size() / 2];

    // Each step uploads only the words the larger read adds.
    std::uint64_t bytes = kFirstBytes;
    double read_seconds = 0;
    double upload_seconds =
        TimedSeconds([&] { engine.UploadStaged(source, 0, bytes, words.get(), "device speed"); });
    std::uint64_t uploaded = bytes, last_upload = bytes;
    for (;;) {
      read_seconds = TimedSeconds([&] { read(bytes); });
      read_seconds = std::min(read_seconds, TimedSeconds([&] { read(bytes); }));
      if (read_seconds >= kTimedSeconds || bytes >= most) break;
      bytes = std::min(bytes * 8, most);
      fill(uploaded, bytes);
      upload_seconds = TimedSeconds([&] {
        engine.UploadStaged(source, uploaded, bytes - uploaded, words.get() + uploaded / 4,
                            "device speed");
      });
      last_upload = bytes - uploaded;
      uploaded = bytes;
    }
    // The last read's sum, checked.
    const std::uint64_t groups = read(bytes);
    std::vector<cl_ulong> sums(groups);
    engine.Download(partials, 0, groups * sizeof(cl_ulong), sums.data(), "device speed");
    const std::uint64_t device_sum = std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
    const std::uint64_t host_sum =
        std::accumulate(words.get(), words.get() + bytes / 4, std::uint64_t{0});
    if (device_sum != host_sum) throw InternalError("device speed: bandwidth_sum is wrong");
    // A read's time less its launch; at least a tenth of it, so that a
    // launch measured slow cannot make the bandwidth unbounded.
    const double reading = std::max(read_seconds - speed.launch_seconds, read_seconds / 10);
    speed.read_bytes_per_second = static_cast<double>(bytes) / reading;
    speed.upload_bytes_per_second =
        static_cast<double>(last_upload) / std::max(upload_seconds, 1e-9);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "measuring the speed of " + info.name);
  }
  return speed;
}

}  // namespace clq
