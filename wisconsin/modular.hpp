// Modular arithmetic for the Wisconsin generator's multiplicative sequences:
// multiplication, exponentiation and primality / primitive-root checks for
// moduli below 2^32. Header-only, pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace clq {

__extension__ typedef unsigned __int128 Uint128;  // __extension__: -Wpedantic knows no __int128

// Multiplication modulo a fixed p < 2^32 by Barrett reduction, so the hot loop
// of the generator needs no division. Both operands must be below p, so their
// product fits in 64 bits.
class ModMultiplier {
 public:
  explicit ModMultiplier(std::uint64_t modulus)
      : modulus_(modulus), inverse_(~std::uint64_t{0} / modulus) {}

  std::uint64_t modulus() const { return modulus_; }

  std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const {
    const std::uint64_t x = a * b;
    // inverse_ = floor((2^64-1)/p) underestimates x/p by less than 2, so one
    // conditional subtraction finishes the reduction.
    const auto quotient = static_cast<std::uint64_t>((Uint128{x} * inverse_) >> 64);
    std::uint64_t r = x - quotient * modulus_;
    return r >= modulus_ ? r - modulus_ : r;
  }

 private:
  std::uint64_t modulus_;
  std::uint64_t inverse_;
};

// base^exponent mod p.
inline std::uint64_t PowMod(const ModMultiplier& mul, std::uint64_t base, std::uint64_t exponent) {
  std::uint64_t result = 1 % mul.modulus();
  base %= mul.modulus();
  while (exponent > 0) {
    if (exponent & 1) result = mul(result, base);
    base = mul(base, base);
    exponent >>= 1;
  }
  return result;
}

// Distinct prime factors of n (trial division: fine for n < 2^40).
inline std::vector<std::uint64_t> PrimeFactors(std::uint64_t n) {
  std::vector<std::uint64_t> factors;
  for (std::uint64_t d = 2; d * d <= n; ++d) {
    if (n % d != 0) continue;
    factors.push_back(d);
    while (n % d == 0)
      n /= d;
  }
  if (n > 1) factors.push_back(n);
  return factors;
}

inline bool IsPrime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// True when g generates the whole multiplicative group mod the prime p: no
// g^((p-1)/q) is 1 for a prime factor q of p-1. Then g^1 .. g^(p-1) visit
// every value 1 .. p-1 exactly once, which makes unique1 a permutation.
inline bool IsPrimitiveRoot(std::uint64_t g, std::uint64_t p) {
  if (!IsPrime(p) || g % p == 0) return false;
  const ModMultiplier mul(p);
  for (std::uint64_t q : PrimeFactors(p - 1))
    if (PowMod(mul, g, (p - 1) / q) == 1) return false;
  return true;
}

}  // namespace clq
