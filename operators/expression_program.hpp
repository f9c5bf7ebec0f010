// Compiles bound SQL expressions into bytecode for the expression virtual
// machine (kernels_cl/vm.cl, opcodes in kernels_cl/vm_shared.h).
//
// A program runs over one relation (a table's tablet, or intermediate device
// vectors): column references are mapped to the relation's columns, and each
// distinct column read gets one of VM_MAX_SLOTS slots. One program holds
// several entries (a predicate and the expressions of a projection or the
// arguments of aggregates), so they share slots and one upload.
//
// Semantics are SQLite's (docs/DESIGN.md, sql/bound.hpp): INTEGER is int64,
// REAL double; division and modulo by zero give NULL; integer overflow raises
// VM_STATUS_OVERFLOW, which the executor reports as an error; TEXT appears only
// in comparisons of a CHAR column with string literals.
//
// Errors: constructs the machine cannot run (two CHAR columns compared, more
// than VM_MAX_SLOTS columns, stack deeper than VM_MAX_STACK) throw
// DeviceLimitError with the construct named. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "operators/value_range.hpp"
#include "runtime/cl.hpp"
#include "sql/bound.hpp"

namespace clq {

struct VmInputColumn {
  VmInputColumn(ColumnType column_type, bool is_nullable = false,
                std::function<std::optional<IntRange>()> value_range = {})
      : type(column_type), nullable(is_nullable), range(std::move(value_range)) {}

  ColumnType type;
  bool nullable = false;
  // Known bounds of an integer column's values; called only for columns an
  // expression reads, since computing statistics may scan the column once.
  std::function<std::optional<IntRange>()> range;
};

struct VmSlot {
  std::size_t column = 0;  // index into the relation's columns
  ColumnType type;
  bool nullable = false;
};

struct VmEntry {
  std::uint32_t begin = 0;                         // first instruction
  std::uint32_t end = 0;                           // one past the last
  sql::ValueType type = sql::ValueType::kInteger;  // kInteger or kReal
  bool may_be_null = false;                        // the result can be NULL
  bool track_nulls = false;  // a NULL can occur somewhere inside: the machine tracks NULL flags
  std::optional<IntRange> range;  // INTEGER entries: bounds of every non-NULL value
  // Predicates whose first conjunct is a KEEP_CMP of an INT32 column without
  // NULLs (not <>) followed by more code: the slot, the values it keeps and
  // the fraction of rows it keeps by the column's statistics (1 without
  // them), for a first pass without the interpreter (operators/selection).
  struct LeadingRange {
    std::uint32_t slot = 0;
    IntRange kept;
    double selectivity = 1.0;
  };
  std::optional<LeadingRange> leading_range;
  // Predicates made only of tests of INT32 columns without NULLs, or of their
  // remainders by constants, against constants: how many conjuncts, and the
  // index of the first of their descriptors among the program's constants
  // (VM_CONJUNCT_LONGS each, kernels_cl/vm_shared.h), for vm_filter_conjuncts
  // (operators/selection.hpp). 0 conjuncts for any other entry.
  std::uint32_t int_conjuncts = 0;
  std::uint32_t int_conjuncts_at = 0;
};

// Maps a kColumnRef (source, column) to the index of a relation column.
using ColumnMapper = std::function<std::size_t(std::size_t source, std::size_t column)>;

class ExpressionProgram {
 public:
  ExpressionProgram(std::vector<VmInputColumn> columns, ColumnMapper mapper);

  // An expression of type INTEGER, REAL or NULL (a NULL-typed expression is
  // an all-NULL INTEGER). Returns the entry index.
  std::size_t AddValue(const sql::Expr& expr);
  // A predicate: the entry's value is non-zero and not NULL exactly when the
  // expression is true.
  std::size_t AddPredicate(const sql::Expr& expr);

  const VmEntry& entry(std::size_t index) const { return entries_.at(index); }
  std::size_t entry_count() const { return entries_.size(); }
  const std::vector<VmSlot>& slots() const { return slots_; }
  // Whether entry `index` is one LOAD of a column without NULLs (no
  // arithmetic): the shape vm_aggregate_columns reads without the interpreter.
  bool IsBareColumn(std::size_t index) const;
  // Whether entry `index` is short REAL arithmetic without NULLs: LOAD leaf
  // [OP leaf [OP leaf]], each leaf a constant or an INT32 column without
  // NULLs read as REAL (at most two column leaves), each OP ADD_R, SUB_R,
  // MUL_R or DIV_R (reversed or not), no MUL_R followed by ADD_R or SUB_R
  // (a device compiler could fuse them): the shape vm_aggregate_short_real
  // runs without the interpreter (a division there only where the entry
  // cannot be NULL, as the host checks with the machine's NULL tracking).
  bool IsShortReal(std::size_t index) const;
  // Whether entry `index` can run on the 32-bit machine (kernels_cl/
  // vm_interpreter.cl, VM_NARROW=1): an INTEGER entry whose every value
  // provably fits int32 (INT32 columns, int32 constants, each integer
  // operation flagged VM_OPND_NARROW by the range analysis, no REAL).
  bool IsNarrow(std::size_t index) const;
  // Whether entry `index` uses an operation the lean machine lacks (kernels_cl/
  // vm_interpreter.cl, VM_LEAN=1): overflow-checked integer arithmetic,
  // division or modulo by a non-constant, REAL modulo, IN, text comparison.
  bool UsesRareOperations(std::size_t index) const;
  const std::vector<cl_uint2>& code() const { return code_; }
  const std::vector<cl_long>& constants() const { return constants_; }

  // One line per instruction, for EXPLAIN and failing tests; slots name
  // their relation column by `column_name` when given.
  std::string Disassemble(
      const std::function<std::string(std::size_t column)>& column_name = {}) const;

 private:
  enum class Domain { kInteger, kReal };
  struct Operand {
    std::uint32_t kind = 0;
    std::uint32_t arg = 0;
    std::uint32_t word1 = 0;
  };

  void Compile(const sql::Expr& e, Domain domain);
  void CompileBoolean(const sql::Expr& e);
  void CompileArithmetic(const sql::Expr& e, Domain domain);
  void CompileComparison(const sql::Expr& e);
  void CompileLogic(const sql::Expr& e);
  void CompileBetween(const sql::Expr& e);
  void CompileInList(const sql::Expr& e);
  void CompileCase(const sql::Expr& e, Domain domain);
  void CompileLike(const sql::Expr& e);
  // `case_expr` (a TEXT CASE) compared with the string literal `literal`:
  // the CASE of each branch compared with it.
  sql::Expr CaseComparedWith(const sql::Expr& case_expr, const sql::Expr& literal,
                             sql::BinaryOp op) const;
  void CompileTextComparison(const sql::Expr& column, const sql::Expr& literal, int cmp,
                             std::size_t position);
  // Emits `op` combining the accumulator (left) with `right`, evaluating
  // `left` first; uses the stack only when `right` is not a leaf.
  void CompileBinary(const sql::Expr& left, const sql::Expr& right, std::uint32_t op, Domain domain,
                     bool commutative);

  bool IsLeaf(const sql::Expr& e) const;
  bool IsBoolean(const sql::Expr& e) const;
  Operand LeafOperand(const sql::Expr& e, Domain domain);
  std::uint32_t Slot(std::size_t column);
  std::uint32_t Constant(std::int64_t bits);
  void Emit(std::uint32_t op, const Operand& operand);
  // The interpreter does not clear its accumulator before an entry: the
  // entry's first instruction must set it without reading it.
  void CheckEntryStart(const VmEntry& entry) const;
  // VmEntry::leading_range of the predicate compiled at [begin, end).
  std::optional<VmEntry::LeadingRange> LeadingRangeOf(std::uint32_t begin, std::uint32_t end) const;
  // The conjunct descriptors (VmEntry::int_conjuncts) of the predicate
  // compiled at [begin, end), flattened; empty when it has another shape.
  std::vector<cl_long> IntConjunctsOf(std::uint32_t begin, std::uint32_t end) const;
  void Emit(std::uint32_t op) { Emit(op, Operand{0, 0, 0}); }
  int StackNeed(const sql::Expr& e) const;
  bool MayBeNull(const sql::Expr& e) const;
  bool AnyNull(const sql::Expr& e) const;
  // Emits division or remainder by the constant `divisor` via its magic
  // number; false when the divisor needs the general path (0, 1, -1, huge).
  // `narrow_dividend`: |dividend| < 2^31 is proven, use the 32-bit path.
  bool EmitConstantDivision(std::uint32_t op, std::int64_t divisor, bool narrow_dividend);
  // The code from `begin` when it is LOAD of an integer column + an integer
  // comparison with a constant: the column's operand kind, its slot, the
  // comparison (VM_KEEP_CMP_EQ..GE) and the constant's index.
  struct ColumnTest {
    std::uint32_t column_kind = 0;
    std::uint32_t slot = 0;
    std::uint32_t comparison = 0;
    std::uint32_t constant = 0;
  };
  std::optional<ColumnTest> ColumnTestAt(std::size_t begin) const;
  // Replaces a conjunct compiled from `begin` as LOAD column + integer
  // comparison with a constant by one VM_KEEP_CMP; false (nothing changed)
  // for any other shape.
  bool FuseKeepComparison(std::size_t begin);
  // Whether the code from `begin` is a ColumnTest of an INT32 column against
  // a constant outside int32.
  bool ComparesInt32WithWideConstant(std::size_t begin) const;
  // The conjuncts of a predicate (each compiled alone, ending in its KEEP or
  // KEEP_CMP) in the order to run them: the KEEP_CMP range tests of one
  // column merged into one VM_KEEP_CMP_RANGE, range tests first, the most
  // selective first by column statistics; then the others in query order.
  // Unchanged when a conjunct can raise an overflow (the order decides which
  // rows reach it).
  std::vector<std::vector<cl_uint2>> OrderConjuncts(std::vector<std::vector<cl_uint2>> conjuncts);
  static Domain DomainOf(sql::ValueType type);
  // Bounds of an INTEGER expression (operators/value_range.hpp).
  std::optional<IntRange> Range(const sql::Expr& e) const;
  // Column bounds for the range analysis (statistics, or INT32's range).
  ColumnRangeFn ColumnRanges() const;
  // VM_OPND_NOCHECK / VM_OPND_NARROW for integer arithmetic `e`.
  std::uint32_t ArithmeticFlags(const sql::Expr& e) const;
  // ORs operand flags into the last emitted instruction.
  void FlagLast(std::uint32_t flags) { code_.back().s[0] |= flags << 8; }

  std::vector<VmInputColumn> columns_;
  ColumnMapper mapper_;
  std::vector<VmSlot> slots_;
  std::vector<cl_uint2> code_;
  std::vector<cl_long> constants_;
  std::vector<VmEntry> entries_;
  int depth_ = 0;
};

}  // namespace clq
