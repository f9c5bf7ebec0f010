// clq's settings, in one place. They are parsed once at the program's edge
// (the command line and its environment in host/, the tests' fixture) and
// passed down: an Engine takes EngineOptions when it starts, and a query
// takes QueryOptions when it is planned. Nothing below host/ reads the
// environment.
//
//   EngineOptions  fixed for an engine's life: its kernels are built with
//                  them (geometry, kernel paths, extra build options) or
//                  they shape its storage (tablet size, pinned tables and results).
//   QueryOptions   decisions the planner makes per query, each with a
//                  setting that forces it either way, so tests cover both
//                  paths and benchmarks measure what a choice gains.
//
// Options::Set parses one `name=value` setting (the names are listed by
// OptionNames and in the README); it throws InvalidInputError with the
// known names or the accepted values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/host_memory.hpp"

namespace clq {

// A decision the engine makes itself (kAuto) or that is forced either way.
enum class Choice : std::uint8_t { kAuto, kOff, kOn };

// kOn / kOff when forced, else `automatic`.
inline bool Decide(Choice choice, bool automatic) {
  return choice == Choice::kAuto ? automatic : choice == Choice::kOn;
}

enum class KernelPaths : std::uint8_t { kAuto, kCpu, kGpu };

struct EngineOptions {
  // Work-group size and items per work-item (powers of two); 0: the
  // device's default geometry.
  std::uint32_t work_group_size = 0;
  std::uint32_t items_per_thread = 0;
  // The CPU or GPU variants of the kernels; kAuto: by device type (the GPU
  // variants run on PoCL for tests).
  KernelPaths kernel_paths = KernelPaths::kAuto;
  // Appended to the OpenCL build options (e.g. -cl-nv-verbose).
  std::string extra_build_options;
  // Finish the queue after every enqueue, so that an asynchronous device
  // error surfaces at the call that caused it.
  bool sync = false;
  // Print the driver's build log after a build from source.
  bool print_build_log = false;
  // Program binaries cached on disk in `cache_directory` (the edge resolves
  // the default; empty: no cache).
  bool use_program_cache = true;
  std::filesystem::path cache_directory;
  // Most rows per device tablet; 0: as many as the device's largest
  // allocation holds (tests force small tablets).
  std::uint64_t tablet_rows = 0;
  // Most bytes of device memory the engine allocates (tables, intermediates),
  // as if the device had no more; 0: the device's global memory. A cap makes
  // tables travel in tablets of at most 1/16 of it, resident within half of
  // it, and makes CPU devices copy tables rather than read them in place, so
  // that out-of-core runs can be tested on any device.
  std::uint64_t device_memory = 0;
  // GPUs: numeric columns of host tables in pinned memory of the engine's
  // context, so their first upload is one DMA (kAuto: on, for devices that
  // copy tables).
  Choice pinned_tables = Choice::kAuto;
  // GPUs: result columns of runtime/pinned_result_pool's minimum size and
  // more in pinned blocks of the engine's context, downloaded in one DMA and
  // reused from one result to the next (kAuto: on, for devices that stage
  // transfers, i.e. not CPUs).
  Choice pinned_results = Choice::kAuto;
  // Most bytes of freed pinned result blocks kept for reuse; nullopt: a
  // quarter of `host_memory` or of the device's memory, whichever is less
  // (NVIDIA reserves device memory of each pinned block's size).
  std::optional<std::uint64_t> pinned_results_kept;
  // The host memory pinned tables and kept result blocks are sized from:
  // the edge sets what was available when the program started (a memory
  // cgroup's limit included); kUnlimitedHostMemory: only the device's
  // memory bounds them.
  std::uint64_t host_memory = kUnlimitedHostMemory;
  // Treat the device as lacking fp64 (cl_khr_fp64) or 64-bit atomics
  // (cl_khr_int64_base_atomics) although it has them: its kernels are built
  // without them and the planner works around their absence as on such a
  // device (plan/device_capabilities.hpp), so that tests cover those paths
  // on any device.
  bool assume_no_fp64 = false;
  bool assume_no_int64_atomics = false;
};

// How a query given several devices uses them: by the cost model
// (plan/split_costs.hpp: each device's measured speed decides the shares of
// a split, or the one device that runs it alone), or split whenever it
// merges from parts, evenly or in the shares given (device d's share of the
// sum of them), and otherwise on the first device.
struct DeviceShares {
  bool measured = true;
  std::vector<std::uint32_t> given;  // without `measured`; empty: even shares
};

struct QueryOptions {
  // Result columns read from the host table at the result's row ids (kAuto:
  // when the device does not hold the column and the result has at most
  // 1/64 of the table's rows).
  Choice host_gather = Choice::kAuto;
  // Filters of INT32 column tests run in vm_filter_conjuncts (kAuto: on GPU
  // kernel paths).
  Choice conjunct_filter = Choice::kAuto;
  // A selective leading range test runs alone first in filter_range_tiles
  // (kAuto: on GPU kernel paths, when statistics say it keeps <= 1/16).
  Choice range_first = Choice::kAuto;
  // Aggregates of short REAL arithmetic run in vm_aggregate_short_real
  // (kAuto: on, where the shape allows).
  Choice short_real = Choice::kAuto;
  // A join of two tables runs a hash partition at a time
  // (plan/join_partitions.hpp): kAuto where its working set would pass a
  // quarter of the device's memory (one pass tried first where it may still
  // fit the device), kOn wherever the join allows, kOff never.
  Choice join_partitions = Choice::kAuto;
  // The 32-bit expression machine where the range analysis allows it, and
  // the lean one (no rare operations) where a program needs none.
  bool narrow_machine = true;
  bool lean_machine = true;
  // Tests only: every program on the lean machine, so that a rare operation
  // reaching it is seen to raise VM_STATUS_UNSUPPORTED.
  bool force_lean_machine = false;
  // Tiles each aggregate work-group folds (1 to 64); 0: by input size.
  std::uint32_t aggregate_tiles = 0;
  // How a query given several devices shares them (plan/device_split.hpp).
  DeviceShares device_shares;
  // Most bytes of host memory the query's tables and what it builds from
  // them may take (common/host_memory.hpp); the program's edge sets the
  // memory available when it starts, the tables a command builds are held
  // to it too. kUnlimitedHostMemory: no budget.
  std::uint64_t host_memory = kUnlimitedHostMemory;
};

struct Options {
  EngineOptions engine;
  QueryOptions query;

  // Parses one setting, "name=value" split into its parts.
  void Set(std::string_view name, std::string_view value);
  // Parses "name=value".
  void Set(std::string_view assignment);
};

// The names Options::Set takes, with a one-line description each.
struct OptionName {
  std::string_view name;
  std::string_view values;
  std::string_view meaning;
};
const std::vector<OptionName>& OptionNames();

}  // namespace clq
