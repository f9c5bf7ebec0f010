// Order codes of CHAR values: a dictionary encoding that keeps the order.
//
// A CHAR column's order codes number its distinct values in ascending
// bytewise order (the order of SQL's text comparisons here, NUL padding not
// part of a value): equal strings get equal codes and a smaller string a
// smaller code, so MIN, MAX, ORDER BY and equality of the strings are those
// of the codes, and devices compute them on integers. The dictionary holds
// the values by code. Codes are made on first use (ColumnData::OrderCodes)
// and belong to the column's data, so every table and slice sharing the data
// shares them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace clq {

struct TextDictionary {
  std::vector<std::string> values;  // distinct, ascending (bytewise); code i is values[i]
  std::uint32_t width = 0;          // the longest value's bytes
  // Host bytes the values hold (counted as held while the codes live).
  std::uint64_t Bytes() const;
};

// Host bytes ComputeOrderCodes holds at once beside the codes, for `rows`
// rows of CHAR(width) (the sort of the rows and the dictionary).
std::uint64_t OrderCodesWorkBytes(RowCount rows, std::uint32_t width);

// Whether making the codes of these rows is cheap: few rows, or a sample
// of rows spread over them repeats its values (on average at least 4 times
// each), so that the rows are numbered by hashing rather than sorted.
bool OrderCodesAreCheap(const std::byte* text, RowCount rows, std::uint32_t width);

// Writes `code` as row `row` of `codes`, INT32 values unless `wide` (INT64).
inline void SetOrderCode(std::byte* codes, bool wide, std::size_t row, std::int64_t code) {
  if (wide)
    reinterpret_cast<std::int64_t*>(codes)[row] = code;
  else
    reinterpret_cast<std::int32_t*>(codes)[row] = static_cast<std::int32_t>(code);
}

// Writes the code of each of `rows` CHAR(width) values at `text` into
// `codes` (INT32 when `wide` is false, else INT64) and returns the
// dictionary. A NULL row's zero bytes read as the empty string.
TextDictionary ComputeOrderCodes(const std::byte* text, RowCount rows, std::uint32_t width,
                                 std::byte* codes, bool wide);

}  // namespace clq
