// Arrow data out: a query result as an Arrow C stream of one record batch.
//
// Types: INTEGER -> int64, REAL -> float64, TEXT -> utf8 (large_utf8 past
// 2 GiB of text), a column of the NULL type -> Arrow's null type. NULLs
// become validity bitmaps. The int64 and float64 values are the result's
// own buffers, handed over without a copy: the stream, and every array it
// yields, keep the result alive until the consumer releases them.
#pragma once

#include <memory>

#include "arrow/arrow_c_abi.hpp"
#include "operators/query_result.hpp"

namespace clq {

// Fills `out` (whose previous contents are ignored) with a stream over
// `result`, which it shares (one result may be exported several times); the
// consumer releases it.
void ExportArrowStream(std::shared_ptr<const QueryResult> result, ArrowArrayStream* out);

}  // namespace clq
