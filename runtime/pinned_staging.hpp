// Transfers between the host and a device through pinned (page-locked)
// staging memory.
//
// NVIDIA's driver copies from ordinary host memory several times slower than
// it DMAs from pinned memory, in both directions. Two CL_MEM_ALLOC_HOST_PTR
// buffers are mapped once; an upload copies a chunk into one (with several
// threads) while the other chunk is in flight, a download copies one chunk
// out while the next is in flight. Blocking: returns when the data has
// arrived, except UploadEnqueued, which returns once the source is copied
// and leaves the last chunks in flight (the next use of a staging buffer
// waits for its transfer). Owned by an Engine; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "runtime/cl.hpp"
#include "runtime/mapped_host_buffer.hpp"

namespace clq {

class PinnedStaging {
 public:
  static constexpr std::uint64_t kChunkBytes = 64ull << 20;
  // Smaller uploads go straight from host memory: staging would not pay off.
  static constexpr std::uint64_t kMinimumBytes = 4ull << 20;

  // `chunk_bytes`: size of each staging buffer (tests use small ones).
  PinnedStaging(const cl::Context& context, cl::CommandQueue queue,
                std::uint64_t chunk_bytes = kChunkBytes);
  ~PinnedStaging();
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // `on_chunk` receives the event and size of every transfer (for profiling).
  void Upload(const cl::Buffer& target, std::uint64_t offset, std::uint64_t bytes,
              const std::byte* source,
              const std::function<void(const cl::Event&, std::uint64_t)>& on_chunk);
  // The same without waiting for the last chunks: returns the event of the
  // last one (the queue is in order, so the data has arrived when it is
  // complete). `source` may be reused on return.
  cl::Event UploadEnqueued(const cl::Buffer& target, std::uint64_t offset, std::uint64_t bytes,
                           const std::byte* source,
                           const std::function<void(const cl::Event&, std::uint64_t)>& on_chunk);
  void Download(const cl::Buffer& source, std::uint64_t offset, std::uint64_t bytes,
                std::byte* target,
                const std::function<void(const cl::Event&, std::uint64_t)>& on_chunk);
  // Receives bytes [at, at + size) of a download, in order, while they are in
  // the staging buffer (valid only during the call).
  using ChunkConsumer =
      std::function<void(std::uint64_t at, const std::byte* data, std::uint64_t size)>;
  // A download whose chunks go to `consume` instead of a target range (a
  // conversion reads them from pinned memory: no intermediate host copy).
  void Download(const cl::Buffer& source, std::uint64_t offset, std::uint64_t bytes,
                const ChunkConsumer& consume,
                const std::function<void(const cl::Event&, std::uint64_t)>& on_chunk);
  std::uint64_t chunk_bytes() const { return chunk_bytes_; }

 private:
  // Waits until no transfer reads or writes a staging buffer.
  void WaitIdle();

  cl::CommandQueue queue_;
  std::uint64_t chunk_bytes_;
  std::unique_ptr<MappedHostBuffer> buffers_[2];
  cl::Event in_flight_[2];  // the last upload's transfer from each buffer
  int next_ = 0;            // the buffer the next upload chunk fills
};

// memcpy split across threads for large ranges (one memcpy thread moves
// well under what a pinned transfer takes).
void ParallelCopy(std::byte* target, const std::byte* source, std::size_t bytes);

}  // namespace clq
