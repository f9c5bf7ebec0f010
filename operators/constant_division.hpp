// Signed 64-bit division by a constant through multiplication with a magic
// number (Granlund & Montgomery 1994; Hacker's Delight, 2nd ed., 10-4), so
// `x / 100` costs a multiply-high and shifts on devices instead of a 64-bit
// division routine. The device side is vm_div_magic in kernels_cl/vm.cl.
#pragma once

#include <cstdint>
#include <optional>

namespace clq {

struct DivisionMagic {
  std::int64_t magic = 0;
  std::uint32_t shift = 0;
  std::uint32_t mode = 0;  // 0: none, 1: add the dividend, 2: subtract it
};

// The magic number for divisor d, for 2 <= |d| < 2^62; nullopt otherwise.
std::optional<DivisionMagic> DivisionMagicFor(std::int64_t d);

// The quotient by the same arithmetic the device uses (truncating, as C).
std::int64_t DivideByMagic(std::int64_t n, const DivisionMagic& m);

// 32-bit variant for dividends with |n| < 2^31 (the compiler proves it from
// value ranges): q = mul_hi(|n|, magic) >> shift, negated when n and d differ
// in sign. magic = ceil(2^(31 + l) / |d|) with l = ceil(log2 |d|) fits 32
// bits, and m * |d| - 2^(31 + l) < 2^l makes the quotient exact for every
// 31-bit |n| (Granlund & Montgomery 1994, theorem 4.2). Same struct: mode 1
// marks a negative divisor. For 2 <= |d| < 2^31; nullopt otherwise.
std::optional<DivisionMagic> DivisionMagic32For(std::int64_t d);
std::int64_t DivideByMagic32(std::int32_t n, const DivisionMagic& m);

}  // namespace clq
