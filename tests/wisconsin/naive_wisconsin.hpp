// A deliberately plain, single-threaded Wisconsin generator written straight
// from docs/DESIGN.md, as the reference the parallel generator is checked against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "wisconsin/sequence.hpp"

namespace clq::testing {

inline std::vector<std::int32_t> NaiveUnique1(RowCount n, SequenceParameters params) {
  std::vector<std::int32_t> unique1;
  std::uint64_t seed = params.generator;
  for (RowCount row = 0; row < n; ++row) {
    do {
      seed = params.generator * seed % params.prime;
    } while (seed > n);
    unique1.push_back(static_cast<std::int32_t>(seed - 1));
  }
  return unique1;
}

inline std::vector<std::int32_t> NaiveUnique1(RowCount n) {
  return NaiveUnique1(n, WisconsinParameters(n));
}

// 7 base-26 letters, right to left, left-padded with 'A', then 45 'x'.
inline std::string NaiveCode(std::uint32_t value) {
  std::string code(7, 'A');
  for (int i = 6; i >= 0; --i) {
    code[static_cast<std::size_t>(i)] = static_cast<char>('A' + value % 26);
    value /= 26;
  }
  return code + std::string(45, 'x');
}

inline std::string NaiveString4(RowCount row) {
  static const char* const kCycle[4] = {"AAAA", "HHHH", "OOOO", "VVVV"};
  return kCycle[row % 4] + std::string(48, 'x');
}

}  // namespace clq::testing
