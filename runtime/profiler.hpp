// Per-stage device timings from OpenCL profiling events, for --profile, EXPLAIN
// ANALYZE-style reports and benchmarks.
//
// While a profile is active, Engine records every kernel launch, upload and
// download with its stage name; Stop() waits for the events and returns one
// entry per stage name (summed over launches) in order of first appearance.
// Program builds happen at engine start and are never part of a profile.
//
// Host steps whose time grows with the rows (building a derived table's host
// table, a result's host columns) are recorded too, as kHost stages with
// their wall time, so that a profile shows where a query's wall time goes
// beside its device time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cl.hpp"

namespace clq {

// kNodeWall: a physical plan node's own wall time (its children's excluded),
// device work and host work together; a view of the same time as the other
// kinds, so not part of their totals.
enum class StageKind { kKernel, kUpload, kDownload, kDeviceCopy, kHost, kNodeWall };

const char* StageKindName(StageKind kind);

struct StageTiming {
  std::string name;
  StageKind kind = StageKind::kKernel;
  // Device time, end minus start of each command, summed; for kHost, the
  // host's wall time of the step, summed.
  double milliseconds = 0;
  std::uint64_t bytes = 0;  // bytes the stage moved, when known
  std::uint32_t launches = 0;
};

class Profiler {
 public:
  void Start();
  bool active() const { return active_; }
  void Record(std::string_view name, StageKind kind, const cl::Event& event, std::uint64_t bytes);
  // A host step of `milliseconds` wall time (StageKind::kHost, or kNodeWall).
  void RecordHost(std::string_view name, double milliseconds, StageKind kind = StageKind::kHost);
  // Waits for every recorded event; ends the profile.
  std::vector<StageTiming> Stop();

 private:
  struct Record_ {
    std::string name;
    StageKind kind;
    cl::Event event;  // none for kHost
    std::uint64_t bytes;
    double host_milliseconds = 0;
  };
  bool active_ = false;
  std::vector<Record_> records_;
};

// Records the wall time from its construction to its destruction as a host
// stage of `profiler` (when a profile is active then).
class HostStage {
 public:
  HostStage(Profiler& profiler, std::string_view name)
      : profiler_(profiler), name_(name), start_(std::chrono::steady_clock::now()) {}
  ~HostStage() {
    profiler_.RecordHost(
        name_, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                   .count());
  }
  HostStage(const HostStage&) = delete;
  HostStage& operator=(const HostStage&) = delete;

 private:
  Profiler& profiler_;
  std::string_view name_;
  std::chrono::steady_clock::time_point start_;
};

// Milliseconds between CL_PROFILING_COMMAND_START and _END of a finished event.
double EventMilliseconds(const cl::Event& event);

}  // namespace clq
