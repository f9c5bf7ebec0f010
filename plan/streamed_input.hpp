// Streaming a node's input past the device's memory: where the input is a
// chain of filters over the scan of one table of several tablets, and what
// a node builds over every row would take more than a quarter of the
// device's memory, the input runs a chunk of tablets at a time
// (ExecutionContext::scan_tablets, RowSet::KeepTablets) and the node
// combines what each chunk leaves (a GROUP BY its groups, a top-k its
// candidates).
#pragma once

#include <cstdint>
#include <functional>

#include "plan/physical_node.hpp"

namespace clq {

// Whether `node` is a chain of filters over the scan of one table.
bool ScansOneTable(const PhysicalNode& node);

// The tablets a chunk takes so that `row_bytes` of device buffers per row
// of a chunk stay within a quarter of the device's memory; 0 where the
// input does not stream (not one table's scan and filters, one tablet, or
// every row fits).
std::size_t StreamTablets(const Engine& engine, const sql::BoundSelect& select,
                          const RowNode& child, std::uint64_t row_bytes);

// Runs `child` over each chunk of `tablets_per_chunk` tablets of `table`,
// the one it scans, in order, handing each chunk's rows to `consume`.
void ForEachChunk(ExecutionContext& context, const RowNode& child, const Table& table,
                  std::size_t tablets_per_chunk, const std::function<void(RowSet& rows)>& consume);

}  // namespace clq
