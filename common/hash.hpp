// Non-cryptographic hashing for cache keys and file checksums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace clq {

// FNV-1a, 64 bits: for short keys (program-cache keys, names).
inline std::uint64_t Fnv1a64(std::string_view text, std::uint64_t seed = 0xcbf29ce484222325ULL) {
  std::uint64_t hash = seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// A fast 64-bit checksum of a byte range (several GB/s): four independent
// multiply-rotate lanes over 8-byte words, folded at the end. Detects any
// single changed byte and truncation (the length is mixed in).
inline std::uint64_t Checksum64(std::span<const std::byte> bytes) {
  constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
  constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
  auto rotl = [](std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto round = [&](std::uint64_t acc, std::uint64_t word) {
    acc += word * kPrime2;
    return rotl(acc, 31) * kPrime1;
  };
  std::uint64_t lanes[4] = {kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1};
  const std::byte* p = bytes.data();
  std::size_t remaining = bytes.size();
  while (remaining >= 32) {
    for (auto& lane : lanes) {
      std::uint64_t word;
      std::memcpy(&word, p, 8);
      lane = round(lane, word);
      p += 8;
    }
    remaining -= 32;
  }
  std::uint64_t hash = rotl(lanes[0], 1) + rotl(lanes[1], 7) + rotl(lanes[2], 12) +
                       rotl(lanes[3], 18) + static_cast<std::uint64_t>(bytes.size());
  while (remaining > 0) {
    hash = round(hash, static_cast<std::uint64_t>(*p));
    ++p;
    --remaining;
  }
  hash ^= hash >> 33;
  hash *= kPrime2;
  hash ^= hash >> 29;
  return hash;
}

}  // namespace clq
