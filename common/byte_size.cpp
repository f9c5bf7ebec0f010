#include "common/byte_size.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>

namespace clq {

std::optional<std::uint64_t> ParseByteSize(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  std::string suffix;
  for (const char c : text.substr(digits))
    suffix.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  unsigned shift = 0;
  if (suffix.empty() || suffix == "B") {
    shift = 0;
  } else if (suffix == "K" || suffix == "KB" || suffix == "KIB") {
    shift = 10;
  } else if (suffix == "M" || suffix == "MB" || suffix == "MIB") {
    shift = 20;
  } else if (suffix == "G" || suffix == "GB" || suffix == "GIB") {
    shift = 30;
  } else if (suffix == "T" || suffix == "TB" || suffix == "TIB") {
    shift = 40;
  } else {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + digits, value);
  if (digits == 0 || error != std::errc() || end != text.data() + digits) return std::nullopt;
  const std::uint64_t bytes = SaturatingMultiply(value, std::uint64_t{1} << shift);
  if (bytes == kSaturatedBytes) return std::nullopt;
  return bytes;
}

std::string FormatBytes(std::uint64_t bytes) {
  if (bytes == kSaturatedBytes) return "more than 16 EiB";
  if (bytes < 1024) return std::to_string(bytes) + " B";
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f %s", value, kUnits[unit]);
  return text;
}

}  // namespace clq
