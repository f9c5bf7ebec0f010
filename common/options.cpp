#include "common/options.hpp"

#include <algorithm>
#include <charconv>
#include <functional>

#include "common/byte_size.hpp"
#include "common/errors.hpp"

namespace clq {
namespace {

[[noreturn]] void Refuse(std::string_view name, std::string_view value, std::string_view expected) {
  throw InvalidInputError("option " + std::string(name) + "=" + std::string(value) + ": expected " +
                          std::string(expected));
}

Choice ParseChoice(std::string_view name, std::string_view value) {
  if (value == "auto") return Choice::kAuto;
  if (value == "on" || value == "1") return Choice::kOn;
  if (value == "off" || value == "0") return Choice::kOff;
  Refuse(name, value, "auto, on or off");
}

bool ParseBool(std::string_view name, std::string_view value) {
  if (value == "on" || value == "1") return true;
  if (value == "off" || value == "0") return false;
  Refuse(name, value, "on or off");
}

std::uint64_t ParseUnsigned(std::string_view name, std::string_view value, std::uint64_t max) {
  std::uint64_t result = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), result);
  if (value.empty() || error != std::errc() || end != value.data() + value.size() || result > max)
    Refuse(name, value, "a whole number from 0 to " + std::to_string(max));
  return result;
}

// "3:1": colon-separated whole numbers from 1 to 1000 (a comma would end
// the setting in CLQ_OPTIONS); "even": none given; "measured": the cost
// model's.
DeviceShares ParseShares(std::string_view value) {
  DeviceShares result;
  if (value == "measured") return result;
  result.measured = false;
  std::vector<std::uint32_t>& shares = result.given;
  if (value == "even") return result;
  for (std::size_t at = 0; at <= value.size();) {
    const std::size_t end = std::min(value.find(':', at), value.size());
    std::uint32_t share = 0;
    const auto [stop, error] = std::from_chars(value.data() + at, value.data() + end, share);
    if (at == end || error != std::errc() || stop != value.data() + end || share == 0 ||
        share > 1000)
      Refuse("device_shares", value,
             "measured, even, or shares from 1 to 1000 joined by ':', such as 3:1");
    shares.push_back(share);
    at = end + 1;
  }
  return result;
}

std::uint32_t ParsePowerOfTwo(std::string_view name, std::string_view value) {
  const std::uint64_t v = ParseUnsigned(name, value, 1024);
  if (v != 0 && (v & (v - 1)) != 0) Refuse(name, value, "a power of two up to 1024 (0: default)");
  return static_cast<std::uint32_t>(v);
}

std::uint64_t ParseHostMemory(std::string_view value) {
  if (value == "unlimited") return kUnlimitedHostMemory;
  const std::optional<std::uint64_t> bytes = ParseByteSize(value);
  if (!bytes || *bytes == 0)
    Refuse("host_memory", value, "a size such as 512M, 8G or 1T (binary multiples), or unlimited");
  return *bytes;
}

std::uint64_t ParseDeviceMemory(std::string_view value) {
  if (value == "auto") return 0;
  const std::optional<std::uint64_t> bytes = ParseByteSize(value);
  if (!bytes || *bytes < (std::uint64_t{1} << 20))
    Refuse("device_memory", value, "auto or a size of at least 1M, such as 512M or 16G");
  return *bytes;
}

std::optional<std::uint64_t> ParsePinnedResultsKept(std::string_view value) {
  if (value == "auto") return std::nullopt;
  const std::optional<std::uint64_t> bytes = ParseByteSize(value);
  if (!bytes) Refuse("pinned_results_kept", value, "auto or a size such as 0, 512M or 8G");
  return bytes;
}

struct Setter {
  OptionName name;
  std::function<void(Options&, std::string_view)> set;
};

const std::vector<Setter>& Setters() {
  static const std::vector<Setter> setters{
      {{"wg_size", "0|2^k", "work-group size (0: the device's default)"},
       [](Options& o, std::string_view v) {
         o.engine.work_group_size = ParsePowerOfTwo("wg_size", v);
       }},
      {{"ipt", "0|2^k", "items per work-item (0: the device's default)"},
       [](Options& o, std::string_view v) {
         o.engine.items_per_thread = ParsePowerOfTwo("ipt", v);
       }},
      {{"kernel_paths", "auto|cpu|gpu", "CPU or GPU kernel variants (auto: by device type)"},
       [](Options& o, std::string_view v) {
         if (v == "auto") {
           o.engine.kernel_paths = KernelPaths::kAuto;
         } else if (v == "cpu") {
           o.engine.kernel_paths = KernelPaths::kCpu;
         } else if (v == "gpu") {
           o.engine.kernel_paths = KernelPaths::kGpu;
         } else {
           Refuse("kernel_paths", v, "auto, cpu or gpu");
         }
       }},
      {{"build_options", "TEXT", "extra OpenCL build options"},
       [](Options& o, std::string_view v) { o.engine.extra_build_options = std::string(v); }},
      {{"sync", "on|off", "finish the queue after every enqueue"},
       [](Options& o, std::string_view v) { o.engine.sync = ParseBool("sync", v); }},
      {{"print_build_log", "on|off", "print the driver's build log"},
       [](Options& o, std::string_view v) {
         o.engine.print_build_log = ParseBool("print_build_log", v);
       }},
      {{"tablet_rows", "N", "most rows per device tablet (0: the device's limit)"},
       [](Options& o, std::string_view v) {
         o.engine.tablet_rows = ParseUnsigned("tablet_rows", v, 0xFFFFFFFFull);
       }},
      {{"pinned_tables", "auto|on|off", "host tables in pinned memory (auto: GPUs)"},
       [](Options& o, std::string_view v) {
         o.engine.pinned_tables = ParseChoice("pinned_tables", v);
       }},
      {{"device_memory", "auto|SIZE",
        "most device memory clq uses, as if the device had no more (auto: all of it)"},
       [](Options& o, std::string_view v) { o.engine.device_memory = ParseDeviceMemory(v); }},
      {{"pinned_results", "auto|on|off", "large results in reused pinned memory (auto: GPUs)"},
       [](Options& o, std::string_view v) {
         o.engine.pinned_results = ParseChoice("pinned_results", v);
       }},
      {{"pinned_results_kept", "auto|SIZE",
        "most bytes of freed pinned result blocks kept for reuse (auto: a quarter of host and "
        "of device memory, the less)"},
       [](Options& o, std::string_view v) {
         o.engine.pinned_results_kept = ParsePinnedResultsKept(v);
       }},
      {{"assume_no_fp64", "on|off", "treat the device as lacking fp64 (REAL queries refused)"},
       [](Options& o, std::string_view v) {
         o.engine.assume_no_fp64 = ParseBool("assume_no_fp64", v);
       }},
      {{"assume_no_int64_atomics", "on|off",
        "treat the device as lacking 64-bit atomics (GROUP BY sorts)"},
       [](Options& o, std::string_view v) {
         o.engine.assume_no_int64_atomics = ParseBool("assume_no_int64_atomics", v);
       }},
      {{"host_gather", "auto|on|off", "result columns read from host tables at row ids"},
       [](Options& o, std::string_view v) { o.query.host_gather = ParseChoice("host_gather", v); }},
      {{"conjunct_filter", "auto|on|off", "INT32 conjunct filters in vm_filter_conjuncts"},
       [](Options& o, std::string_view v) {
         o.query.conjunct_filter = ParseChoice("conjunct_filter", v);
       }},
      {{"range_first", "auto|on|off", "a selective leading range test run alone first"},
       [](Options& o, std::string_view v) { o.query.range_first = ParseChoice("range_first", v); }},
      {{"short_real", "auto|on|off", "short REAL aggregates in vm_aggregate_short_real"},
       [](Options& o, std::string_view v) { o.query.short_real = ParseChoice("short_real", v); }},
      {{"join_partitions", "auto|on|off",
        "a two-table join run a hash partition at a time (auto: past the device's memory)"},
       [](Options& o, std::string_view v) {
         o.query.join_partitions = ParseChoice("join_partitions", v);
       }},
      {{"narrow_machine", "on|off", "the 32-bit expression machine where values fit"},
       [](Options& o, std::string_view v) {
         o.query.narrow_machine = ParseBool("narrow_machine", v);
       }},
      {{"lean_machine", "on|off", "the lean expression machine where programs allow"},
       [](Options& o, std::string_view v) { o.query.lean_machine = ParseBool("lean_machine", v); }},
      {{"aggregate_tiles", "0..64", "tiles per aggregate work-group (0: by input size)"},
       [](Options& o, std::string_view v) {
         o.query.aggregate_tiles =
             static_cast<std::uint32_t>(ParseUnsigned("aggregate_tiles", v, 64));
       }},
      {{"device_shares", "measured|even|N:N...",
        "each device's share of the rows of a query given several devices (measured: by their "
        "speeds, or the fastest alone)"},
       [](Options& o, std::string_view v) { o.query.device_shares = ParseShares(v); }},
      {{"host_memory", "SIZE|unlimited",
        "most host memory for tables, joined rows and results (default: what is available at "
        "start)"},
       [](Options& o, std::string_view v) { o.query.host_memory = ParseHostMemory(v); }},
  };
  return setters;
}

}  // namespace

void Options::Set(std::string_view name, std::string_view value) {
  for (const Setter& setter : Setters()) {
    if (setter.name.name == name) {
      setter.set(*this, value);
      return;
    }
  }
  std::string known;
  for (const Setter& setter : Setters())
    known += (known.empty() ? "" : ", ") + std::string(setter.name.name);
  throw InvalidInputError("unknown option '" + std::string(name) + "' (options: " + known + ")");
}

void Options::Set(std::string_view assignment) {
  const std::size_t equals = assignment.find('=');
  if (equals == std::string_view::npos)
    throw InvalidInputError("option '" + std::string(assignment) + "': expected name=value");
  Set(assignment.substr(0, equals), assignment.substr(equals + 1));
}

const std::vector<OptionName>& OptionNames() {
  static const std::vector<OptionName> names = [] {
    std::vector<OptionName> out;
    for (const Setter& setter : Setters())
      out.push_back(setter.name);
    return out;
  }();
  return names;
}

}  // namespace clq
