// The standard Wisconsin relations for a scale of N rows, registered lazily
// in a Catalog: tenktup1 and tenktup2 (N rows each, the same rows: generated
// once, tenktup2 shares tenktup1's data), onektup (N/10 rows, a relation of
// its own generated with N/10 as its N) and bprime (the tenktup2 rows with
// unique2 < N/10, i.e. its first N/10 rows, sharing the data).
//
// Nothing is generated until a table is first requested from the catalog.
// The factories share state and must be used from one thread at a time, as
// the Catalog itself.
#pragma once

#include "storage/catalog.hpp"
#include "wisconsin/sequence.hpp"

namespace clq {

inline constexpr const char* kTenktup1 = "tenktup1";
inline constexpr const char* kTenktup2 = "tenktup2";
inline constexpr const char* kOnektup = "onektup";
inline constexpr const char* kBprime = "bprime";

// Rows of onektup and bprime for a scale of N rows.
inline RowCount SmallWisconsinRows(RowCount n) {
  return n / 10;
}

// Registers (or replaces) the four relations. Throws InvalidInputError for
// N > kMaxWisconsinRows. A table is generated at its first use, and throws
// ResourceLimitError then when it does not fit options.host_memory.
void AddWisconsinTables(Catalog& catalog, RowCount n, const GenerateOptions& options = {});

}  // namespace clq
