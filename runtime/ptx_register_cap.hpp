// A register cap for kernels that NVIDIA's OpenCL driver builds from PTX.
//
// The driver ignores -cl-nv-maxrregcount (measured: the expression machine's
// aggregate kernel got 80 registers with and without it), so the cap is set
// where ptxas reads it: a `.maxnreg N` directive on each kernel entry of the
// PTX that the driver returns as the program binary, which is then rebuilt
// from that binary. Fewer registers per work-item let more work-groups share
// a streaming multiprocessor (more loads in flight), at the price of spills.
#pragma once

#include <optional>
#include <string>

namespace clq {

// `ptx` with `.maxnreg registers` added to every `.entry` that has no
// register directive yet; nullopt when the text holds no `.entry` (not PTX).
std::optional<std::string> CapPtxRegisters(const std::string& ptx, unsigned registers);

}  // namespace clq
