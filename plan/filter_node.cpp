#include "plan/filter_node.hpp"

#include <cstdio>
#include <span>

#include "operators/device_program.hpp"
#include "operators/gather.hpp"
#include "operators/selection.hpp"
#include "plan/query_plan.hpp"

namespace clq {
namespace {

// How a predicate's selection runs: its machine, and the kernel that runs
// it without the interpreter (vm_filter_conjuncts), or its leading range
// test alone first (filter_range_tiles).
std::string FilterNote(const Engine& engine, const QueryOptions& options,
                       const CompiledPredicate& predicate) {
  const VmEntry& entry = predicate.program.entry(predicate.entry);
  std::string note =
      DeviceProgram::MachineFor(predicate.program,
                                std::span<const std::size_t>(&predicate.entry, 1), options)
          .Describe();
  if (RunsConjunctFilter(engine, options, entry)) {
    return note + "; runs in vm_filter_conjuncts instead of vm_filter, no interpreter: " +
           std::to_string(entry.int_conjuncts) +
           (entry.int_conjuncts == 1 ? " conjunct" : " conjuncts") + " described from constant " +
           std::to_string(entry.int_conjuncts_at);
  }
  if (!RunsRangeTestFirst(engine, options, entry)) return note;
  char kept[32];
  std::snprintf(kept, sizeof kept, "%.3g%%", entry.leading_range->selectivity * 100);
  return note + "; instruction " + std::to_string(entry.begin) +
         " first, alone, in filter_range_tiles (estimated to keep " + kept +
         " of the rows), then vm_filter from instruction " + std::to_string(entry.begin + 1) +
         " on the tiles where it kept a row";
}

}  // namespace

FilterNode::FilterNode(const Engine& engine, const QueryOptions& options,
                       const sql::BoundSelect& select, std::unique_ptr<RowNode> child,
                       const std::vector<sql::Expr>& conjuncts, std::string what)
    : RowNode({RowShape::Kind::kRowIds, child->shape().source, child->shape().max_rows, false,
               child->shape().expected_rows}),
      select_(select),
      child_(std::move(child)),
      what_(std::move(what)) {
  AddChild(child_.get());
  const sql::Expr predicate = *AndAll(conjuncts);
  for (const sql::Expr& c : conjuncts)
    text_ += (text_.empty() ? "" : " AND ") + ExpressionText(select, c);
  predicates_ = CompilePredicate(select, predicate, child_->shape());
  const RowShape& from = child_->shape();
  if (from.kind == RowShape::Kind::kWholeTable &&
      engine.TabletCountFor(*select.from.at(from.source).table) > 1) {
    // Streamed a chunk of tablets at a time (a GROUP BY past the device's
    // memory), the rows a chunk keeps are counted from its first row: made
    // the table's row ids.
    AddKernelNames(KernelSet({"gather_iota", GatherBufferKernel(sizeof(cl_uint))}), true);
  }
  RowShape input = child_->shape();
  for (const CompiledPredicate& p : predicates_) {
    AddKernelNames(PredicateKernels(engine, options, select, p, input));
    notes_.push_back(FilterNote(engine, options, p));
    input.kind = RowShape::Kind::kRowIds;  // later batches see the rows kept so far
  }
}

std::string FilterNode::Describe() const {
  return what_ + ": " + text_ +
         (predicates_.size() > 1 ? " (" + std::to_string(predicates_.size()) + " passes)" : "");
}

std::string FilterNode::Programs() const {
  std::string text;
  for (std::size_t p = 0; p < predicates_.size(); ++p) {
    const CompiledPredicate& predicate = predicates_[p];
    text += "  " + what_ +
            (predicates_.size() > 1
                 ? ", pass " + std::to_string(p + 1) + " of " + std::to_string(predicates_.size())
                 : "") +
            " (" + notes_[p] + "):\n" +
            ProgramListing(select_, predicate.program, predicate.in_place, shape_.source,
                           predicate.gathered);
  }
  return text;
}

RowSet FilterNode::Run(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  for (const CompiledPredicate& predicate : predicates_)
    rows.Filter(context.query(), predicate);
  return rows;
}

}  // namespace clq
