#include "runtime/device_tuning.hpp"

#include "common/errors.hpp"

namespace clq {
namespace {

std::uint32_t Override(const char* name, std::uint32_t requested, std::uint32_t fallback,
                       std::uint64_t limit) {
  if (requested == 0) return fallback;
  if ((requested & (requested - 1)) != 0 || requested > limit) {
    throw InvalidInputError(std::string(name) + "=" + std::to_string(requested) +
                            " is not a power of two between 1 and " + std::to_string(limit));
  }
  return requested;
}

}  // namespace

std::string DeviceTuning::Describe() const {
  return "work-group " + std::to_string(work_group_size) + " x " +
         std::to_string(items_per_thread) + " items per work-item";
}

DeviceTuning ChooseTuning(const DeviceInfo& info, const EngineOptions& options) {
  DeviceTuning tuning;
  // KernelPaths::kGpu lets PoCL run the GPU variants (tree reductions,
  // Blelloch scans, striped items) so CI checks them without a GPU.
  tuning.cpu_paths = options.kernel_paths == KernelPaths::kAuto
                         ? info.kind == DeviceKind::kCpu
                         : options.kernel_paths == KernelPaths::kCpu;
  tuning.extra_build_options = options.extra_build_options;
  if (tuning.cpu_paths) {
    // 4 x 256 (was 16 x 64, the same tile): the expression machine pays its
    // decode and set-up once per work-item, so more items per work-item
    // amortise them (fewer instructions per row, as counted by
    // scripts/pocl_instructions.sh).
    tuning.work_group_size = 4;
    tuning.items_per_thread = 256;
  } else {
    // 128, not 256: at the expression machine's register counts an SM holds
    // five groups of 128 but two of 256 (its aggregate kernel: four of 128,
    // two of 256), and its queries ran faster; sort and top-k ran slightly
    // slower, joins the same.
    tuning.work_group_size = 128;
    tuning.items_per_thread = 8;
  }
  // Local-memory scans need WG_SIZE to fit the device; keep it a power of two.
  while (tuning.work_group_size > info.max_work_group_size && tuning.work_group_size > 1)
    tuning.work_group_size /= 2;
  tuning.work_group_size = Override("wg_size", options.work_group_size, tuning.work_group_size,
                                    info.max_work_group_size);
  tuning.items_per_thread =
      Override("ipt", options.items_per_thread, tuning.items_per_thread, 1024);
  return tuning;
}

std::string BuildOptions(const DeviceInfo& info, const DeviceTuning& tuning) {
  std::string options = "-cl-std=CL1.2";
  options += " -DWG_SIZE=" + std::to_string(tuning.work_group_size);
  options += " -DIPT=" + std::to_string(tuning.items_per_thread);
  options += " -DHAS_FP64=" + std::string(info.fp64 ? "1" : "0");
  options += " -DHAS_INT64_ATOMICS=" + std::string(info.int64_atomics ? "1" : "0");
  options += std::string(" -DDEVICE_IS_CPU=") + (tuning.cpu_paths ? "1" : "0");
  // PoCL's and Intel's CPU kernels are native code over host addresses,
  // which the CPU variants prefetch (kernels_cl/common.cl, CLQ_PREFETCH).
  // On Intel's runtime (2 cores, 1M rows) it halved the device time of the
  // thesis's aggregates: L14_max 1.92 -> 0.86 ms, L7_avg 0.58 -> 0.28.
  if (tuning.cpu_paths && (info.IsPocl() || info.IsIntelCpuRuntime()))
    options += " -DHOST_PREFETCH=1";
  // NVIDIA GPUs build tile bitmaps with warp ballots (kernels_cl/common.cl).
  if (!tuning.cpu_paths && info.platform_name.find("NVIDIA") != std::string::npos &&
      tuning.work_group_size % 32 == 0)
    options += " -DWARP_BALLOT=1";
  // PoCL's clang printed "loop not vectorized" to stderr for each item loop
  // its vectoriser declined despite VECTORIZE_ITEMS (dozens at a cold
  // start); they are expected, not the user's concern. PoCL rejects
  // -Wno-pass-failed, so -w (OpenCL's "no warnings") it is.
  if (info.IsPocl()) options += " -w";
  // For kernel experiments, e.g. NVIDIA's -cl-nv-verbose.
  if (!tuning.extra_build_options.empty()) options += " " + tuning.extra_build_options;
  return options;
}

}  // namespace clq
