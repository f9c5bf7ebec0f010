// The Wisconsin benchmark relation (DeWitt, "The Wisconsin Benchmark: Past,
// Present, and Future", 1993) with Gray et al.'s unique1 generator: 16
// columns (13 INT32, 3 CHAR(52)) derived from unique1 (a permutation of
// 0..N-1, see sequence.hpp) and unique2 (the row number).
//
// Output depends only on N (and, for a prefix, the row count), never on the
// thread count. The returned table owns its data. Reentrant; see
// GenerateOptions for threads and progress.
#pragma once

#include <string>

#include "storage/table.hpp"
#include "wisconsin/sequence.hpp"

namespace clq {

// Width of stringu1, stringu2 and string4.
inline constexpr std::uint32_t kWisconsinStringWidth = 52;

// unique1, unique2, two, four, ten, twenty, onePercent, tenPercent,
// twentyPercent, fiftyPercent, unique3, evenOnePercent, oddOnePercent
// (INT32), stringu1, stringu2, string4 (CHAR(52)).
Schema WisconsinSchema();

// All N rows. Throws InvalidInputError for N > kMaxWisconsinRows, and
// ResourceLimitError, before allocating, when the rows (RowWidth of the
// schema, 208 bytes, each) do not fit options.host_memory.
TablePtr GenerateWisconsinTable(std::string name, RowCount n, const GenerateOptions& options = {});

// The first `rows` rows of the N-row relation (REQUIRES: rows <= n); BPRIME
// written on its own, without materialising the other rows. Throws as
// GenerateWisconsinTable.
TablePtr GenerateWisconsinPrefix(std::string name, RowCount n, RowCount rows,
                                 const GenerateOptions& options = {});

// The 7-letter base-26 code of stringu1/stringu2: value in A-Z digits,
// right-aligned, left-padded with 'A' ("AAAAACR" for 69).
std::string WisconsinCode(std::uint32_t value);

}  // namespace clq
