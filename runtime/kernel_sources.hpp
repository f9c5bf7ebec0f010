// The OpenCL C sources of kernels_cl/, embedded into the binary at build time
// by scripts/embed_kernels.cmake (common.cl first, then the rest by name).
#pragma once

#include <span>

namespace clq {

struct KernelSource {
  const char* file_name;  // "selection.cl"
  const char* text;       // starts with #line 1 "selection.cl"
};

std::span<const KernelSource> EmbeddedKernelSources();

}  // namespace clq
