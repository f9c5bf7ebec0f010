#include "runtime/profiler.hpp"

#include "runtime/cl_error.hpp"

namespace clq {

const char* StageKindName(StageKind kind) {
  switch (kind) {
    case StageKind::kKernel:
      return "kernel";
    case StageKind::kUpload:
      return "upload";
    case StageKind::kDownload:
      return "download";
    case StageKind::kDeviceCopy:
      return "copy";
    case StageKind::kHost:
      return "host";
    case StageKind::kNodeWall:
      return "node wall";
  }
  return "?";
}

void Profiler::Start() {
  records_.clear();
  active_ = true;
}

void Profiler::Record(std::string_view name, StageKind kind, const cl::Event& event,
                      std::uint64_t bytes) {
  if (active_) records_.push_back({std::string(name), kind, event, bytes});
}

void Profiler::RecordHost(std::string_view name, double milliseconds, StageKind kind) {
  if (active_) records_.push_back({std::string(name), kind, {}, 0, milliseconds});
}

double EventMilliseconds(const cl::Event& event) {
  try {
    event.wait();
    const cl_ulong start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const cl_ulong end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    return end > start ? static_cast<double>(end - start) * 1e-6 : 0.0;
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "reading profiling information");
  }
}

std::vector<StageTiming> Profiler::Stop() {
  active_ = false;
  std::vector<StageTiming> stages;
  for (const Record_& record : records_) {
    StageTiming* stage = nullptr;
    for (StageTiming& existing : stages)
      if (existing.name == record.name && existing.kind == record.kind) stage = &existing;
    if (stage == nullptr) {
      stages.push_back({record.name, record.kind, 0.0, 0, 0});
      stage = &stages.back();
    }
    const bool host = record.kind == StageKind::kHost || record.kind == StageKind::kNodeWall;
    stage->milliseconds += host ? record.host_milliseconds : EventMilliseconds(record.event);
    stage->bytes += record.bytes;
    stage->launches += 1;
  }
  records_.clear();
  return stages;
}

}  // namespace clq
