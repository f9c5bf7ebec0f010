#include "runtime/engine.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "common/errors.hpp"
#include "runtime/bandwidth.hpp"
#include "runtime/cl_error.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

class EngineTest : public testing::DeviceTest {};

// Sizes around a tile and a work-group, and odd sizes, through the copy kernel.
TEST_P(EngineTest, KernelRoundTrip) {
  Engine& e = engine();
  const std::uint64_t tile = e.tuning().tile_size();
  for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{3}, tile - 1, tile, tile + 1,
                              3 * tile + 7, std::uint64_t{e.tuning().work_group_size} + 1}) {
    std::vector<cl_uint> input(count * 4);
    std::iota(input.begin(), input.end(), 11u);
    DeviceBuffer source = e.pool().Acquire(input.size() * 4, "test input");
    DeviceBuffer target = e.pool().Acquire(input.size() * 4 + 16, "test output");
    e.Fill(target.get(), 0xDEADBEEF, 0, target.capacity(), "poison");
    e.Upload(source.get(), 0, input.size() * 4, input.data(), "input");
    cl::Kernel& copy = e.kernel("bandwidth_copy");
    copy.setArg(0, source.get());
    copy.setArg(1, target.get());
    copy.setArg(2, static_cast<cl_ulong>(count));
    e.Launch(copy, e.TilesFor(count), "copy");
    std::vector<cl_uint> output(input.size() + 4);
    e.Download(target.get(), 0, output.size() * 4, output.data(), "output");
    EXPECT_TRUE(std::equal(input.begin(), input.end(), output.begin())) << "count " << count;
    // The word after the last element must be untouched (the guard works).
    EXPECT_EQ(output[input.size()], 0xDEADBEEFu) << "count " << count;
  }
}

TEST_P(EngineTest, ZeroGroupsLaunchNothing) {
  Engine& e = engine();
  e.Launch(e.kernel("bandwidth_copy"), 0, "nothing");
  e.Finish();
}

TEST_P(EngineTest, UnknownKernelIsInternalError) {
  EXPECT_THROW(engine().kernel("no_such_kernel"), InternalError);
}

TEST_P(EngineTest, AllocationOverDeviceLimitIsClearError) {
  Engine& e = engine();
  try {
    e.pool().Acquire(e.info().max_alloc_bytes + 1, "an oversized column");
    FAIL() << "expected DeviceLimitError";
  } catch (const DeviceLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("an oversized column"), std::string::npos);
  }
}

TEST_P(EngineTest, BufferPoolReusesBuffers) {
  Engine& e = engine();
  e.pool().Trim();
  cl_mem first_handle;
  {
    DeviceBuffer first = e.pool().Acquire(100000, "a");
    first_handle = first.get()();
  }
  EXPECT_GT(e.pool().free_bytes(), 0u);
  DeviceBuffer second = e.pool().Acquire(99000, "b");
  EXPECT_EQ(second.get()(), first_handle);
  EXPECT_EQ(e.pool().free_bytes(), 0u);
}

TEST_P(EngineTest, ProfilerRecordsStages) {
  Engine& e = engine();
  DeviceBuffer buffer = e.pool().Acquire(1 << 20, "profiled");
  std::vector<char> host(1 << 20, 1);
  e.profiler().Start();
  e.Upload(buffer.get(), 0, host.size(), host.data(), "upload stage");
  e.Download(buffer.get(), 0, host.size(), host.data(), "download stage");
  const auto stages = e.profiler().Stop();
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].name, "upload stage");
  EXPECT_EQ(stages[0].kind, StageKind::kUpload);
  EXPECT_EQ(stages[0].bytes, host.size());
  EXPECT_GE(stages[0].milliseconds, 0.0);
  EXPECT_EQ(stages[1].kind, StageKind::kDownload);
}

TEST_P(EngineTest, BandwidthMeasuresAndChecks) {
  BandwidthOptions options;
  options.min_bytes = 1 << 16;
  options.max_bytes = 1 << 18;
  options.repeats = 1;
  const BandwidthReport report = MeasureBandwidth(engine(), options);
  EXPECT_EQ(report.sizes.size(), 3u);
  EXPECT_EQ(report.samples.size(), report.sizes.size() * report.tests.size());
  for (const BandwidthSample& s : report.samples)
    EXPECT_GT(s.median_gbps, 0.0) << s.test;
}

CLQ_INSTANTIATE_DEVICE_TESTS(EngineTest);

TEST(ClErrorTest, NamesAndMessages) {
  EXPECT_STREQ(ClErrorName(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_STREQ(ClErrorName(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
  EXPECT_STREQ(ClErrorName(-9999), "CL_UNKNOWN_ERROR");
  try {
    CheckCl(CL_INVALID_VALUE, "clGetDeviceInfo");
    FAIL();
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()), "clGetDeviceInfo failed: CL_INVALID_VALUE (-30)");
    EXPECT_EQ(e.code(), CL_INVALID_VALUE);
  }
  EXPECT_NO_THROW(CheckCl(CL_SUCCESS, "clFinish"));
  const DeviceError translated = TranslateClError(
      cl::Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer"), "uploading x");
  EXPECT_EQ(std::string(translated.what()),
            "clCreateBuffer failed: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4) while uploading x");
  const DeviceError build("clBuildProgram", CL_BUILD_PROGRAM_FAILURE, "building", "line 3: oops");
  EXPECT_NE(std::string(build.what()).find("line 3: oops"), std::string::npos);
  EXPECT_EQ(build.build_log(), "line 3: oops");
}

// A real build failure carries the device's log: build a broken program.
TEST(ClErrorTest, BuildFailureCarriesLog) {
  const auto devices = DiscoverDevices();
  ASSERT_FALSE(devices.empty());
  cl::Context context(devices[0].device);
  cl::Program program(context, std::string("__kernel void broken(void) { undefined_thing(); }"));
  try {
    program.build({devices[0].device}, "-cl-std=CL1.2");
    FAIL() << "the broken program built";
  } catch (const cl::Error& e) {
    const std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(devices[0].device);
    EXPECT_NE(log.find("undefined_thing"), std::string::npos) << log;
  }
}

}  // namespace
}  // namespace clq
