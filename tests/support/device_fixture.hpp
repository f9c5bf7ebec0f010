// Runs a test once per OpenCL device under test. CLQ_TEST_DEVICES (a device
// selector, default "all") chooses the devices; each gets one Engine per test
// process, created on first use and shared by every test.
//
//   class SelectionTest : public clq::testing::DeviceTest {};
//   TEST_P(SelectionTest, EmptyInput) { clq::Engine& e = engine(); ... }
//   CLQ_INSTANTIATE_DEVICE_TESTS(SelectionTest);
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/device_table.hpp"
#include "runtime/engine.hpp"

namespace clq::testing {

// Flat indices of the devices under test.
std::vector<std::size_t> TestDeviceIndices();

// The shared engine of a device under test.
Engine& TestEngine(std::size_t flat_index);

// A device under test, for tests that start engines of their own.
const DeviceHandle& TestDevice(std::size_t flat_index);

// The engine options the tests' engines start with (CLQ_OPTIONS and the
// other CLQ_* settings of the environment).
EngineOptions TestEngineOptions();

// "pocl_cpu_0", "nvidia_gpu_1": names for parameterized test instances.
std::string TestDeviceName(const ::testing::TestParamInfo<std::size_t>& info);

// Caps the rows per device tablet of `engine` for one scope (tests force
// tables into several tablets), then restores the engine's own setting.
// Both ends drop the engine's resident columns.
class ScopedTabletRows {
 public:
  ScopedTabletRows(Engine& engine, RowCount rows) : engine_(engine) {
    engine_.tables().SetTabletRowLimit(rows);
  }
  ~ScopedTabletRows() { engine_.tables().SetTabletRowLimit(engine_.options().tablet_rows); }
  ScopedTabletRows(const ScopedTabletRows&) = delete;
  ScopedTabletRows& operator=(const ScopedTabletRows&) = delete;

 private:
  Engine& engine_;
};

class DeviceTest : public ::testing::TestWithParam<std::size_t> {
 protected:
  Engine& engine() { return TestEngine(GetParam()); }
};

}  // namespace clq::testing

// Skips the rest of a test of REAL values on a device without fp64, where
// the planner refuses them (tests/plan/device_capabilities_test.cpp checks
// the refusal).
#define CLQ_SKIP_REAL_WITHOUT_FP64(engine)                \
  if (!(engine).info().fp64)                              \
  GTEST_SKIP() << "REAL values: " << (engine).info().name \
               << " lacks fp64 (cl_khr_fp64), and REAL queries are refused there"

#define CLQ_INSTANTIATE_DEVICE_TESTS(suite)                                          \
  INSTANTIATE_TEST_SUITE_P(Devices, suite,                                           \
                           ::testing::ValuesIn(::clq::testing::TestDeviceIndices()), \
                           ::clq::testing::TestDeviceName)
