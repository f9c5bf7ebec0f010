#include "runtime/pinned_staging.hpp"

#include "common/parallel_ranges.hpp"

#include <algorithm>
#include <cstring>

namespace clq {

void ParallelCopy(std::byte* target, const std::byte* source, std::size_t bytes) {
  ParallelRanges(bytes, 8u << 20, 64, [&](std::size_t begin, std::size_t end) {
    std::memcpy(target + begin, source + begin, end - begin);
  });
}

PinnedStaging::PinnedStaging(const cl::Context& context, cl::CommandQueue queue,
                             std::uint64_t chunk_bytes)
    : queue_(std::move(queue)), chunk_bytes_(chunk_bytes) {
  for (auto& buffer : buffers_)
    buffer = std::make_unique<MappedHostBuffer>(context, queue_, chunk_bytes_);
}

PinnedStaging::~PinnedStaging() {
  try {
    WaitIdle();  // no transfer may read a buffer as it is unmapped
  } catch (const cl::Error&) {
    // The device failed; its transfers are gone with it.
  }
}

void PinnedStaging::Upload(const cl::Buffer& target, std::uint64_t offset, std::uint64_t bytes,
                           const std::byte* source,
                           const std::function<void(const cl::Event&, std::uint64_t)>& on_chunk) {
  UploadEnqueued(target, offset, bytes, source, on_chunk);
  WaitIdle();
}

cl::Event PinnedStaging::UploadEnqueued(
    const cl::Buffer& target, std::uint64_t offset, std::uint64_t bytes, const std::byte* source,
    const std::function<void(const cl::Event&, std::uint64_t)>& on_chunk) {
  cl::Event last;
  for (std::uint64_t done = 0; done < bytes; done += chunk_bytes_) {
    const std::uint64_t chunk = std::min(chunk_bytes_, bytes - done);
    cl::Event& in_flight = in_flight_[next_];
    if (in_flight()) in_flight.wait();  // the staging buffer is free again
    in_flight = cl::Event();
    ParallelCopy(buffers_[next_]->data(), source + done, chunk);
    queue_.enqueueWriteBuffer(target, CL_FALSE, offset + done, chunk, buffers_[next_]->data(),
                              nullptr, &in_flight);
    // Submitted now, so that it travels while the next chunk is copied (left
    // for the next wait, it started later and uploads were slower).
    queue_.flush();
    on_chunk(in_flight, chunk);
    last = in_flight;
    next_ ^= 1;
  }
  return last;
}

void PinnedStaging::WaitIdle() {
  for (cl::Event& e : in_flight_) {
    if (e()) e.wait();
    e = cl::Event();
  }
}

void PinnedStaging::Download(const cl::Buffer& source, std::uint64_t offset, std::uint64_t bytes,
                             std::byte* target,
                             const std::function<void(const cl::Event&, std::uint64_t)>& on_chunk) {
  Download(
      source, offset, bytes,
      [target](std::uint64_t at, const std::byte* data, std::uint64_t size) {
        ParallelCopy(target + at, data, size);
      },
      on_chunk);
}

void PinnedStaging::Download(const cl::Buffer& source, std::uint64_t offset, std::uint64_t bytes,
                             const ChunkConsumer& consume,
                             const std::function<void(const cl::Event&, std::uint64_t)>& on_chunk) {
  WaitIdle();  // an upload's last chunks may still read the buffers
  cl::Event in_flight[2];
  std::uint64_t chunk_begin[2] = {0, 0};
  std::uint64_t chunk_size[2] = {0, 0};
  // Waits for staging buffer i's transfer and hands it over; then the buffer is free.
  const auto drain = [&](int i) {
    if (chunk_size[i] == 0) return;
    in_flight[i].wait();
    const std::uint64_t size = chunk_size[i];
    chunk_size[i] = 0;
    consume(chunk_begin[i], buffers_[i]->data(), size);
  };
  int next = 0;
  try {
    for (std::uint64_t done = 0; done < bytes; done += chunk_bytes_) {
      const std::uint64_t chunk = std::min(chunk_bytes_, bytes - done);
      drain(next);
      queue_.enqueueReadBuffer(source, CL_FALSE, offset + done, chunk, buffers_[next]->data(),
                               nullptr, &in_flight[next]);
      queue_.flush();
      on_chunk(in_flight[next], chunk);
      chunk_begin[next] = done;
      chunk_size[next] = chunk;
      next ^= 1;
    }
    drain(next);  // the older transfer first
    drain(next ^ 1);
  } catch (...) {
    // No transfer may still be writing into a staging buffer when it is reused.
    for (cl::Event& e : in_flight)
      if (e() != nullptr) e.wait();
    throw;
  }
}

}  // namespace clq
