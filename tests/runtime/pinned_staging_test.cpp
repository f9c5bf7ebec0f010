// Uploads and downloads through pinned staging buffers, with small chunks so
// that several chunks, a partial last chunk and both buffers are exercised
// (engines use the path only on GPUs and above 4 MiB; here it runs on every
// device under test).
#include "runtime/pinned_staging.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

class PinnedStagingTest : public testing::DeviceTest {};

TEST_P(PinnedStagingTest, RoundTripOverSeveralChunks) {
  Engine& e = engine();
  constexpr std::uint64_t kChunk = 4096;
  PinnedStaging staging(e.context(), e.queue(), kChunk);
  for (const std::uint64_t bytes :
       {std::uint64_t{1}, kChunk - 1, kChunk, kChunk + 1, 5 * kChunk + 123}) {
    std::vector<std::byte> source(bytes);
    for (std::uint64_t i = 0; i < bytes; ++i)
      source[i] = static_cast<std::byte>((i * 7 + bytes) & 0xff);
    const std::uint64_t offset = 64;  // inside the device buffer, not at its start
    cl::Buffer device(e.context(), CL_MEM_READ_WRITE, bytes + 2 * offset);
    std::size_t chunks = 0;
    staging.Upload(device, offset, bytes, source.data(),
                   [&](const cl::Event&, std::uint64_t) { ++chunks; });
    EXPECT_EQ(chunks, (bytes + kChunk - 1) / kChunk);
    std::vector<std::byte> back(bytes, std::byte{0});
    chunks = 0;
    staging.Download(device, offset, bytes, back.data(),
                     [&](const cl::Event&, std::uint64_t) { ++chunks; });
    EXPECT_EQ(chunks, (bytes + kChunk - 1) / kChunk);
    ASSERT_EQ(back, source) << bytes << " bytes";
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(PinnedStagingTest);

}  // namespace
}  // namespace clq
