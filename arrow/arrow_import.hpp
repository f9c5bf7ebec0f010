// Arrow data in: a table from an Arrow C stream or C array (a record batch,
// or a struct array whose children are the columns).
//
// Types: int8/int16/int32, uint8/uint16 and bool -> INT32; uint32 and int64
// -> INT64; uint64 -> INT64 when every value fits (else an error naming the
// value); float32/float64 -> DOUBLE; utf8, large_utf8, utf8_view (Polars'
// strings) and dictionaries of them -> CHAR(n), n the longest value (at
// least 1); null (Arrow's type of nothing but NULLs) -> INT32, every row
// NULL (as an all-empty CSV column). Anything else (a dictionary of
// dictionaries too) and any NaN at a row that is not NULL (no clq table
// holds one) is refused with InvalidInputError naming the column.
//
// NULLs: a clear validity bit (honouring the array's offset; a null count of
// -1 means unknown, and no bitmap means no NULL) makes the row NULL, as does
// a NULL row of the struct array, a NULL dictionary index, and an index
// that refers to a NULL dictionary value. The column gets a NULL map and its
// value at a NULL row is zero (Arrow's there is undefined and never read).
//
// Zero-copy: a column that is one batch of int32, int64 or float64 without
// a NULL whose values start 64-byte aligned is read in place (the table keeps the Arrow
// array alive); every other column is copied once.
//
// Ownership: the functions take the structs over (moving them out and
// marking the caller's released, as the C Data interface prescribes) and
// release what they do not keep, also when they throw.
#pragma once

#include <string>

#include "arrow/arrow_c_abi.hpp"
#include "storage/table.hpp"

namespace clq {

TablePtr ImportArrowStream(std::string name, ArrowArrayStream* stream);
TablePtr ImportArrowArray(std::string name, ArrowSchema* schema, ArrowArray* array);

}  // namespace clq
