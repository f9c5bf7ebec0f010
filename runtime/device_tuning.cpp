#include "runtime/device_tuning.hpp"

#include <cstdlib>

#include "runtime/environment.hpp"
#include "runtime/errors.hpp"

namespace clq {
namespace {

bool IsPowerOfTwo(std::uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

std::uint32_t EnvOverride(const char* name, std::uint32_t fallback, std::uint64_t limit) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || !IsPowerOfTwo(value) || value > limit) {
    throw InvalidInputError(std::string(name) + "=" + text +
                            " is not a power of two between 1 and " + std::to_string(limit));
  }
  return static_cast<std::uint32_t>(value);
}

}  // namespace

std::string DeviceTuning::Describe() const {
  std::string text = "work-group " + std::to_string(work_group_size) + " x " +
                     std::to_string(items_per_thread) + " items per work-item";
  if (vm_lanes != 0 && vm_lanes != items_per_thread)
    text +=
        ", expression machine " + std::to_string(vm_lanes) + " lane" + (vm_lanes == 1 ? "" : "s");
  return text;
}

DeviceTuning ChooseTuning(const DeviceInfo& info) {
  DeviceTuning tuning;
  if (UseCpuKernelPaths(info)) {
    // 4 x 256 (was 16 x 64, the same tile): the expression machine pays its
    // decode and set-up once per work-item, so more items per work-item
    // amortise them (2-core PoCL, instructions per row counted by
    // scripts/pocl_instructions.sh: MAX(unique1 * tenpercent / 100) 12.9 ->
    // 8.8, unique1 + unique2 6.0 -> 4.2).
    tuning.work_group_size = 4;
    tuning.items_per_thread = 256;
  } else {
    // 128, not 256: the expression machine's projection and filter kernels
    // hold 96 registers, so an SM fits two groups of 256 but five of 128
    // (its 128-register aggregate: four of 128, two of 256) (H100, 2026-11-23:
    // projection 0.509 -> 0.447 ms, selection 0.924 -> 0.755 ms at 100M
    // rows; sort 2.7% and top-k 4.7% slower, joins unchanged).
    tuning.work_group_size = 128;
    tuning.items_per_thread = 8;
  }
  // Local-memory scans need WG_SIZE to fit the device; keep it a power of two.
  while (tuning.work_group_size > info.max_work_group_size && tuning.work_group_size > 1)
    tuning.work_group_size /= 2;
  tuning.work_group_size =
      EnvOverride("CLQ_WG_SIZE", tuning.work_group_size, info.max_work_group_size);
  tuning.items_per_thread = EnvOverride("CLQ_IPT", tuning.items_per_thread, 1024);
  tuning.vm_lanes = EnvOverride("CLQ_VM_LANES", tuning.items_per_thread, tuning.items_per_thread);
  return tuning;
}

bool UseCpuKernelPaths(const DeviceInfo& info) {
  // CLQ_KERNEL_PATHS=gpu lets PoCL run the GPU variants (tree reductions,
  // Blelloch scans, striped items) so CI checks them without a GPU.
  if (const char* paths = std::getenv("CLQ_KERNEL_PATHS"); paths != nullptr && *paths != '\0') {
    const std::string value = paths;
    if (value == "gpu") return false;
    if (value == "cpu") return true;
    throw InvalidInputError("CLQ_KERNEL_PATHS=" + value + " is neither gpu nor cpu");
  }
  return info.kind == DeviceKind::kCpu;
}

std::string BuildOptions(const DeviceInfo& info, const DeviceTuning& tuning) {
  std::string options = "-cl-std=CL1.2";
  options += " -DWG_SIZE=" + std::to_string(tuning.work_group_size);
  options += " -DIPT=" + std::to_string(tuning.items_per_thread);
  if (tuning.vm_lanes != 0) options += " -DVM_LANES=" + std::to_string(tuning.vm_lanes);
  options += " -DHAS_FP64=" + std::string(info.fp64 ? "1" : "0");
  options += " -DHAS_INT64_ATOMICS=" + std::string(info.int64_atomics ? "1" : "0");
  options += std::string(" -DDEVICE_IS_CPU=") + (UseCpuKernelPaths(info) ? "1" : "0");
  // NVIDIA GPUs build tile bitmaps with warp ballots (kernels_cl/common.cl);
  // CLQ_WARP_BALLOT=0 keeps the local-memory path, for comparison.
  if (!UseCpuKernelPaths(info) && info.platform_name.find("NVIDIA") != std::string::npos &&
      tuning.work_group_size % 32 == 0 && EnvironmentAllows("CLQ_WARP_BALLOT"))
    options += " -DWARP_BALLOT=1";
  // PoCL's clang printed "loop not vectorized" to stderr for each item loop
  // its vectoriser declined despite VECTORIZE_ITEMS (41 warnings at a cold
  // start); they are expected, not the user's concern. PoCL rejects
  // -Wno-pass-failed, so -w (OpenCL's "no warnings") it is.
  if (info.IsPocl()) options += " -w";
  // For kernel experiments, e.g. NVIDIA's -cl-nv-maxrregcount=64.
  if (const char* extra = std::getenv("CLQ_BUILD_OPTIONS"); extra != nullptr && *extra != '\0')
    options += std::string(" ") + extra;
  return options;
}

}  // namespace clq
