#include "runtime/bandwidth.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <functional>
#include <numeric>

#include "common/errors.hpp"
#include "runtime/cl_error.hpp"
#include "runtime/mapped_host_buffer.hpp"

namespace clq {
namespace {

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

template <typename F>
double WallSeconds(F&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Fill(std::uint32_t* words, std::uint64_t count, std::uint32_t seed) {
  std::uint32_t x = seed | 1;
  for (std::uint64_t i = 0; i < count; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    words[i] = x;
  }
}

}  // namespace

double BandwidthReport::Peak(const std::string& test) const {
  double peak = 0;
  for (const BandwidthSample& s : samples)
    if (s.test == test) peak = std::max(peak, s.median_gbps);
  return peak;
}

std::uint64_t BandwidthSizeLimit(const DeviceInfo& info, const BandwidthOptions& options) {
  // Two device buffers of the largest size must fit comfortably.
  std::uint64_t limit =
      std::min({options.max_bytes, info.max_alloc_bytes, info.global_mem_bytes / 4});
  return std::max<std::uint64_t>(std::bit_floor(std::max<std::uint64_t>(limit, 16)), 16);
}

BandwidthReport MeasureBandwidth(Engine& engine, const BandwidthOptions& options) {
  if (options.min_bytes < 16 || options.repeats == 0)
    throw InvalidInputError("bandwidth: sizes must be at least 16 bytes and repeats at least 1");
  const std::uint64_t max_size = BandwidthSizeLimit(engine.info(), options);
  const std::uint64_t min_size = std::min(std::bit_ceil(options.min_bytes), max_size);

  BandwidthReport report;
  report.tests = {"h2d-pageable", "h2d-pinned", "h2d-staged", "d2h-pageable",
                  "d2h-pinned",   "d2d-kernel", "d2d-copy",   "reduce"};
  for (std::uint64_t size = min_size; size <= max_size; size *= 2)
    report.sizes.push_back(size);

  try {
    std::vector<std::uint32_t> pageable(max_size / 4);
    Fill(pageable.data(), pageable.size(), 12345);
    MappedHostBuffer pinned(engine.context(), engine.queue(), max_size);
    std::memcpy(pinned.data(), pageable.data(), max_size);
    cl::Buffer source(engine.context(), CL_MEM_READ_WRITE, max_size);
    cl::Buffer target(engine.context(), CL_MEM_READ_WRITE, max_size);
    cl::CommandQueue& queue = engine.queue();
    cl::Kernel& copy = engine.kernel("bandwidth_copy");
    cl::Kernel& sum = engine.kernel("bandwidth_sum");

    for (std::uint64_t size : report.sizes) {
      const std::uint64_t vectors = size / 16;
      const std::uint64_t groups = engine.TilesFor(vectors);
      cl::Buffer partials(engine.context(), CL_MEM_READ_WRITE, groups * sizeof(cl_ulong));

      auto measure = [&](const std::string& test, std::uint64_t counted_bytes,
                         const std::function<double()>& run_seconds) {
        run_seconds();  // warm-up
        std::vector<double> rates;
        for (std::uint32_t r = 0; r < options.repeats; ++r)
          rates.push_back(static_cast<double>(counted_bytes) / run_seconds() * 1e-9);
        report.samples.push_back(
            {test, size, Median(rates), *std::max_element(rates.begin(), rates.end())});
      };
      auto event_seconds = [&](const std::function<cl::Event()>& enqueue) {
        cl::Event event = enqueue();
        return EventMilliseconds(event) * 1e-3;
      };

      measure("h2d-pageable", size, [&] {
        return WallSeconds(
            [&] { queue.enqueueWriteBuffer(source, CL_TRUE, 0, size, pageable.data()); });
      });
      measure("h2d-pinned", size, [&] {
        return WallSeconds(
            [&] { queue.enqueueWriteBuffer(source, CL_TRUE, 0, size, pinned.data()); });
      });
      // From pageable memory through the engine's pinned staging: the path a
      // table column takes to a GPU on first use (a cold run).
      measure("h2d-staged", size, [&] {
        return WallSeconds(
            [&] { engine.UploadStaged(source, 0, size, pageable.data(), "bandwidth"); });
      });
      std::vector<std::uint32_t> back(size / 4);
      measure("d2h-pageable", size, [&] {
        return WallSeconds([&] { queue.enqueueReadBuffer(source, CL_TRUE, 0, size, back.data()); });
      });
      if (std::memcmp(back.data(), pageable.data(), size) != 0)
        throw InternalError("bandwidth: device->host copy returned different bytes");
      measure("d2h-pinned", size, [&] {
        return WallSeconds(
            [&] { queue.enqueueReadBuffer(source, CL_TRUE, 0, size, pinned.data()); });
      });

      copy.setArg(0, source);
      copy.setArg(1, target);
      copy.setArg(2, static_cast<cl_ulong>(vectors));
      measure("d2d-kernel", 2 * size, [&] {
        return event_seconds([&] {
          cl::Event event;
          queue.enqueueNDRangeKernel(copy, cl::NullRange,
                                     cl::NDRange(groups * engine.tuning().work_group_size),
                                     cl::NDRange(engine.tuning().work_group_size), nullptr, &event);
          return event;
        });
      });
      std::fill(back.begin(), back.end(), 0u);
      queue.enqueueReadBuffer(target, CL_TRUE, 0, size, back.data());
      if (std::memcmp(back.data(), pageable.data(), size) != 0)
        throw InternalError("bandwidth: bandwidth_copy produced wrong words");

      measure("d2d-copy", 2 * size, [&] {
        return event_seconds([&] {
          cl::Event event;
          queue.enqueueCopyBuffer(source, target, 0, 0, size, nullptr, &event);
          return event;
        });
      });

      sum.setArg(0, source);
      sum.setArg(1, static_cast<cl_ulong>(vectors));
      sum.setArg(2, partials);
      measure("reduce", size, [&] {
        return event_seconds([&] {
          cl::Event event;
          queue.enqueueNDRangeKernel(sum, cl::NullRange,
                                     cl::NDRange(groups * engine.tuning().work_group_size),
                                     cl::NDRange(engine.tuning().work_group_size), nullptr, &event);
          return event;
        });
      });
      std::vector<cl_ulong> partial_values(groups);
      queue.enqueueReadBuffer(partials, CL_TRUE, 0, groups * sizeof(cl_ulong),
                              partial_values.data());
      const std::uint64_t device_sum =
          std::accumulate(partial_values.begin(), partial_values.end(), std::uint64_t{0});
      const std::uint64_t host_sum = std::accumulate(
          pageable.begin(), pageable.begin() + static_cast<std::ptrdiff_t>(size / 4),
          std::uint64_t{0});
      if (device_sum != host_sum) throw InternalError("bandwidth: bandwidth_sum is wrong");
    }
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "measuring bandwidth on " + engine.info().name);
  }
  return report;
}

}  // namespace clq
