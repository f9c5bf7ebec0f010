// A register cap for kernels that NVIDIA's OpenCL driver builds from PTX.
//
// The driver ignores -cl-nv-maxrregcount (measured: the expression machine's
// aggregate kernel got 80 registers with and without it), so the cap is set
// where ptxas reads it: a `.maxnreg N` directive on a kernel entry of the
// PTX that the driver returns as the program binary, which is then rebuilt
// from that binary. Fewer registers per work-item let more work-groups share
// a streaming multiprocessor (more loads in flight), at the price of spills.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace clq {

// Which entries get which cap: `by_kernel` names entries, `all` covers the
// others (none when unset).
struct PtxRegisterCaps {
  std::optional<unsigned> all;
  std::map<std::string, unsigned> by_kernel;

  bool empty() const { return !all && by_kernel.empty(); }
  // The caps as ParsePtxRegisterCaps reads them, in a fixed order (for the
  // program cache's key).
  std::string ToString() const;
};

// "N" (every kernel), "kernel=N" or a comma-separated list of both, each N
// from 16 to 255; InvalidInputError naming `what` otherwise.
PtxRegisterCaps ParsePtxRegisterCaps(const std::string& text, const std::string& what);

// `ptx` with `.maxnreg` added to every `.entry` that `caps` covers and that
// has no register directive yet; nullopt when the text holds no `.entry`
// (not PTX); InvalidInputError when `caps` names a kernel no entry has.
std::optional<std::string> CapPtxRegisters(const std::string& ptx, const PtxRegisterCaps& caps);
std::optional<std::string> CapPtxRegisters(const std::string& ptx, unsigned registers);

}  // namespace clq
