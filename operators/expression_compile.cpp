// ExpressionProgram's compiler: entries, slots and constants, leaves and
// arithmetic (comparisons, logic and a predicate's conjuncts are in
// expression_compile_predicates.cpp).
#include "operators/expression_program.hpp"

#include <algorithm>
#include <bit>
#include <optional>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/constant_division.hpp"
#include "operators/expression_program_internal.hpp"
#include "operators/value_range.hpp"
#include "sql/expr_equality.hpp"

namespace clq {
namespace {

using expression_internal::ComparisonIndex;
using expression_internal::IsArithmetic;
using expression_internal::IsComparison;
using sql::BinaryOp;
using sql::Expr;
using sql::ValueType;

void FlattenAnd(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == Expr::Kind::kBinary && e.binary_op == BinaryOp::kAnd) {
    FlattenAnd(e.children[0], out);
    FlattenAnd(e.children[1], out);
  } else {
    out.push_back(&e);
  }
}

// The machine holds no strings to cut: the binder turns the comparisons
// it can into LIKE and byte ranges, and the output path cuts a column's
// values on the host (plan/output_node.cpp).
void RefuseOnHost(const Expr& e) {
  // MIN and MAX of CHAR run on order codes; their strings are looked up on
  // the host, after the device's work.
  if (sql::ContainsKind(e, Expr::Kind::kTextOfCode))
    throw DeviceLimitError("the string of an order code is found on the host");
  if (!sql::ContainsKind(e, Expr::Kind::kSubstring)) return;
  throw DeviceLimitError(
      "SUBSTRING is supported on devices only compared with string literals (=, <>, IN, NOT IN; "
      "no negative length with a negative start; no '%' or '_' in a literal compared past the "
      "first byte or from the end) and as an output of a query without aggregates; for GROUP "
      "BY, ORDER BY, DISTINCT, joins or aggregates over it, select it in a derived table first");
}

}  // namespace

ExpressionProgram::ExpressionProgram(std::vector<VmInputColumn> columns, ColumnMapper mapper)
    : columns_(std::move(columns)), mapper_(std::move(mapper)) {}

ExpressionProgram::Domain ExpressionProgram::DomainOf(ValueType type) {
  return type == ValueType::kReal ? Domain::kReal : Domain::kInteger;
}

std::uint32_t ExpressionProgram::Slot(std::size_t column) {
  CLQ_CHECK(column < columns_.size(), "column mapped outside the relation");
  for (std::size_t s = 0; s < slots_.size(); ++s)
    if (slots_[s].column == column) return static_cast<std::uint32_t>(s);
  if (slots_.size() == VM_MAX_SLOTS) {
    throw DeviceLimitError("an expression reads more than " + std::to_string(VM_MAX_SLOTS) +
                           " different columns, more than the device expression machine holds");
  }
  slots_.push_back({column, columns_[column].type, columns_[column].nullable});
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

std::uint32_t ExpressionProgram::Constant(std::int64_t bits) {
  for (std::size_t i = 0; i < constants_.size(); ++i)
    if (constants_[i] == bits) return static_cast<std::uint32_t>(i);
  constants_.push_back(bits);
  return static_cast<std::uint32_t>(constants_.size() - 1);
}

void ExpressionProgram::Emit(std::uint32_t op, const Operand& operand) {
  code_.push_back({{op | (operand.kind << 8) | (operand.arg << 16), operand.word1}});
}

bool ExpressionProgram::IsLeaf(const Expr& e) const {
  if (e.kind == Expr::Kind::kConstant) return e.type != ValueType::kText;
  if (e.kind == Expr::Kind::kColumnRef) return e.type != ValueType::kText;
  return false;
}

bool ExpressionProgram::IsBoolean(const Expr& e) const {
  switch (e.kind) {
    case Expr::Kind::kUnary:
      return e.unary_op != sql::UnaryOp::kNegate && !sql::IsExtract(e.unary_op);
    case Expr::Kind::kBinary:
      return !IsArithmetic(e.binary_op);
    case Expr::Kind::kBetween:
    case Expr::Kind::kInList:
    case Expr::Kind::kLike:
      return true;
    default:
      return false;
  }
}

ExpressionProgram::Operand ExpressionProgram::LeafOperand(const Expr& e, Domain domain) {
  if (e.kind == Expr::Kind::kConstant) {
    switch (e.constant.type) {
      case ValueType::kNull:
        return {VM_OPND_NULL, 0, 0};
      case ValueType::kInteger:
        return {
            VM_OPND_CONST, 0,
            Constant(domain == Domain::kInteger
                         ? e.constant.integer
                         : std::bit_cast<std::int64_t>(static_cast<double>(e.constant.integer)))};
      case ValueType::kReal:
        CLQ_CHECK(domain == Domain::kReal, "REAL constant in an INTEGER context");
        return {VM_OPND_CONST, 0, Constant(std::bit_cast<std::int64_t>(e.constant.real))};
      case ValueType::kText:
        break;
    }
    throw InternalError("text constant as a numeric operand");
  }
  const std::size_t column = mapper_(e.source, e.index);
  const std::uint32_t slot = Slot(column);
  const ColumnType type = columns_[column].type;
  std::uint32_t kind = 0;
  switch (type.type) {
    case DataType::kInt32:
      kind = domain == Domain::kInteger ? VM_OPND_COL_I32 : VM_OPND_COL_I32_R;
      break;
    case DataType::kInt64:
      kind = domain == Domain::kInteger ? VM_OPND_COL_I64 : VM_OPND_COL_I64_R;
      break;
    case DataType::kDouble:
      CLQ_CHECK(domain == Domain::kReal, "DOUBLE column read as INTEGER without a cast");
      kind = VM_OPND_COL_F64;
      break;
    case DataType::kChar:
      throw InternalError("CHAR column as a numeric operand");
  }
  if (columns_[column].nullable) kind |= VM_OPND_NULLABLE;
  return {kind, slot, 0};
}

int ExpressionProgram::StackNeed(const Expr& e) const {
  if (IsLeaf(e)) return 0;
  int need = 0;
  for (const Expr& child : e.children)
    need = std::max(need, StackNeed(child));
  if (e.kind == Expr::Kind::kCase) return need + 3;  // saved items, result, undecided items
  return e.children.size() > 1 ? need + 1 : need;
}

bool ExpressionProgram::MayBeNull(const Expr& e) const {
  switch (e.kind) {
    case Expr::Kind::kConstant:
      return e.constant.is_null();
    case Expr::Kind::kColumnRef:
      return columns_[mapper_(e.source, e.index)].nullable;
    case Expr::Kind::kUnary:
      if (e.unary_op == sql::UnaryOp::kIsNull || e.unary_op == sql::UnaryOp::kIsNotNull)
        return false;
      return MayBeNull(e.children[0]);
    case Expr::Kind::kBinary:
      if (e.binary_op == BinaryOp::kDivide || e.binary_op == BinaryOp::kModulo) {
        if (!DivisorExcludesZero(e.children[1], e.binary_op, ColumnRanges())) return true;
      }
      if (MayBeNaN(e, ColumnRanges())) return true;  // NaN is NULL
      return MayBeNull(e.children[0]) || MayBeNull(e.children[1]);
    default:
      for (const Expr& child : e.children)
        if (MayBeNull(child)) return true;
      return false;
  }
}

bool ExpressionProgram::AnyNull(const Expr& e) const {
  switch (e.kind) {
    case Expr::Kind::kConstant:
      return e.constant.is_null();
    case Expr::Kind::kColumnRef:
      return columns_[mapper_(e.source, e.index)].nullable;
    case Expr::Kind::kBinary:
      if ((e.binary_op == BinaryOp::kDivide || e.binary_op == BinaryOp::kModulo) && MayBeNull(e))
        return true;  // division by zero
      if (MayBeNaN(e, ColumnRanges())) return true;
      break;
    default:
      break;
  }
  for (const Expr& child : e.children)
    if (AnyNull(child)) return true;
  return false;
}

bool ExpressionProgram::EmitConstantDivision(std::uint32_t op, std::int64_t divisor,
                                             bool narrow_dividend) {
  const std::optional<DivisionMagic> narrow =
      narrow_dividend ? DivisionMagic32For(divisor) : std::nullopt;
  const std::optional<DivisionMagic> magic = narrow ? narrow : DivisionMagicFor(divisor);
  if (!magic) return false;
  const std::uint32_t first = static_cast<std::uint32_t>(constants_.size());
  constants_.push_back(magic->magic);
  constants_.push_back(static_cast<std::int64_t>(magic->shift | (magic->mode << 8)));
  constants_.push_back(divisor);
  Emit(op, {narrow ? std::uint32_t{VM_OPND_NARROW} : std::uint32_t{VM_OPND_NONE}, 0, first});
  return true;
}

std::size_t ExpressionProgram::AddValue(const Expr& expr) {
  RefuseOnHost(expr);
  VmEntry entry;
  entry.begin = static_cast<std::uint32_t>(code_.size());
  entry.type = expr.type == ValueType::kReal ? ValueType::kReal : ValueType::kInteger;
  if (expr.type == ValueType::kText)
    throw DeviceLimitError("TEXT expressions other than comparisons are not supported on devices");
  Compile(expr, DomainOf(expr.type));
  entry.end = static_cast<std::uint32_t>(code_.size());
  entry.may_be_null = MayBeNull(expr);
  entry.track_nulls = AnyNull(expr);
  if (entry.type == ValueType::kInteger) entry.range = Range(expr);
  CheckEntryStart(entry);
  entries_.push_back(entry);
  return entries_.size() - 1;
}

std::size_t ExpressionProgram::AddPredicate(const Expr& expr) {
  RefuseOnHost(expr);
  VmEntry entry;
  entry.begin = static_cast<std::uint32_t>(code_.size());
  std::vector<const Expr*> conjuncts;
  FlattenAnd(expr, conjuncts);
  bool single = conjuncts.size() == 1 && !(expr.kind == Expr::Kind::kBetween && !expr.negated);
  if (single) {
    const std::size_t begin = code_.size();
    CompileBoolean(expr);
    // Compiled as a conjunct instead, a test of an INT32 column against a
    // constant past int32 becomes a clamped range test (OrderConjuncts),
    // which keeps it on the 32-bit machine.
    if (ComparesInt32WithWideConstant(begin)) {
      code_.resize(begin);
      single = false;
    }
  }
  if (!single) {
    // WHERE treats NULL as false, so conjuncts can be folded into the pass flag.
    // Each KEEP's second word is the TAKE_PASS position: a work-item whose
    // items have all failed jumps there, skipping the later conjuncts' loads
    // (short-circuit AND). Each conjunct is compiled alone, so that range
    // tests can be merged and moved first (OrderConjuncts).
    std::vector<std::vector<cl_uint2>> conjunct_code;
    const auto compile_conjunct = [&](const Expr& c) {
      const std::size_t begin = code_.size();
      CompileBoolean(c);
      if (!FuseKeepComparison(begin)) Emit(VM_KEEP);
      conjunct_code.emplace_back(code_.begin() + static_cast<std::ptrdiff_t>(begin), code_.end());
      code_.resize(begin);
    };
    for (const Expr* c : conjuncts) {
      if (c->kind == Expr::Kind::kBetween && !c->negated) {
        compile_conjunct(
            sql::MakeBoolean(BinaryOp::kGreaterEqual, c->children[0], c->children[1], c->position));
        compile_conjunct(
            sql::MakeBoolean(BinaryOp::kLessEqual, c->children[0], c->children[2], c->position));
      } else {
        compile_conjunct(*c);
      }
    }
    std::vector<std::size_t> keeps;
    for (const std::vector<cl_uint2>& code : OrderConjuncts(std::move(conjunct_code))) {
      code_.insert(code_.end(), code.begin(), code.end());
      keeps.push_back(code_.size() - 1);
    }
    for (const std::size_t k : keeps)
      code_[k].s[1] = static_cast<std::uint32_t>(code_.size());
    Emit(VM_TAKE_PASS);
  }
  entry.end = static_cast<std::uint32_t>(code_.size());
  if (!single) entry.leading_range = LeadingRangeOf(entry.begin, entry.end);
  const std::vector<cl_long> int_conjuncts = IntConjunctsOf(entry.begin, entry.end);
  if (!int_conjuncts.empty()) {
    entry.int_conjuncts = static_cast<std::uint32_t>(int_conjuncts.size() / VM_CONJUNCT_LONGS);
    // Shared with an entry that has the same descriptors, as constants are.
    const auto found = std::search(constants_.begin(), constants_.end(), int_conjuncts.begin(),
                                   int_conjuncts.end());
    entry.int_conjuncts_at = static_cast<std::uint32_t>(found - constants_.begin());
    if (found == constants_.end())
      constants_.insert(constants_.end(), int_conjuncts.begin(), int_conjuncts.end());
  }
  entry.type = ValueType::kInteger;
  entry.may_be_null = MayBeNull(expr);
  entry.track_nulls = AnyNull(expr);
  CheckEntryStart(entry);
  entries_.push_back(entry);
  return entries_.size() - 1;
}

void ExpressionProgram::CheckEntryStart(const VmEntry& entry) const {
  CLQ_CHECK(entry.begin < entry.end, "empty expression program");
  const std::uint32_t op = code_[entry.begin].s[0] & 0xFF;
  CLQ_CHECK(op == VM_LOAD || op == VM_KEEP_CMP || op == VM_STR_CMP || op == VM_STR_LIKE ||
                op == VM_TAKE_PASS || op == VM_CASE_BEGIN,
            "expression program starts by reading its accumulator");
}

void ExpressionProgram::Compile(const Expr& e, Domain domain) {
  if (e.type == ValueType::kNull) {
    Emit(VM_LOAD, {VM_OPND_NULL, 0, 0});
    return;
  }
  if (e.type == ValueType::kText && e.kind == Expr::Kind::kCase)
    throw DeviceLimitError(
        "CASE with TEXT results is supported on devices only compared with a "
        "string literal");
  if (e.type == ValueType::kText && e.kind != Expr::Kind::kBinary)
    throw DeviceLimitError("TEXT values can only be compared on devices");
  const Domain natural = DomainOf(e.type);
  if (IsLeaf(e)) {
    if (natural == Domain::kReal && domain == Domain::kInteger) {
      Emit(VM_LOAD, LeafOperand(e, Domain::kReal));
      Emit(VM_R2I);
    } else {
      Emit(VM_LOAD, LeafOperand(e, domain));
    }
    return;
  }
  switch (e.kind) {
    case Expr::Kind::kUnary:
      switch (e.unary_op) {
        case sql::UnaryOp::kNegate:
          Compile(e.children[0], natural);
          Emit(natural == Domain::kInteger ? VM_NEG_I : VM_NEG_R);
          if (natural == Domain::kInteger) FlagLast(ArithmeticFlags(e));
          break;
        case sql::UnaryOp::kNot:
          CompileBoolean(e.children[0]);
          Emit(VM_NOT);
          break;
        case sql::UnaryOp::kIsNull:
        case sql::UnaryOp::kIsNotNull: {
          const Expr& child = e.children[0];
          if (child.type == ValueType::kText && !MayBeNull(child)) {
            // A text literal, or a CHAR column without NULLs.
            Emit(VM_LOAD, {VM_OPND_CONST, 0, Constant(e.unary_op == sql::UnaryOp::kIsNotNull)});
          } else if (child.type == ValueType::kText) {
            // A nullable CHAR column: `column >= ''` is true for every
            // string and NULL exactly where the column is.
            CompileTextComparison(child, sql::MakeConstant(sql::Value::Text(""), child.position),
                                  static_cast<int>(ComparisonIndex(BinaryOp::kGreaterEqual)),
                                  child.position);
            Emit(e.unary_op == sql::UnaryOp::kIsNull ? VM_IS_NULL : VM_IS_NOT_NULL);
          } else {
            Compile(child, DomainOf(child.type));
            Emit(e.unary_op == sql::UnaryOp::kIsNull ? VM_IS_NULL : VM_IS_NOT_NULL);
          }
          break;
        }
        case sql::UnaryOp::kExtractYear:
        case sql::UnaryOp::kExtractMonth:
        case sql::UnaryOp::kExtractDay: {
          Compile(e.children[0], Domain::kInteger);
          const std::uint32_t field = e.unary_op == sql::UnaryOp::kExtractYear    ? VM_EXTRACT_YEAR
                                      : e.unary_op == sql::UnaryOp::kExtractMonth ? VM_EXTRACT_MONTH
                                                                                  : VM_EXTRACT_DAY;
          // NARROW where every day fits int32 (the result then does too).
          const std::optional<IntRange> days = Range(e.children[0]);
          const bool narrow = days && days->FitsInt32();
          Emit(VM_EXTRACT,
               {narrow ? std::uint32_t{VM_OPND_NARROW} : std::uint32_t{VM_OPND_NONE}, field, 0});
          break;
        }
      }
      break;
    case Expr::Kind::kBinary:
      if (IsArithmetic(e.binary_op)) {
        CompileArithmetic(e, natural);
      } else if (IsComparison(e.binary_op)) {
        CompileComparison(e);
      } else {
        CompileLogic(e);
      }
      break;
    case Expr::Kind::kBetween:
      CompileBetween(e);
      break;
    case Expr::Kind::kInList:
      CompileInList(e);
      break;
    case Expr::Kind::kCast:
      Compile(e.children[0], natural);
      break;
    case Expr::Kind::kCase:
      CompileCase(e, natural);
      break;
    case Expr::Kind::kLike:
      CompileLike(e);
      break;
    default:
      throw InternalError("expression kind " + std::to_string(static_cast<int>(e.kind)) +
                          " not mapped to columns before compilation");
  }
  if (natural != domain) Emit(domain == Domain::kReal ? VM_I2R : VM_R2I);
}

void ExpressionProgram::CompileCase(const Expr& e, Domain domain) {
  // The machine's stack holds the saved items and the result for the whole
  // CASE, and the undecided items while a THEN value runs.
  depth_ += 2;
  if (depth_ + 1 > VM_MAX_STACK)
    throw DeviceLimitError("expression nests too deeply for the device expression machine");
  Emit(VM_CASE_BEGIN);
  for (std::size_t i = 0; i + 1 < e.children.size(); i += 2) {
    CompileBoolean(e.children[i]);
    Emit(VM_CASE_WHEN);
    ++depth_;
    Compile(e.children[i + 1], domain);
    --depth_;
    Emit(VM_CASE_THEN);
  }
  Compile(e.children.back(), domain);
  Emit(VM_CASE_END);
  depth_ -= 2;
}

void ExpressionProgram::CompileBoolean(const Expr& e) {
  Compile(e, DomainOf(e.type));
  if (!IsBoolean(e) && e.type != ValueType::kNull)
    Emit(e.type == ValueType::kReal ? VM_TRUTH_R : VM_TRUTH_I);
}

void ExpressionProgram::CompileBinary(const Expr& left, const Expr& right, std::uint32_t op,
                                      Domain domain, bool commutative) {
  if (IsLeaf(right) && !(right.type == ValueType::kReal && domain == Domain::kInteger)) {
    Compile(left, domain);
    Emit(op, LeafOperand(right, domain));
    return;
  }
  const bool reversible = op == VM_SUB_I || op == VM_DIV_I || op == VM_MOD_I || op == VM_SUB_R ||
                          op == VM_DIV_R || op == VM_MOD_R;
  if ((commutative || reversible) && IsLeaf(left) &&
      !(left.type == ValueType::kReal && domain == Domain::kInteger)) {
    // leaf OP expression: evaluate the expression, then combine with the leaf
    // as the left operand, without the stack.
    Compile(right, domain);
    Operand operand = LeafOperand(left, domain);
    if (!commutative) operand.kind |= VM_OPND_REVERSED;
    Emit(op, operand);
    return;
  }
  // acc = second OP pop(first): for a non-commutative op, second must be `left`.
  const Expr* first = &right;
  const Expr* second = &left;
  if (commutative && StackNeed(left) > StackNeed(right)) std::swap(first, second);
  Compile(*first, domain);
  Emit(VM_PUSH);
  if (++depth_ > VM_MAX_STACK)
    throw DeviceLimitError("expression nests too deeply for the device expression machine");
  Compile(*second, domain);
  Emit(op, {VM_OPND_POP, 0, 0});
  --depth_;
}

void ExpressionProgram::CompileArithmetic(const Expr& e, Domain domain) {
  const bool real = domain == Domain::kReal;
  if (real && e.binary_op == BinaryOp::kModulo) {
    // SQLite: both operands cast to INTEGER, the integer remainder, a REAL
    // result. Each operand converts from its own type (an INTEGER past 2^53
    // would lose digits on its way through a double).
    CompileBinary(e.children[0], e.children[1], VM_MOD_I, Domain::kInteger, false);
    Emit(VM_I2R);
    return;
  }
  std::uint32_t op = 0;
  switch (e.binary_op) {
    case BinaryOp::kAdd:
      op = real ? VM_ADD_R : VM_ADD_I;
      break;
    case BinaryOp::kSubtract:
      op = real ? VM_SUB_R : VM_SUB_I;
      break;
    case BinaryOp::kMultiply:
      op = real ? VM_MUL_R : VM_MUL_I;
      break;
    case BinaryOp::kDivide:
      op = real ? VM_DIV_R : VM_DIV_I;
      break;
    default:
      op = real ? VM_MOD_R : VM_MOD_I;
      break;
  }
  const Expr& divisor = e.children[1];
  if (!real && (op == VM_DIV_I || op == VM_MOD_I) && divisor.kind == Expr::Kind::kConstant &&
      divisor.constant.type == ValueType::kInteger && DivisionMagicFor(divisor.constant.integer)) {
    Compile(e.children[0], domain);
    const std::optional<IntRange> dividend = Range(e.children[0]);
    // The 32-bit path negates the dividend, so INT32_MIN itself is excluded.
    const bool narrow = dividend && dividend->min > INT32_MIN && dividend->max <= INT32_MAX;
    EmitConstantDivision(op == VM_DIV_I ? VM_DIV_CONST_I : VM_MOD_CONST_I, divisor.constant.integer,
                         narrow);
    return;
  }
  const bool commutative = e.binary_op == BinaryOp::kAdd || e.binary_op == BinaryOp::kMultiply;
  CompileBinary(e.children[0], e.children[1], op, domain, commutative);
  // SQLite's NULL for a result that is not a number (Inf - Inf, 0 * Inf),
  // emitted only where the range analysis cannot rule NaN out.
  if (real && op != VM_MOD_R && MayBeNaN(e, ColumnRanges())) Emit(VM_NAN_NULL);
  if (op == VM_ADD_I || op == VM_SUB_I || op == VM_MUL_I) FlagLast(ArithmeticFlags(e));
  // The 64-bit machine checks a division's operands at run time; NARROW only
  // tells the 32-bit machine the quotient fits (ExpressionProgram::IsNarrow).
  if (op == VM_DIV_I || op == VM_MOD_I) FlagLast(ArithmeticFlags(e) & VM_OPND_NARROW);
}

}  // namespace clq
