#include "runtime/device_selector.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/errors.hpp"

namespace clq {
namespace {

std::string Lowercase(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

bool IsNumber(std::string_view text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::size_t ToIndex(std::string_view text) {
  return std::stoul(std::string(text));
}

bool IsTypeSelector(std::string_view term) {
  return term == "gpu" || term == "cpu" || term == "accelerator";
}

[[noreturn]] void ThrowNoMatch(std::string_view selector, std::span<const DeviceInfo> devices) {
  std::string message = "device selector '" + std::string(selector) + "' matches no device. ";
  if (devices.empty()) {
    message += "No OpenCL device is available (is an ICD such as pocl-opencl-icd installed?).";
  } else {
    message += "Devices:\n" + DescribeDeviceList(devices);
  }
  throw InvalidInputError(message);
}

// Devices matching one term of a selector (no commas).
std::vector<std::size_t> MatchTerm(std::string_view raw_term, std::span<const DeviceInfo> devices) {
  const std::string term = Lowercase(Trim(raw_term));
  std::vector<std::size_t> matches;
  if (term.empty()) return matches;
  if (term == "all") {
    for (std::size_t i = 0; i < devices.size(); ++i)
      matches.push_back(i);
    return matches;
  }
  if (IsNumber(term)) {
    const std::size_t index = ToIndex(term);
    if (index < devices.size()) matches.push_back(index);
    return matches;
  }
  const std::size_t colon = term.find(':');
  if (colon != std::string::npos && IsNumber(std::string_view(term).substr(0, colon)) &&
      IsNumber(std::string_view(term).substr(colon + 1))) {
    const std::size_t platform = ToIndex(std::string_view(term).substr(0, colon));
    const std::size_t device = ToIndex(std::string_view(term).substr(colon + 1));
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (devices[i].platform_index == platform && devices[i].device_index == device)
        matches.push_back(i);
    return matches;
  }
  if (IsTypeSelector(term)) {
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (term == DeviceKindName(devices[i].kind)) matches.push_back(i);
    return matches;
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    const std::string haystack = Lowercase(d.platform_name + "\n" + d.name + "\n" + d.vendor +
                                           "\n" + d.platform_vendor + "\n" + d.platform_version);
    if (haystack.find(term) != std::string::npos) matches.push_back(i);
  }
  return matches;
}

std::vector<std::size_t> DefaultDevices(std::span<const DeviceInfo> devices) {
  for (DeviceKind kind : {DeviceKind::kGpu, DeviceKind::kCpu})
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (devices[i].kind == kind) return {i};
  if (!devices.empty()) return {0};
  return {};
}

}  // namespace

std::string DescribeDeviceList(std::span<const DeviceInfo> devices) {
  std::string text;
  for (const DeviceInfo& d : devices) {
    text += "  " + std::to_string(d.flat_index) + "  " + d.PairSelector() + "  " +
            DeviceKindName(d.kind) + "  " + d.platform_name + " / " + d.name + "\n";
  }
  if (!text.empty()) text.pop_back();
  return text;
}

std::vector<std::size_t> ResolveDevices(std::string_view selector,
                                        std::span<const DeviceInfo> devices) {
  std::vector<std::size_t> result;
  if (Trim(selector).empty()) {
    result = DefaultDevices(devices);
    if (result.empty()) ThrowNoMatch("(default)", devices);
    return result;
  }
  std::size_t start = 0;
  while (start <= selector.size()) {
    std::size_t comma = selector.find(',', start);
    if (comma == std::string_view::npos) comma = selector.size();
    const std::string_view term = selector.substr(start, comma - start);
    if (Trim(term).empty()) {
      throw InvalidInputError("device selector '" + std::string(selector) + "' has an empty term");
    }
    const std::vector<std::size_t> matches = MatchTerm(term, devices);
    if (matches.empty()) ThrowNoMatch(Trim(term), devices);
    for (std::size_t index : matches)
      if (std::find(result.begin(), result.end(), index) == result.end()) result.push_back(index);
    start = comma + 1;
  }
  return result;
}

std::size_t ResolveOneDevice(std::string_view selector, std::span<const DeviceInfo> devices) {
  const std::vector<std::size_t> matches = ResolveDevices(selector, devices);
  const std::string term = Lowercase(Trim(selector));
  if (matches.size() == 1 || IsTypeSelector(term) || term.empty()) return matches.front();
  std::vector<DeviceInfo> candidates;
  for (std::size_t index : matches)
    candidates.push_back(devices[index]);
  throw InvalidInputError(
      "device selector '" + std::string(selector) + "' matches " + std::to_string(matches.size()) +
      " devices; this command runs on one. Candidates:\n" + DescribeDeviceList(candidates));
}

}  // namespace clq
