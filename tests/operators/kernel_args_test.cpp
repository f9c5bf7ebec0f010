#include "operators/kernel_args.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "common/errors.hpp"
#include "operators/device_vector.hpp"
#include "operators/gather.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

class KernelArgsTest : public testing::DeviceTest {};

// scan_add_offsets takes (data, n, tile_offsets): Done() accepts the three
// and refuses fewer, which a reused kernel would otherwise take from its
// previous launch.
TEST_P(KernelArgsTest, DoneRequiresEveryParameter) {
  Engine& e = engine();
  DeviceBuffer data = e.pool().Acquire(64, "test data");
  cl::Kernel& kernel = e.kernel("scan_add_offsets");
  KernelArgs all(kernel);
  all.Add(data.get()).Add(cl_ulong{16}).Add(data.get());
  EXPECT_NO_THROW(all.Done());
  KernelArgs fewer(kernel);
  fewer.Add(data.get()).Add(cl_ulong{16});
  EXPECT_THROW(fewer.Done(), InternalError);
  KernelArgs none(kernel);
  EXPECT_THROW(none.Done(), InternalError);
}

// The public launch arguments of gather_iota, bound and run: empty, one id,
// and a count past one tile.
TEST_P(KernelArgsTest, GatherIotaWritesConsecutiveIds) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  for (const RowCount n : {RowCount{0}, RowCount{1}, tile + 3}) {
    RowIds ids = AllocateRowIds(e, n, "test ids");
    const cl_uint first = 1000;
    cl::Kernel& iota = e.kernel("gather_iota");
    Bind(iota, GatherIotaArgs{.target = ids.ids.get(), .n = n, .first = first});
    e.Launch(iota, e.TilesFor(n), "test iota");
    std::vector<cl_uint> got(n);
    if (n > 0) e.Download(ids.ids.get(), 0, n * sizeof(cl_uint), got.data(), "test download");
    for (RowCount i = 0; i < n; ++i)
      ASSERT_EQ(got[i], first + i) << "n " << n << " i " << i;
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(KernelArgsTest);

}  // namespace
}  // namespace clq
