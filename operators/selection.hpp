// Selection: the row ids of a relation's rows where a predicate is true, in
// row order. Per tablet: vm_filter evaluates the predicate into a bitmap and
// per-tile counts (on GPUs, a predicate of INT32 column tests alone runs in
// vm_filter_conjuncts instead, and otherwise a selective leading range test
// first runs alone in filter_range_tiles and vm_filter refines only the
// tiles it kept rows of); the counts are scanned (operators/scan.hpp); once all
// tablets are counted (one small read of their totals), selection_scatter
// turns bits into row ids. The prefix scan runs over one count per tile
// (2048 rows on GPUs), not per row, so it is never the large stage.
//
// The result lives on the device (late materialisation): gather the columns
// you need with operators/gather.hpp. Blocks for the one read of the counts.
#pragma once

#include "operators/device_program.hpp"
#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"
#include "operators/relation.hpp"

namespace clq {

// Whether FilterTablet runs the predicate's leading range test alone first
// (filter_range_tiles), then vm_filter from the next instruction on the
// tiles where it kept a row: on GPU paths when the statistics say the test
// keeps at most 1/16 of the rows; options.range_first forces it either way
// when the predicate has one.
bool RunsRangeTestFirst(const Engine& engine, const QueryOptions& options, const VmEntry& entry);

// Whether FilterTablet runs the predicate in vm_filter_conjuncts, without the
// interpreter: when it is made only of conjuncts that kernel runs
// (VmEntry::int_conjuncts), on GPU paths; options.conjunct_filter forces it
// either way when it can.
bool RunsConjunctFilter(const Engine& engine, const QueryOptions& options, const VmEntry& entry);

// The first pass of a selection over tablet `tablet`: bit r of `bits` set
// where the predicate is true of row r, and each tile's count of them in
// `tile_counts`. Enqueued, not waited for.
void FilterTablet(QueryContext& context, Relation& relation, const DeviceProgram& program,
                  std::size_t predicate_entry, std::size_t tablet, const cl::Buffer& bits,
                  const cl::Buffer& tile_counts);

RowIds Select(QueryContext& context, Relation& relation, const DeviceProgram& program,
              std::size_t predicate_entry);

// The kernels Select launches for predicate `entry` of `program` over
// tablets of `tablet_rows` rows (at most that many unless `exact`).
KernelSet SelectionKernels(const Engine& engine, const QueryOptions& options,
                           const ExpressionProgram& program, std::size_t entry,
                           RowCount tablet_rows, bool exact);

// The positions of the set bits of `bits` over `rows` rows (one tablet,
// bit r of word r / 32), in order, from each tile's count of them in
// `tile_counts` (as FilterTablet leaves them; scanned here in place). Blocks
// for the one read of their total.
RowIds SelectedPositions(QueryContext& context, const cl::Buffer& bits, const cl::Buffer& tile_counts,
                         RowCount rows);

// The kernels SelectedPositions launches over at most (`exact`: exactly)
// `rows` rows.
KernelSet SelectedPositionsKernels(const Engine& engine, RowCount rows, bool exact);

// Number of rows where the predicate is true, without producing row ids.
RowCount CountWhere(QueryContext& context, Relation& relation, const DeviceProgram& program,
                    std::size_t predicate_entry);

}  // namespace clq
