#include "operators/scan.hpp"

#include <gtest/gtest.h>

#include <random>

#include "operators/device_vector.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

class ScanTest : public testing::DeviceTest {};

TEST_P(ScanTest, MatchesCpuAtTileBoundariesAndAcrossLevels) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  std::mt19937 rng(5);
  for (RowCount n : {RowCount{0}, RowCount{1}, RowCount{2}, tile - 1, tile, tile + 1, 2 * tile,
                     tile * tile - 1, tile * tile + 3}) {
    if (n > 5'000'000) continue;
    std::vector<cl_uint> input(n);
    for (auto& v : input)
      v = static_cast<cl_uint>(rng() % 50);
    DeviceBuffer in = e.pool().Acquire(n * 4, "scan input");
    DeviceBuffer out = e.pool().Acquire(n * 4, "scan output");
    DeviceBuffer total = e.pool().Acquire(4, "scan total");
    e.Upload(in.get(), 0, n * 4, input.data(), "up");
    ExclusiveScan(e, in.get(), n, out.get(), &total.get());
    std::vector<cl_uint> got(n);
    e.Download(out.get(), 0, n * 4, got.data(), "down");
    cl_uint got_total = 0;
    e.Download(total.get(), 0, 4, &got_total, "down");
    cl_uint running = 0;
    for (RowCount i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], running) << "n " << n << " i " << i;
      running += input[i];
    }
    EXPECT_EQ(got_total, running) << "n " << n;
    // In place.
    ExclusiveScan(e, in.get(), n, in.get(), nullptr);
    std::vector<cl_uint> in_place(n);
    e.Download(in.get(), 0, n * 4, in_place.data(), "down");
    EXPECT_EQ(in_place, got) << "n " << n;
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(ScanTest);

}  // namespace
}  // namespace clq
