// What the steps over every row of a query's input take in device buffers
// (host memory on a CPU device), so that a node can hold its step to the
// host-memory budget before it runs (QueryContext::CheckDeviceBuffers):
// per row, the values it evaluates, its working arrays and the row ids it
// composes. These are the buffers that grow with the rows, not every
// allocation: a node's fixed-size and per-tile buffers are left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/compiled_expressions.hpp"
#include "plan/physical_node.hpp"

namespace clq {

// A radix sort's passes hold two 8-byte key images and two 4-byte row-id
// arrays per row (operators/sort.hpp).
inline constexpr std::uint64_t kSortBytesPerRow = 2 * 8 + 2 * 4;
// GROUP BY and DISTINCT keep a group id and a cut or slot per row.
inline constexpr std::uint64_t kGroupBytesPerRow = 2 * 4;

// Bytes per row of evaluated vectors: each value's width, and a NULL flag
// where it may be NULL.
std::uint64_t EvaluatedBytesPerRow(const std::vector<ValueVectorType>& types);

// Bytes per row of the row ids rows of `shape` hold (one per FROM source;
// none for a whole table or a range of one), and of those a step that
// reorders them makes.
std::uint64_t HeldRowIdBytesPerRow(const sql::BoundSelect& select, const RowShape& shape);
std::uint64_t RowIdBytesPerRow(const sql::BoundSelect& select);

// CheckDeviceBuffers for `step` ("ORDER BY") over `rows` rows of
// `bytes_per_row` bytes each.
void CheckRowBuffers(ExecutionContext& context, const std::string& step, RowCount rows,
                     std::uint64_t bytes_per_row);

}  // namespace clq
