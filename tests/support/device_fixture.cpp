#include "tests/support/device_fixture.hpp"

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>

#include "host/environment_options.hpp"
#include "runtime/device_selector.hpp"

namespace clq::testing {
namespace {

const std::vector<DeviceHandle>& Devices() {
  static const std::vector<DeviceHandle> devices = DiscoverDevices();
  return devices;
}

}  // namespace

std::vector<std::size_t> TestDeviceIndices() {
  std::vector<DeviceInfo> infos;
  for (const DeviceHandle& h : Devices())
    infos.push_back(h.info);
  const char* selector = std::getenv("CLQ_TEST_DEVICES");
  return ResolveDevices(selector != nullptr && *selector != '\0' ? selector : "all", infos);
}

Engine& TestEngine(std::size_t flat_index) {
  static std::map<std::size_t, std::unique_ptr<Engine>> engines;
  auto it = engines.find(flat_index);
  if (it == engines.end())
    it = engines
             .emplace(flat_index,
                      std::make_unique<Engine>(Devices().at(flat_index), TestEngineOptions()))
             .first;
  return *it->second;
}

const DeviceHandle& TestDevice(std::size_t flat_index) {
  return Devices().at(flat_index);
}

EngineOptions TestEngineOptions() {
  return OptionsFromEnvironment().engine;
}

std::string TestDeviceName(const ::testing::TestParamInfo<std::size_t>& info) {
  const DeviceInfo& d = Devices().at(info.param).info;
  std::string platform;
  for (char c : d.platform_name) {
    if (std::isalnum(static_cast<unsigned char>(c))) platform += static_cast<char>(std::tolower(c));
    if (platform.size() >= 12) break;
  }
  return platform + "_" + DeviceKindName(d.kind) + "_" + std::to_string(d.flat_index);
}

}  // namespace clq::testing
