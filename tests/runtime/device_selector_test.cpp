#include "runtime/device_selector.hpp"

#include <gtest/gtest.h>

#include "common/errors.hpp"

namespace clq {
namespace {

DeviceInfo Make(std::size_t flat, std::size_t platform, std::size_t device, DeviceKind kind,
                std::string platform_name, std::string name) {
  DeviceInfo d;
  d.flat_index = flat;
  d.platform_index = platform;
  d.device_index = device;
  d.kind = kind;
  d.platform_name = std::move(platform_name);
  d.name = std::move(name);
  d.vendor = "vendor";
  return d;
}

// Two platforms: PoCL with one CPU, NVIDIA with two GPUs.
std::vector<DeviceInfo> Machine() {
  std::vector<DeviceInfo> devices{
      Make(0, 0, 0, DeviceKind::kCpu, "Portable Computing Language", "pthread-haswell"),
      Make(1, 1, 0, DeviceKind::kGpu, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3"),
      Make(2, 1, 1, DeviceKind::kGpu, "NVIDIA CUDA", "NVIDIA A100")};
  devices[0].platform_vendor = "The pocl project";
  return devices;
}

using Indices = std::vector<std::size_t>;

TEST(DeviceSelectorTest, FlatIndex) {
  EXPECT_EQ(ResolveDevices("0", Machine()), Indices({0}));
  EXPECT_EQ(ResolveDevices("2", Machine()), Indices({2}));
}

TEST(DeviceSelectorTest, PlatformDevicePair) {
  EXPECT_EQ(ResolveDevices("1:1", Machine()), Indices({2}));
  EXPECT_EQ(ResolveDevices("0:0", Machine()), Indices({0}));
}

TEST(DeviceSelectorTest, Type) {
  EXPECT_EQ(ResolveDevices("gpu", Machine()), Indices({1, 2}));
  EXPECT_EQ(ResolveDevices("CPU", Machine()), Indices({0}));
}

TEST(DeviceSelectorTest, NameSubstringIsCaseInsensitive) {
  EXPECT_EQ(ResolveDevices("h100", Machine()), Indices({1}));
  EXPECT_EQ(ResolveDevices("portable", Machine()), Indices({0}));
  EXPECT_EQ(ResolveDevices("PoCL", Machine()), Indices({0}));
  EXPECT_EQ(ResolveDevices("nvidia", Machine()), Indices({1, 2}));
}

TEST(DeviceSelectorTest, AllAndLists) {
  EXPECT_EQ(ResolveDevices("all", Machine()), Indices({0, 1, 2}));
  EXPECT_EQ(ResolveDevices("2, 0", Machine()), Indices({2, 0}));
  EXPECT_EQ(ResolveDevices("gpu,h100", Machine()), Indices({1, 2}));  // no repeats
}

TEST(DeviceSelectorTest, DefaultIsFirstGpuElseFirstCpu) {
  EXPECT_EQ(ResolveDevices("", Machine()), Indices({1}));
  std::vector<DeviceInfo> cpu_only{Machine()[0]};
  EXPECT_EQ(ResolveDevices("", cpu_only), Indices({0}));
}

TEST(DeviceSelectorTest, NoMatchListsDevices) {
  try {
    ResolveDevices("nosuch", Machine());
    FAIL() << "expected an error";
  } catch (const InvalidInputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'nosuch' matches no device"), std::string::npos) << message;
    EXPECT_NE(message.find("NVIDIA H100"), std::string::npos) << message;
    EXPECT_NE(message.find("1:1"), std::string::npos) << message;
  }
  EXPECT_THROW(ResolveDevices("7", Machine()), InvalidInputError);
  EXPECT_THROW(ResolveDevices("3:0", Machine()), InvalidInputError);
  EXPECT_THROW(ResolveDevices("gpu,", Machine()), InvalidInputError);
  EXPECT_THROW(ResolveDevices("accelerator", Machine()), InvalidInputError);
  EXPECT_THROW(ResolveDevices("", std::vector<DeviceInfo>{}), InvalidInputError);
}

TEST(DeviceSelectorTest, OneDeviceAmbiguousNameIsAnError) {
  try {
    ResolveOneDevice("nvidia", Machine());
    FAIL() << "expected an error";
  } catch (const InvalidInputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("matches 2 devices"), std::string::npos) << message;
    EXPECT_NE(message.find("A100"), std::string::npos) << message;
  }
  EXPECT_THROW(ResolveOneDevice("all", Machine()), InvalidInputError);
}

TEST(DeviceSelectorTest, OneDeviceTypeMeansFirstOfType) {
  EXPECT_EQ(ResolveOneDevice("gpu", Machine()), 1u);
  EXPECT_EQ(ResolveOneDevice("a100", Machine()), 2u);
  EXPECT_EQ(ResolveOneDevice("", Machine()), 1u);
}

}  // namespace
}  // namespace clq
