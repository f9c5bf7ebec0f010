#include "runtime/ptx_register_cap.hpp"

#include <cctype>
#include <cstdlib>
#include <set>

#include "runtime/errors.hpp"

namespace clq {

std::string PtxRegisterCaps::ToString() const {
  std::string text;
  for (const auto& [kernel, registers] : by_kernel) {
    if (!text.empty()) text += ',';
    text += kernel + '=' + std::to_string(registers);
  }
  if (all) text += (text.empty() ? "" : ",") + std::to_string(*all);
  return text;
}

PtxRegisterCaps ParsePtxRegisterCaps(const std::string& text, const std::string& what) {
  const auto refuse = [&](const std::string& why) {
    throw InvalidInputError(what + "='" + text + "': " + why +
                            " (expected N or kernel=N, comma-separated, N from 16 to 255)");
  };
  const auto count = [&](const std::string& digits) {
    char* end = nullptr;
    const unsigned long registers = std::strtoul(digits.c_str(), &end, 10);
    if (digits.empty() || !std::isdigit(static_cast<unsigned char>(digits[0])) || *end != '\0')
      refuse("'" + digits + "' is not a register count");
    if (registers < 16 || registers > 255) refuse(digits + " is out of range");
    return static_cast<unsigned>(registers);
  };
  PtxRegisterCaps caps;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::string item = text.substr(at, comma - at);
    const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!item.empty() && space(item.back()))
      item.pop_back();
    while (!item.empty() && space(item.front()))
      item.erase(item.begin());
    const std::size_t equals = item.find('=');
    if (equals == std::string::npos) {
      if (caps.all) refuse("two caps for every kernel");
      caps.all = count(item);
    } else {
      const std::string kernel = item.substr(0, equals);
      if (kernel.empty()) refuse("a kernel name is empty");
      if (!caps.by_kernel.emplace(kernel, count(item.substr(equals + 1))).second)
        refuse("two caps for " + kernel);
    }
    at = comma + 1;
  }
  return caps;
}

std::optional<std::string> CapPtxRegisters(const std::string& ptx, const PtxRegisterCaps& caps) {
  std::string out;
  out.reserve(ptx.size() + 4096);
  std::size_t at = 0;
  bool any = false;
  std::set<std::string> named_entries;
  for (std::size_t entry = ptx.find(".entry ", at); entry != std::string::npos;
       entry = ptx.find(".entry ", at)) {
    // The body opens at the first '{' after the parameter list's ')';
    // directives (.maxntid, .reqntid, .maxnreg) sit between the two.
    const std::size_t name_begin = entry + 7;
    const std::size_t name_end = ptx.find('(', name_begin);
    const std::size_t params_end = ptx.find(')', entry);
    if (name_end == std::string::npos || params_end == std::string::npos) return std::nullopt;
    const std::size_t body = ptx.find('{', params_end);
    if (body == std::string::npos) return std::nullopt;
    out.append(ptx, at, body - at);
    const std::string name = ptx.substr(name_begin, name_end - name_begin);
    const auto named = caps.by_kernel.find(name);
    if (named != caps.by_kernel.end()) named_entries.insert(name);
    const std::optional<unsigned> cap =
        named != caps.by_kernel.end() ? std::optional<unsigned>(named->second) : caps.all;
    if (cap && ptx.substr(params_end, body - params_end).find(".maxnreg") == std::string::npos)
      out += ".maxnreg " + std::to_string(*cap) + "\n";
    at = body;
    any = true;
  }
  if (!any) return std::nullopt;
  for (const auto& named : caps.by_kernel)
    if (named_entries.count(named.first) == 0)
      throw InvalidInputError("a register cap names '" + named.first +
                              "', which is not a kernel of the program");
  out.append(ptx, at, std::string::npos);
  return out;
}

std::optional<std::string> CapPtxRegisters(const std::string& ptx, unsigned registers) {
  PtxRegisterCaps caps;
  caps.all = registers;
  return CapPtxRegisters(ptx, caps);
}

}  // namespace clq
