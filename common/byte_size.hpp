// Sizes in bytes as people write and read them: "64M" parsed, 7.5 GiB
// printed, and arithmetic on sizes that saturates instead of wrapping, so
// that rows x width of any input stays an honest upper bound that a limit
// can refuse. Reentrant.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace clq {

// What a saturated size holds: more than 64 bits can count.
inline constexpr std::uint64_t kSaturatedBytes = std::numeric_limits<std::uint64_t>::max();

// a * b, or kSaturatedBytes when the product does not fit 64 bits.
inline std::uint64_t SaturatingMultiply(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? kSaturatedBytes : product;
}

// a + b, or kSaturatedBytes when the sum does not fit 64 bits.
inline std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kSaturatedBytes : sum;
}

// "1048576", "64K", "64KiB", "64KB", "1M", "2G", "1T" (binary multiples,
// any case); nullopt for anything else, a size past 64 bits included.
std::optional<std::uint64_t> ParseByteSize(std::string_view text);

// "512 B", "64.00 KiB", "7.45 GiB", "2.00 TiB"; kSaturatedBytes as "more
// than 16 EiB".
std::string FormatBytes(std::uint64_t bytes);

}  // namespace clq
