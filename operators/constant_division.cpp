#include "operators/constant_division.hpp"

namespace clq {

std::optional<DivisionMagic> DivisionMagicFor(std::int64_t d) {
  constexpr std::uint64_t kTwo63 = 1ull << 63;
  const std::uint64_t ad =
      d < 0 ? 0 - static_cast<std::uint64_t>(d) : static_cast<std::uint64_t>(d);
  if (ad < 2 || ad >= (1ull << 62)) return std::nullopt;
  const std::uint64_t t = kTwo63 + (static_cast<std::uint64_t>(d) >> 63);
  const std::uint64_t anc = t - 1 - t % ad;  // |nc|
  int p = 63;
  std::uint64_t q1 = kTwo63 / anc, r1 = kTwo63 - q1 * anc;
  std::uint64_t q2 = kTwo63 / ad, r2 = kTwo63 - q2 * ad;
  std::uint64_t delta = 0;
  do {
    ++p;
    q1 *= 2;
    r1 *= 2;
    if (r1 >= anc) {
      ++q1;
      r1 -= anc;
    }
    q2 *= 2;
    r2 *= 2;
    if (r2 >= ad) {
      ++q2;
      r2 -= ad;
    }
    delta = ad - r2;
  } while (q1 < delta || (q1 == delta && r1 == 0));
  DivisionMagic m;
  m.magic = static_cast<std::int64_t>(q2 + 1);
  if (d < 0) m.magic = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(m.magic));
  m.shift = static_cast<std::uint32_t>(p - 64);
  if (d > 0 && m.magic < 0) m.mode = 1;
  if (d < 0 && m.magic > 0) m.mode = 2;
  return m;
}

std::int64_t DivideByMagic(std::int64_t n, const DivisionMagic& m) {
  __extension__ typedef __int128 Int128;  // GCC and Clang; the host side is a reference only
  const Int128 product = static_cast<Int128>(m.magic) * n;
  std::int64_t q = static_cast<std::int64_t>(product >> 64);
  if (m.mode == 1)
    q = static_cast<std::int64_t>(static_cast<std::uint64_t>(q) + static_cast<std::uint64_t>(n));
  if (m.mode == 2)
    q = static_cast<std::int64_t>(static_cast<std::uint64_t>(q) - static_cast<std::uint64_t>(n));
  q >>= m.shift;
  return q + static_cast<std::int64_t>(static_cast<std::uint64_t>(q) >> 63);
}

std::optional<DivisionMagic> DivisionMagic32For(std::int64_t d) {
  const std::uint64_t ad =
      d < 0 ? 0 - static_cast<std::uint64_t>(d) : static_cast<std::uint64_t>(d);
  if (ad < 2 || ad >= (1ull << 31)) return std::nullopt;
  std::uint32_t l = 0;
  while ((1ull << l) < ad)
    ++l;
  const std::uint64_t numerator = 1ull << (31 + l);
  DivisionMagic m;
  m.magic = static_cast<std::int64_t>((numerator + ad - 1) / ad);
  m.shift = l - 1;
  m.mode = d < 0 ? 1 : 0;
  return m;
}

std::int64_t DivideByMagic32(std::int32_t n, const DivisionMagic& m) {
  const std::uint32_t a =
      n < 0 ? 0u - static_cast<std::uint32_t>(n) : static_cast<std::uint32_t>(n);
  const std::uint32_t high = static_cast<std::uint32_t>(
      (static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(m.magic)) >> 32);
  const std::int64_t q = high >> m.shift;
  return ((n < 0) != (m.mode == 1)) ? -q : q;
}

}  // namespace clq
