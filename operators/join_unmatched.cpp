#include "operators/join_unmatched.hpp"

#include "operators/gather.hpp"
#include "operators/kernel_args.hpp"
#include "operators/selection.hpp"

namespace clq {
namespace {

// hash_join_mark_matched (kernels_cl/hash_join.cl), in order.
struct MarkMatchedArgs {
  cl::Buffer positions;
  cl_ulong n = 0;
  cl::Buffer matched;
};

void Bind(cl::Kernel& kernel, const MarkMatchedArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.positions).Add(a.n).Add(a.matched);
  args.Done();
}

// hash_join_unmatched_bits (kernels_cl/hash_join.cl), in order.
struct UnmatchedBitsArgs {
  cl::Buffer matched;
  cl_ulong rows = 0;
  cl::Buffer bits;
  cl::Buffer tile_counts;
};

void Bind(cl::Kernel& kernel, const UnmatchedBitsArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.matched).Add(a.rows).Add(a.bits).Add(a.tile_counts);
  args.Done();
}

// `bytes` rounded up to whole 32-bit words (Engine::Fill's pattern).
std::uint64_t WordBytes(std::uint64_t bytes) {
  return (bytes + 3) / 4 * 4;
}

RowIds Concatenate(Engine& engine, const RowIds& first, const RowIds& second, const char* purpose) {
  RowIds result = AllocateRowIds(engine, first.size + second.size, purpose);
  engine.Copy(first.ids.get(), 0, result.ids.get(), 0, first.size * sizeof(cl_uint), purpose);
  engine.Copy(second.ids.get(), 0, result.ids.get(), first.size * sizeof(cl_uint),
              second.size * sizeof(cl_uint), purpose);
  return result;
}

}  // namespace

RowIds UnmatchedPositions(QueryContext& context, const RowIds& matched_positions, RowCount rows) {
  Engine& engine = context.engine();
  if (rows == 0) return AllocateRowIds(engine, 0, "unmatched positions");
  DeviceBuffer matched = engine.pool().Acquire(WordBytes(rows), "matched rows");
  engine.Fill(matched.get(), 0, 0, WordBytes(rows), "matched rows");
  if (matched_positions.size > 0) {
    cl::Kernel& mark = engine.kernel("hash_join_mark_matched");
    Bind(mark, MarkMatchedArgs{.positions = matched_positions.ids.get(),
                               .n = matched_positions.size,
                               .matched = matched.get()});
    engine.Launch(mark, engine.TilesFor(matched_positions.size), "left join");
  }
  const std::uint64_t words = (rows + 31) / 32;
  const std::uint64_t tiles = engine.TilesFor(rows);
  DeviceBuffer bits = engine.pool().Acquire(words * sizeof(cl_uint), "unmatched bitmap");
  DeviceBuffer tile_counts =
      engine.pool().Acquire(tiles * sizeof(cl_uint), "unmatched tile counts");
  engine.Fill(tile_counts.get(), 0, 0, tiles * sizeof(cl_uint), "unmatched tile counts");
  cl::Kernel& unmatched = engine.kernel("hash_join_unmatched_bits");
  Bind(unmatched, UnmatchedBitsArgs{.matched = matched.get(),
                                    .rows = rows,
                                    .bits = bits.get(),
                                    .tile_counts = tile_counts.get()});
  engine.Launch(unmatched, engine.TilesFor(words), "left join");
  return SelectedPositions(context, bits.get(), tile_counts.get(), rows);
}

void AppendUnmatched(QueryContext& context, RowCount left_rows, RowIds& left_positions,
                     RowIds& right_rows) {
  Engine& engine = context.engine();
  RowIds unmatched = UnmatchedPositions(context, left_positions, left_rows);
  if (unmatched.size == 0) return;
  RowIds none = AllocateRowIds(engine, unmatched.size, "left join rows without a match");
  engine.Fill(none.ids.get(), kNoRow, 0, unmatched.size * sizeof(cl_uint), "left join");
  left_positions = Concatenate(engine, left_positions, unmatched, "left join positions");
  right_rows = Concatenate(engine, right_rows, none, "left join row ids");
}

KernelSet AppendUnmatchedKernels(const Engine& engine, RowCount left_rows, bool exact) {
  KernelSet kernels;
  if (left_rows == 0) return kernels;
  kernels.AddWhenNeeded("hash_join_mark_matched");  // not when nothing matched
  kernels.Add("hash_join_unmatched_bits");
  kernels.Add(SelectedPositionsKernels(engine, left_rows, exact));
  return kernels;
}

}  // namespace clq
