// Test entry point: lists the devices under test before running.
#include <gtest/gtest.h>

#include <iostream>

#include "runtime/cl_error.hpp"
#include "runtime/device_selector.hpp"
#include "tests/support/device_fixture.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  try {
    std::vector<clq::DeviceInfo> infos;
    for (const clq::DeviceHandle& h : clq::DiscoverDevices())
      infos.push_back(h.info);
    std::vector<clq::DeviceInfo> chosen;
    for (std::size_t index : clq::testing::TestDeviceIndices())
      chosen.push_back(infos[index]);
    std::cerr << "devices under test:\n" << clq::DescribeDeviceList(chosen) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "cannot list devices under test: " << e.what() << "\n";
    return 1;
  }
  return RUN_ALL_TESTS();
}
