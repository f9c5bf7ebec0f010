#include "runtime/ptx_register_cap.hpp"

namespace clq {

std::optional<std::string> CapPtxRegisters(const std::string& ptx, unsigned registers) {
  const std::string directive = ".maxnreg " + std::to_string(registers) + "\n";
  std::string out;
  out.reserve(ptx.size() + 4096);
  std::size_t at = 0;
  bool any = false;
  for (std::size_t entry = ptx.find(".entry ", at); entry != std::string::npos;
       entry = ptx.find(".entry ", at)) {
    // The body opens at the first '{' after the parameter list's ')';
    // directives (.maxntid, .reqntid, .maxnreg) sit between the two.
    const std::size_t params_end = ptx.find(')', entry);
    if (params_end == std::string::npos) return std::nullopt;
    const std::size_t body = ptx.find('{', params_end);
    if (body == std::string::npos) return std::nullopt;
    out.append(ptx, at, body - at);
    if (ptx.substr(params_end, body - params_end).find(".maxnreg") == std::string::npos)
      out += directive;
    at = body;
    any = true;
  }
  if (!any) return std::nullopt;
  out.append(ptx, at, std::string::npos);
  return out;
}

}  // namespace clq
