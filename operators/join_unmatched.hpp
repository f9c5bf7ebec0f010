// LEFT JOIN's rows without a match: the positions in [0, rows) of the
// joined side that an inner join's matched positions never name, in order
// (kernels hash_join_mark_matched and hash_join_unmatched_bits in
// kernels_cl/hash_join.cl, then the selection's scan and scatter). And the
// joined rows with them appended: each once, its new table's row kNoRow.
// Enqueues, and blocks for the one read of the count.
#pragma once

#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"

namespace clq {

RowIds UnmatchedPositions(QueryContext& context, const RowIds& matched_positions, RowCount rows);

// Appends the unmatched positions to `left_positions` and as many kNoRow
// to `right_rows` (the matched pairs' row ids of the LEFT JOIN's table).
void AppendUnmatched(QueryContext& context, RowCount left_rows, RowIds& left_positions,
                     RowIds& right_rows);

// The kernels AppendUnmatched launches for at most (`exact`: exactly)
// `left_rows` rows on the left.
KernelSet AppendUnmatchedKernels(const Engine& engine, RowCount left_rows, bool exact);

}  // namespace clq
