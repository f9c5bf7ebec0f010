// Expressions of a plan step compiled when the plan is made, for the rows the
// step will read: the expression programs, the kernels that run them and the
// columns gathered for them. The executor runs exactly these programs, and
// EXPLAIN prints them, so the two cannot drift apart.
//
// A step reads either the whole table of one source in place (its programs
// address the table's columns) or rows given by ids, whose columns are
// gathered first (its programs address the gathered columns, in the order
// ColumnsOf lists them). RowShape says which, decided by the planner from
// the steps before (a scan is a whole table; a filter, join or sort gives
// row ids; a LIMIT of a whole table a range of it).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/options.hpp"
#include "operators/expression_program.hpp"
#include "operators/kernel_set.hpp"
#include "runtime/engine.hpp"
#include "sql/bound.hpp"

namespace clq {

// The rows a step reads, as known at plan time.
struct RowShape {
  enum class Kind {
    kWholeTable,  // every row of `source`, in order
    kRange,       // a contiguous range of `source`'s rows
    kRowIds,      // row ids per joined source (after a filter, join or sort)
  };
  Kind kind = Kind::kWholeTable;
  std::size_t source = 0;  // kWholeTable and kRange
  RowCount max_rows = 0;   // an upper bound of the rows
  bool exact = true;       // max_rows is the number of rows
  // The rows expected where max_rows is a loose bound (a join, which is
  // expected to keep at most its larger side's rows, as a key-foreign key
  // join does); 0: max_rows. Plans may size work by it that grows, never
  // what must hold every row.
  RowCount expected_rows = 0;
  bool implicit() const { return kind != Kind::kRowIds; }
};

// A conjunction of predicates (at most VM_MAX_SLOTS columns) compiled into one
// program entry.
struct CompiledPredicate {
  sql::Expr predicate;
  bool in_place = false;  // over the table itself (RowShape::kWholeTable)
  std::vector<std::pair<std::size_t, std::size_t>> gathered;  // (source, column), when not
  ExpressionProgram program;
  std::size_t entry = 0;
};

// Expressions evaluated into device vectors, one per expression: plain
// columns copied (from a range of a table) or gathered (by row ids, the
// columns of one source together), the others computed by vm_project in
// batches of at most VM_MAX_SLOTS columns, one program per batch.
struct CompiledValues {
  struct Batch {
    std::vector<std::size_t> outputs;  // positions in `exprs`
    bool in_place = false;
    std::vector<std::pair<std::size_t, std::size_t>> gathered;
    ExpressionProgram program;
    std::vector<std::size_t> entries;  // one per output
  };
  std::vector<const sql::Expr*> exprs;
  std::vector<Batch> batches;
};

// An empty program over the table of `source` read in place, or over the
// columns `gathered` lists (in that order).
ExpressionProgram EmptyProgram(const sql::BoundSelect& select, bool in_place, std::size_t source,
                               const std::vector<std::pair<std::size_t, std::size_t>>& gathered);

// The kernels that gather `gathered` for the rows of `shape` (one
// GatherColumn each, after the ids of a range exist); none in place.
KernelSet MaterializeKernels(const sql::BoundSelect& select, RowShape shape,
                             const std::vector<std::pair<std::size_t, std::size_t>>& gathered);

// The predicate's conjuncts in batches the machine can hold, each compiled
// for `shape`: the first batch for the shape itself, later ones for the row
// ids the first leaves. Throws DeviceLimitError for what the machine cannot
// run.
std::vector<CompiledPredicate> CompilePredicate(const sql::BoundSelect& select,
                                                const sql::Expr& predicate, RowShape shape);

CompiledValues CompileValues(const sql::BoundSelect& select, std::vector<const sql::Expr*> exprs,
                             RowShape shape);

// The type and nullability of each compiled value's device vector (as
// RowSet::Evaluate makes it: a column's own type, or Project's).
struct ValueVectorType {
  ColumnType type;
  bool nullable = false;
};
std::vector<ValueVectorType> ValueVectorTypes(const sql::BoundSelect& select,
                                              const CompiledValues& values);

// The kernels that run a compiled predicate over rows of `shape` (its gathers,
// its selection, the reordering of the row ids it keeps).
KernelSet PredicateKernels(const Engine& engine, const QueryOptions& options,
                           const sql::BoundSelect& select, const CompiledPredicate& predicate,
                           RowShape shape);

// The kernels that evaluate compiled values over rows of `shape`.
KernelSet ValuesKernels(const Engine& engine, const QueryOptions& options,
                        const sql::BoundSelect& select, const CompiledValues& values,
                        RowShape shape);

// "t1.unique1" for a column of `select`'s FROM list.
std::string QualifiedColumnName(const sql::BoundSelect& select, std::size_t source,
                                std::size_t column);
// An expression's text with qualified column names.
std::string ExpressionText(const sql::BoundSelect& select, const sql::Expr& e);

// Column `column` of FROM entry `source` as rows gathered by id read it: a
// LEFT JOIN's table's columns are nullable (a row without a match reads
// NULL; RowSet gives them NULL maps), whatever the table holds.
VmInputColumn GatheredVmColumn(const sql::BoundSelect& select, std::size_t source,
                               std::size_t column);

// The kernels that gather `columns` ((source, column) pairs) by row id, one
// at a time (`together` false) or together (RowSet::Evaluate's plain columns).
KernelSet GatheredColumnKernels(const sql::BoundSelect& select,
                                const std::vector<std::pair<std::size_t, std::size_t>>& columns,
                                bool together);

// The disassembly of a program, slots named by column, indented by 4.
// Lines of EXPLAIN indented by `indent` spaces under a title: a program's
// disassembly (one instruction a line, by 4), a plan or a subquery's
// explanation (by 2); each line ends in a line break.
std::string IndentedListing(const std::string& lines, std::size_t indent = 4);

std::string ProgramListing(const sql::BoundSelect& select, const ExpressionProgram& program,
                           bool in_place, std::size_t source,
                           const std::vector<std::pair<std::size_t, std::size_t>>& gathered);

// A batch of values listed for EXPLAIN: "  <what> (<machine>):" then its
// program; the machine of each entry when they differ.
std::string ValuesListing(const std::string& what, const sql::BoundSelect& select,
                          const CompiledValues::Batch& batch, std::size_t source,
                          const QueryOptions& options);

}  // namespace clq
