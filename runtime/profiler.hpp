// Per-stage device timings from OpenCL profiling events, for --profile, EXPLAIN
// ANALYZE-style reports and benchmarks.
//
// While a profile is active, Engine records every kernel launch, upload and
// download with its stage name; Stop() waits for the events and returns one
// entry per stage name (summed over launches) in order of first appearance.
// Program builds happen at engine start and are never part of a profile.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cl.hpp"

namespace clq {

enum class StageKind { kKernel, kUpload, kDownload, kDeviceCopy };

const char* StageKindName(StageKind kind);

struct StageTiming {
  std::string name;
  StageKind kind = StageKind::kKernel;
  double milliseconds = 0;  // device time, end minus start of each command, summed
  std::uint64_t bytes = 0;  // bytes the stage moved, when known
  std::uint32_t launches = 0;
};

class Profiler {
 public:
  void Start();
  bool active() const { return active_; }
  void Record(std::string_view name, StageKind kind, const cl::Event& event, std::uint64_t bytes);
  // Waits for every recorded event; ends the profile.
  std::vector<StageTiming> Stop();

 private:
  struct Record_ {
    std::string name;
    StageKind kind;
    cl::Event event;
    std::uint64_t bytes;
  };
  bool active_ = false;
  std::vector<Record_> records_;
};

// Milliseconds between CL_PROFILING_COMMAND_START and _END of a finished event.
double EventMilliseconds(const cl::Event& event);

}  // namespace clq
