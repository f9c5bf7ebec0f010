#include "operators/expression_program.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/constant_division.hpp"
#include "operators/int_real_compare.hpp"
#include "operators/value_range.hpp"

namespace clq {
namespace {

using sql::BinaryOp;
using sql::Expr;
using sql::ValueType;

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEqual || op == BinaryOp::kNotEqual || op == BinaryOp::kLess ||
         op == BinaryOp::kLessEqual || op == BinaryOp::kGreater || op == BinaryOp::kGreaterEqual;
}

bool IsArithmetic(BinaryOp op) {
  return op == BinaryOp::kAdd || op == BinaryOp::kSubtract || op == BinaryOp::kMultiply ||
         op == BinaryOp::kDivide || op == BinaryOp::kModulo;
}

// Index of a comparison in the =, <>, <, <=, >, >= order of the opcodes.
std::uint32_t ComparisonIndex(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEqual:
      return 0;
    case BinaryOp::kNotEqual:
      return 1;
    case BinaryOp::kLess:
      return 2;
    case BinaryOp::kLessEqual:
      return 3;
    case BinaryOp::kGreater:
      return 4;
    default:
      return 5;
  }
}

void FlattenAnd(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == Expr::Kind::kBinary && e.binary_op == BinaryOp::kAnd) {
    FlattenAnd(e.children[0], out);
    FlattenAnd(e.children[1], out);
  } else {
    out.push_back(&e);
  }
}

const char* OpcodeName(std::uint32_t op) {
  static const char* const kNames[VM_OPCODE_COUNT] = {
      "LOAD",    "PUSH",    "ADD_I",   "SUB_I", "MUL_I",     "DIV_I",       "MOD_I",
      "ADD_R",   "SUB_R",   "MUL_R",   "DIV_R", "MOD_R",     "NEG_I",       "NEG_R",
      "I2R",     "R2I",     "EQ_I",    "NE_I",  "LT_I",      "LE_I",        "GT_I",
      "GE_I",    "EQ_R",    "NE_R",    "LT_R",  "LE_R",      "GT_R",        "GE_R",
      "TRUTH_I", "TRUTH_R", "NOT",     "AND",   "OR",        "IS_NULL",     "IS_NOT_NULL",
      "IN_I",    "IN_R",    "STR_CMP", "KEEP",  "TAKE_PASS", "DIV_CONST_I", "MOD_CONST_I",
      "KEEP_CMP"};
  return op < VM_OPCODE_COUNT ? kNames[op] : "?";
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
      return e.unary_op != sql::UnaryOp::kNegate;
    case Expr::Kind::kBinary:
      return !IsArithmetic(e.binary_op);
    case Expr::Kind::kBetween:
    case Expr::Kind::kInList:
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

std::optional<IntRange> ExpressionProgram::Range(const Expr& e) const {
  return IntegerRangeOf(e, ColumnRanges());
}

ColumnRangeFn ExpressionProgram::ColumnRanges() const {
  return [this](const Expr& column_ref) -> std::optional<IntRange> {
    const VmInputColumn& column = columns_[mapper_(column_ref.source, column_ref.index)];
    std::optional<IntRange> known = column.range ? column.range() : std::nullopt;
    if (column.type.type == DataType::kInt32) {
      const IntRange type_bounds{INT32_MIN, INT32_MAX};
      if (!known) return type_bounds;
      return IntRange{std::max(known->min, type_bounds.min), std::min(known->max, type_bounds.max)};
    }
    return known;
  };
}

std::uint32_t ExpressionProgram::ArithmeticFlags(const Expr& e) const {
  const std::optional<IntRange> result = Range(e);
  if (!result) return 0;
  bool narrow = result->FitsInt32();
  for (const Expr& child : e.children) {
    const std::optional<IntRange> operand = Range(child);
    narrow = narrow && operand && operand->FitsInt32();
  }
  return std::uint32_t{VM_OPND_NOCHECK} | (narrow ? std::uint32_t{VM_OPND_NARROW} : 0u);
}

std::size_t ExpressionProgram::AddValue(const Expr& expr) {
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
  CLQ_CHECK(op == VM_LOAD || op == VM_KEEP_CMP || op == VM_STR_CMP || op == VM_TAKE_PASS,
            "expression program starts by reading its accumulator");
}

void ExpressionProgram::Compile(const Expr& e, Domain domain) {
  if (e.type == ValueType::kNull) {
    Emit(VM_LOAD, {VM_OPND_NULL, 0, 0});
    return;
  }
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
          if (child.type == ValueType::kText) {
            // CHAR columns are never NULL; a text literal is not NULL either.
            Emit(VM_LOAD, {VM_OPND_CONST, 0, Constant(e.unary_op == sql::UnaryOp::kIsNotNull)});
          } else {
            Compile(child, DomainOf(child.type));
            Emit(e.unary_op == sql::UnaryOp::kIsNull ? VM_IS_NULL : VM_IS_NOT_NULL);
          }
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
    default:
      throw InternalError("expression kind " + std::to_string(static_cast<int>(e.kind)) +
                          " not mapped to columns before compilation");
  }
  if (natural != domain) Emit(domain == Domain::kReal ? VM_I2R : VM_R2I);
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
  if (op == VM_ADD_I || op == VM_SUB_I || op == VM_MUL_I) FlagLast(ArithmeticFlags(e));
  // The 64-bit machine checks a division's operands at run time; NARROW only
  // tells the 32-bit machine the quotient fits (ExpressionProgram::IsNarrow).
  if (op == VM_DIV_I || op == VM_MOD_I) FlagLast(ArithmeticFlags(e) & VM_OPND_NARROW);
}

void ExpressionProgram::CompileComparison(const Expr& e) {
  const Expr& left = e.children[0];
  const Expr& right = e.children[1];
  if (left.type == ValueType::kText || right.type == ValueType::kText) {
    const bool left_column = left.kind == Expr::Kind::kColumnRef;
    const bool right_column = right.kind == Expr::Kind::kColumnRef;
    if (left_column && right.kind == Expr::Kind::kConstant && right.type == ValueType::kText) {
      CompileTextComparison(left, right, static_cast<int>(ComparisonIndex(e.binary_op)),
                            e.position);
      return;
    }
    if (right_column && left.kind == Expr::Kind::kConstant && left.type == ValueType::kText) {
      CompileTextComparison(right, left,
                            static_cast<int>(ComparisonIndex(sql::MirroredComparison(e.binary_op))),
                            e.position);
      return;
    }
    if (left.type == ValueType::kNull || right.type == ValueType::kNull) {
      Emit(VM_LOAD, {VM_OPND_NULL, 0, 0});
      return;
    }
    throw DeviceLimitError(
        "only comparisons of a CHAR column with a string literal are supported on devices");
  }
  const Domain domain = (left.type == ValueType::kReal || right.type == ValueType::kReal)
                            ? Domain::kReal
                            : Domain::kInteger;
  if (domain == Domain::kReal &&
      (left.type == ValueType::kInteger || right.type == ValueType::kInteger)) {
    // SQLite compares INTEGER with REAL exactly; a double comparison is exact
    // only while the integer is within 2^53, else the comparison is rewritten.
    const bool integer_left = left.type == ValueType::kInteger;
    const Expr& integer = integer_left ? left : right;
    const Expr& real = integer_left ? right : left;
    const BinaryOp op = integer_left ? e.binary_op : sql::MirroredComparison(e.binary_op);
    if (!ConvertsToRealExactly(Range(integer))) {
      if (integer.kind == Expr::Kind::kConstant && integer.constant.type == ValueType::kInteger) {
        CompileComparison(RealComparisonWithIntegerConstant(sql::MirroredComparison(op), real,
                                                            integer.constant.integer, e.position));
        return;
      }
      if (real.kind == Expr::Kind::kConstant && real.constant.type == ValueType::kReal) {
        if (std::optional<Expr> exact =
                IntegerComparisonWithRealConstant(op, integer, real.constant.real, e.position)) {
          CompileComparison(*exact);
          return;
        }
      }
      const Expr exact = ExactIntegerRealComparison(op, integer, real, e.position);
      Compile(exact, DomainOf(exact.type));
      return;
    }
  }
  const std::uint32_t base = domain == Domain::kInteger ? VM_EQ_I : VM_EQ_R;
  const bool commutative = e.binary_op == BinaryOp::kEqual || e.binary_op == BinaryOp::kNotEqual;
  // `constant <op> column` is compiled as `column <mirrored op> constant`,
  // the form a WHERE fuses into one KEEP_CMP (FuseKeepComparison).
  const bool constant_first =
      left.kind == Expr::Kind::kConstant && right.kind == Expr::Kind::kColumnRef;
  if (constant_first || (!commutative && !IsLeaf(right) && IsLeaf(left))) {
    CompileBinary(right, left, base + ComparisonIndex(sql::MirroredComparison(e.binary_op)), domain,
                  commutative);
  } else {
    CompileBinary(left, right, base + ComparisonIndex(e.binary_op), domain, commutative);
  }
}

void ExpressionProgram::CompileTextComparison(const Expr& column, const Expr& literal, int cmp,
                                              std::size_t /*position*/) {
  const std::size_t index = mapper_(column.source, column.index);
  const std::uint32_t slot = Slot(index);
  if (columns_[index].nullable)
    throw DeviceLimitError("comparisons of nullable TEXT values are not supported on devices");
  const std::string& text = literal.constant.text;
  const std::uint32_t descriptor = static_cast<std::uint32_t>(constants_.size());
  constants_.push_back(static_cast<std::int64_t>(text.size()) |
                       (static_cast<std::int64_t>(cmp) << 32));
  for (std::size_t i = 0; i < text.size(); i += 8) {
    std::int64_t packed = 0;
    std::memcpy(&packed, text.data() + i, std::min<std::size_t>(8, text.size() - i));
    constants_.push_back(packed);
  }
  Emit(VM_STR_CMP, {slot, columns_[index].type.width, descriptor});
}

void ExpressionProgram::CompileLogic(const Expr& e) {
  const Expr* first = &e.children[0];
  const Expr* second = &e.children[1];
  if (StackNeed(*second) > StackNeed(*first)) std::swap(first, second);
  CompileBoolean(*first);
  Emit(VM_PUSH);
  if (++depth_ > VM_MAX_STACK)
    throw DeviceLimitError("expression nests too deeply for the device expression machine");
  CompileBoolean(*second);
  Emit(e.binary_op == BinaryOp::kAnd ? VM_AND : VM_OR, {VM_OPND_POP, 0, 0});
  --depth_;
}

void ExpressionProgram::CompileBetween(const Expr& e) {
  const Expr& value = e.children[0];
  Expr both = sql::MakeBoolean(
      BinaryOp::kAnd, sql::MakeBoolean(BinaryOp::kGreaterEqual, value, e.children[1], e.position),
      sql::MakeBoolean(BinaryOp::kLessEqual, value, e.children[2], e.position), e.position);
  CompileLogic(both);
  if (e.negated) Emit(VM_NOT);
}

void ExpressionProgram::CompileInList(const Expr& e) {
  const Expr& value = e.children[0];
  bool all_constant = true;
  bool any_real = value.type == ValueType::kReal;
  for (std::size_t i = 1; i < e.children.size(); ++i) {
    all_constant &= e.children[i].kind == Expr::Kind::kConstant;
    any_real |= e.children[i].type == ValueType::kReal;
  }
  // With a REAL operand, an INTEGER one (the value or an item) that can pass
  // 2^53 would be rounded by VM_IN_R: the chain of comparisons compares it
  // exactly (CompileComparison).
  bool rounds_as_real = false;
  for (std::size_t i = 0; i < e.children.size() && any_real; ++i)
    rounds_as_real |=
        e.children[i].type == ValueType::kInteger && !ConvertsToRealExactly(Range(e.children[i]));
  if (value.type == ValueType::kText || !all_constant || rounds_as_real) {
    // value = item1 OR value = item2 ...
    Expr chain = sql::MakeBoolean(BinaryOp::kEqual, value, e.children[1], e.position);
    for (std::size_t i = 2; i < e.children.size(); ++i) {
      chain = sql::MakeBoolean(BinaryOp::kOr, std::move(chain),
                               sql::MakeBoolean(BinaryOp::kEqual, value, e.children[i], e.position),
                               e.position);
    }
    if (chain.kind == Expr::Kind::kBinary && IsComparison(chain.binary_op)) {
      CompileComparison(chain);
    } else {
      CompileLogic(chain);
    }
    if (e.negated) Emit(VM_NOT);
    return;
  }
  const Domain domain = any_real ? Domain::kReal : Domain::kInteger;
  bool list_has_null = false;
  std::vector<std::int64_t> items;
  for (std::size_t i = 1; i < e.children.size(); ++i) {
    const sql::Value& c = e.children[i].constant;
    if (c.is_null()) {
      list_has_null = true;
    } else if (domain == Domain::kInteger) {
      items.push_back(c.integer);
    } else {
      const double v = c.type == ValueType::kReal ? c.real : static_cast<double>(c.integer);
      items.push_back(std::bit_cast<std::int64_t>(v));
    }
  }
  const std::uint32_t first = static_cast<std::uint32_t>(constants_.size());
  constants_.insert(constants_.end(), items.begin(), items.end());
  Compile(value, domain);
  if (items.size() > 0xFFFF)
    throw DeviceLimitError("IN lists hold at most 65535 values on devices");
  Emit(domain == Domain::kInteger ? VM_IN_I : VM_IN_R,
       {list_has_null ? 1u : 0u, static_cast<std::uint32_t>(items.size()), first});
  if (e.negated) Emit(VM_NOT);
}

bool ExpressionProgram::IsBareColumn(std::size_t index) const {
  const VmEntry& e = entry(index);
  if (e.end != e.begin + 1) return false;
  const std::uint32_t word0 = code_[e.begin].s[0];
  const std::uint32_t kind = (word0 >> 8) & 0xFF;
  const std::uint32_t base = kind & VM_OPND_BASE_MASK;
  if ((word0 & 0xFF) != VM_LOAD || (kind & VM_OPND_NULLABLE) != 0) return false;
  return base == VM_OPND_COL_I32 || base == VM_OPND_COL_I64 || base == VM_OPND_COL_F64 ||
         base == VM_OPND_COL_I32_R || base == VM_OPND_COL_I64_R;
}

namespace {

bool OutsideInt32(std::int64_t value) {
  return value < INT32_MIN || value > INT32_MAX;
}

}  // namespace

std::optional<ExpressionProgram::ColumnTest> ExpressionProgram::ColumnTestAt(
    std::size_t begin) const {
  if (code_.size() != begin + 2) return std::nullopt;
  const std::uint32_t load = code_[begin].s[0];
  const std::uint32_t compare = code_[begin + 1].s[0];
  const std::uint32_t column_kind = (load >> 8) & 0xFF;
  const std::uint32_t column_base = column_kind & VM_OPND_BASE_MASK;
  const std::uint32_t compare_op = compare & 0xFF;
  if ((load & 0xFF) != VM_LOAD ||
      (column_base != VM_OPND_COL_I32 && column_base != VM_OPND_COL_I64) || compare_op < VM_EQ_I ||
      compare_op > VM_GE_I || ((compare >> 8) & 0xFF) != VM_OPND_CONST)
    return std::nullopt;
  return ColumnTest{column_kind, load >> 16, compare_op - VM_EQ_I, code_[begin + 1].s[1]};
}

bool ExpressionProgram::ComparesInt32WithWideConstant(std::size_t begin) const {
  const std::optional<ColumnTest> test = ColumnTestAt(begin);
  return test && (test->column_kind & VM_OPND_BASE_MASK) == VM_OPND_COL_I32 &&
         OutsideInt32(constants_[test->constant]);
}

bool ExpressionProgram::FuseKeepComparison(std::size_t begin) {
  const std::optional<ColumnTest> test = ColumnTestAt(begin);
  if (!test || test->constant >= 1024) return false;
  const std::uint32_t arg = test->slot | test->comparison << 3 | test->constant << 6;
  code_.resize(begin);
  code_.push_back({{VM_KEEP_CMP | test->column_kind << 8 | arg << 16, 0}});
  return true;
}

bool ExpressionProgram::IsShortReal(std::size_t index) const {
  const VmEntry& e = entry(index);
  if (e.type != ValueType::kReal || e.track_nulls || e.end <= e.begin || e.end - e.begin > 3)
    return false;
  int column_leaves = 0;
  for (std::uint32_t pc = e.begin; pc < e.end; ++pc) {
    const std::uint32_t word0 = code_[pc].s[0];
    const std::uint32_t op = word0 & 0xFF;
    // A product then a sum or difference, straight-line in that kernel, may
    // be fused into one FMA by a device compiler (one rounding, not two),
    // where the interpreter rounds each: not the same bits.
    const std::uint32_t previous = pc > e.begin ? code_[pc - 1].s[0] & 0xFF : VM_LOAD;
    if (previous == VM_MUL_R && (op == VM_ADD_R || op == VM_SUB_R)) return false;
    const std::uint32_t kind = (word0 >> 8) & 0xFF;
    const std::uint32_t base = kind & VM_OPND_BASE_MASK;
    const bool first = pc == e.begin;
    const bool op_ok = first ? op == VM_LOAD
                             : op == VM_ADD_R || op == VM_SUB_R || op == VM_MUL_R || op == VM_DIV_R;
    const std::uint32_t allowed_flags = first ? 0u : std::uint32_t{VM_OPND_REVERSED};
    if (!op_ok || (kind & ~(VM_OPND_BASE_MASK | allowed_flags)) != 0) return false;
    if (base == VM_OPND_COL_I32_R) {
      const VmInputColumn& column = columns_[slots_[word0 >> 16].column];
      // The kernel holds two columns' values (vm_aggregate_short.cl: registers).
      if (column.type.type != DataType::kInt32 || column.nullable || ++column_leaves > 2)
        return false;
    } else if (base != VM_OPND_CONST) {
      return false;
    }
  }
  return true;
}

namespace {

// The values [lo, hi] a KEEP_CMP of `cmp` against c lets through; lo > hi
// when none.
IntRange KeptRange(std::uint32_t cmp, std::int64_t c) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  switch (cmp) {
    case VM_KEEP_CMP_EQ:
      return {c, c};
    case VM_KEEP_CMP_LT:
      return c == kMin ? IntRange{1, 0} : IntRange{kMin, c - 1};
    case VM_KEEP_CMP_LE:
      return {kMin, c};
    case VM_KEEP_CMP_GT:
      return c == kMax ? IntRange{1, 0} : IntRange{c + 1, kMax};
    default:  // VM_KEEP_CMP_GE
      return {c, kMax};
  }
}

// Whether `code` can raise VM_STATUS_OVERFLOW: integer arithmetic the range
// analysis could not prove safe (without NOCHECK or NARROW), or a 64-bit
// division by a column (INT64_MIN / -1).
bool CanRaise(const std::vector<cl_uint2>& code) {
  for (const cl_uint2& instruction : code) {
    const std::uint32_t op = instruction.s[0] & 0xFF;
    const std::uint32_t kind = (instruction.s[0] >> 8) & 0xFF;
    const bool proven = (kind & (VM_OPND_NOCHECK | VM_OPND_NARROW)) != 0;
    if ((op == VM_ADD_I || op == VM_SUB_I || op == VM_MUL_I || op == VM_NEG_I || op == VM_DIV_I) &&
        !proven)
      return true;
  }
  return false;
}

// The fraction of `column`'s rows a test keeping the values [kept.min,
// kept.max] lets through, taking the values as spread evenly between the
// column's statistics; 1 (unknown, after those known) without statistics.
double KeptFraction(const VmInputColumn& column, IntRange kept) {
  const std::optional<IntRange> stats = column.range ? column.range() : std::nullopt;
  if (!stats || stats->min > stats->max) return 1.0;
  const double width = static_cast<double>(stats->max) - static_cast<double>(stats->min) + 1;
  const double lo = static_cast<double>(std::max(stats->min, kept.min));
  const double hi = static_cast<double>(std::min(stats->max, kept.max));
  return hi < lo ? 0.0 : (hi - lo + 1) / width;
}

}  // namespace

std::optional<VmEntry::LeadingRange> ExpressionProgram::LeadingRangeOf(std::uint32_t begin,
                                                                       std::uint32_t end) const {
  if (begin + 1 >= end) return std::nullopt;
  const std::uint32_t word0 = code_[begin].s[0];
  const std::uint32_t kind = (word0 >> 8) & 0xFF;
  const std::uint32_t arg = word0 >> 16;
  const std::uint32_t cmp = (arg >> 3) & 7u;
  if ((word0 & 0xFF) != VM_KEEP_CMP || kind != VM_OPND_COL_I32 || cmp == VM_KEEP_CMP_NE)
    return std::nullopt;
  // The rest must start a conjunct afresh, as a program does.
  const std::uint32_t next = code_[begin + 1].s[0] & 0xFF;
  if (next != VM_LOAD && next != VM_KEEP_CMP && next != VM_STR_CMP && next != VM_TAKE_PASS)
    return std::nullopt;
  VmEntry::LeadingRange leading;
  leading.slot = arg & 7u;
  leading.kept = cmp == VM_KEEP_CMP_RANGE
                     ? IntRange{constants_[arg >> 6], constants_[(arg >> 6) + 1]}
                     : KeptRange(cmp, constants_[arg >> 6]);
  const VmInputColumn& column = columns_[slots_[leading.slot].column];
  if (column.type.type != DataType::kInt32 || column.nullable) return std::nullopt;
  leading.kept = {std::max<std::int64_t>(leading.kept.min, INT32_MIN),
                  std::min<std::int64_t>(leading.kept.max, INT32_MAX)};
  leading.selectivity = KeptFraction(column, leading.kept);
  return leading;
}

std::vector<cl_long> ExpressionProgram::IntConjunctsOf(std::uint32_t begin,
                                                       std::uint32_t end) const {
  const auto op_at = [&](std::uint32_t pc) { return code_[pc].s[0] & 0xFF; };
  const auto kind_at = [&](std::uint32_t pc) { return (code_[pc].s[0] >> 8) & 0xFF; };
  const auto arg_at = [&](std::uint32_t pc) { return code_[pc].s[0] >> 16; };
  // Operand kind COL_I32 exactly: no NULL map, no other flag.
  const auto int32_slot = [&](std::uint32_t pc, std::uint32_t slot) {
    if (kind_at(pc) != VM_OPND_COL_I32 || slot >= slots_.size()) return false;
    const VmInputColumn& column = columns_[slots_[slot].column];
    return column.type.type == DataType::kInt32 && !column.nullable;
  };
  const bool conjunction = end > begin && op_at(end - 1) == VM_TAKE_PASS;
  const std::uint32_t stop = conjunction ? end - 1 : end;
  std::vector<cl_long> out;
  const auto add = [&](std::uint32_t slot, std::uint32_t flags, IntRange kept,
                       std::optional<std::uint32_t> division) {
    // Every value tested is an int32 (a column's or a remainder), so the
    // bounds clamp to int32; an empty range stays empty (lo > hi).
    kept = {std::max<std::int64_t>(kept.min, INT32_MIN),
            std::min<std::int64_t>(kept.max, INT32_MAX)};
    if (kept.min > kept.max) kept = {1, 0};
    std::int64_t header = slot | flags << 8;
    std::int64_t magic = 0, divisor = 0;
    if (division) {
      const std::int64_t shift_mode = constants_[*division + 1];
      header |= (shift_mode & 0xFF) << 16 | ((shift_mode >> 8) & 0xFF) << 24;
      magic = constants_[*division];
      divisor = constants_[*division + 2];
    }
    out.insert(out.end(), {header, kept.min, kept.max, magic, divisor});
  };
  std::uint32_t pc = begin;
  while (pc < stop) {
    if (op_at(pc) == VM_KEEP_CMP) {
      const std::uint32_t arg = arg_at(pc);
      const std::uint32_t cmp = (arg >> 3) & 7u;
      if (!conjunction || code_[pc].s[1] != end - 1 || !int32_slot(pc, arg & 7u)) return {};
      const std::int64_t c = constants_[arg >> 6];
      if (cmp == VM_KEEP_CMP_RANGE)
        add(arg & 7u, 0, {c, constants_[(arg >> 6) + 1]}, std::nullopt);
      else if (cmp == VM_KEEP_CMP_NE)
        add(arg & 7u, VM_CONJUNCT_NEGATE, {c, c}, std::nullopt);
      else
        add(arg & 7u, 0, KeptRange(cmp, c), std::nullopt);
      pc += 1;
      continue;
    }
    // LOAD column [MOD_CONST_I, 32-bit] compare-with-constant [KEEP].
    if (op_at(pc) != VM_LOAD || !int32_slot(pc, arg_at(pc))) return {};
    const std::uint32_t slot = arg_at(pc);
    pc += 1;
    std::optional<std::uint32_t> division;
    if (pc < stop && op_at(pc) == VM_MOD_CONST_I) {
      if (kind_at(pc) != VM_OPND_NARROW) return {};
      division = code_[pc].s[1];
      pc += 1;
    }
    // Comparisons never carry REVERSED (the compiler mirrors `constant <
    // column` first, and the interpreter would ignore it): the constant as
    // the plain right operand only.
    if (pc >= stop || op_at(pc) < VM_EQ_I || op_at(pc) > VM_GE_I || kind_at(pc) != VM_OPND_CONST)
      return {};
    const std::uint32_t cmp = op_at(pc) - VM_EQ_I;  // VM_KEEP_CMP_EQ..GE, in the same order
    const std::int64_t c = constants_[code_[pc].s[1]];
    pc += 1;
    if (conjunction) {
      if (pc >= stop || op_at(pc) != VM_KEEP || code_[pc].s[1] != end - 1) return {};
      pc += 1;
    } else if (pc != stop) {
      return {};
    }
    const std::uint32_t flags = division ? std::uint32_t{VM_CONJUNCT_MOD} : 0u;
    if (cmp == VM_KEEP_CMP_NE)
      add(slot, flags | VM_CONJUNCT_NEGATE, {c, c}, division);
    else
      add(slot, flags, KeptRange(cmp, c), division);
  }
  return out;
}

std::vector<std::vector<cl_uint2>> ExpressionProgram::OrderConjuncts(
    std::vector<std::vector<cl_uint2>> conjuncts) {
  // Overflow is raised only by rows still live, as the CPU reference applies
  // conjuncts in query order: a test moved ahead of a conjunct that can
  // raise would keep rows from it and hide the error. Then nothing moves.
  for (const std::vector<cl_uint2>& code : conjuncts)
    if (CanRaise(code)) return conjuncts;
  // Range tests (KEEP_CMP with =, <, <=, >, >=) on the same column become one
  // test of [lo, hi]: one load instead of one per bound.
  struct RangeTest {
    std::size_t first = 0;  // index of the column's first range conjunct
    std::size_t count = 0;
    IntRange kept{std::numeric_limits<std::int64_t>::min(),
                  std::numeric_limits<std::int64_t>::max()};
  };
  std::vector<std::optional<RangeTest>> by_slot(VM_MAX_SLOTS);
  std::vector<bool> is_range(conjuncts.size(), false);
  for (std::size_t i = 0; i < conjuncts.size(); ++i) {
    if (conjuncts[i].size() != 1) continue;
    const std::uint32_t word0 = conjuncts[i][0].s[0];
    const std::uint32_t arg = word0 >> 16;
    const std::uint32_t cmp = (arg >> 3) & 7u;
    if ((word0 & 0xFF) != VM_KEEP_CMP || cmp == VM_KEEP_CMP_RANGE) continue;
    const std::int64_t constant = constants_[arg >> 6];
    // An INT32 column differs from a constant past int32 in every non-NULL
    // row: that NE is the range of every value (clamped below).
    const bool int32_column = columns_[slots_[arg & 7u].column].type.type == DataType::kInt32;
    const bool ne_always = cmp == VM_KEEP_CMP_NE && int32_column && OutsideInt32(constant);
    if (cmp == VM_KEEP_CMP_NE && !ne_always) continue;
    is_range[i] = true;
    std::optional<RangeTest>& test = by_slot[arg & 7u];
    if (!test) test = RangeTest{i};
    const IntRange kept = ne_always ? IntRange{std::numeric_limits<std::int64_t>::min(),
                                               std::numeric_limits<std::int64_t>::max()}
                                    : KeptRange(cmp, constant);
    test->kept = {std::max(test->kept.min, kept.min), std::min(test->kept.max, kept.max)};
    test->count += 1;
  }
  // Range tests first, the most selective first by the column statistics
  // (no conjunct can raise, so the order changes no answer; rows they reject
  // skip the other conjuncts' loads), then the rest in query order.
  struct Placed {
    double selectivity = 1.0;
    std::vector<cl_uint2> code;
  };
  std::vector<Placed> ranges;
  for (std::uint32_t slot = 0; slot < VM_MAX_SLOTS; ++slot) {
    if (!by_slot[slot]) continue;
    RangeTest& test = *by_slot[slot];
    const VmInputColumn& column = columns_[slots_[slot].column];
    if (column.type.type == DataType::kInt32) {
      // Int32 columns compare in 32 bits on the narrow machine: the bounds
      // are clamped to the type, which changes no answer.
      test.kept = {std::max<std::int64_t>(test.kept.min, INT32_MIN),
                   std::min<std::int64_t>(test.kept.max, INT32_MAX)};
    }
    if (test.kept.min > test.kept.max) test.kept = {1, 0};
    Placed placed;
    placed.selectivity = KeptFraction(column, test.kept);
    // A lone test of an INT32 column against a constant past int32 becomes
    // a range test too, so that its clamped bounds keep it on the narrow
    // machine.
    const std::int64_t lone_constant = constants_[(conjuncts[test.first][0].s[0] >> 16) >> 6];
    const bool clamp_lone = column.type.type == DataType::kInt32 && OutsideInt32(lone_constant);
    // The bounds are two adjacent constants: an equal pair already there
    // (another entry's test of the same range) is shared.
    std::size_t first_constant = constants_.size();
    for (std::size_t i = 0; i + 1 < constants_.size(); ++i) {
      if (constants_[i] == test.kept.min && constants_[i + 1] == test.kept.max) {
        first_constant = i;
        break;
      }
    }
    if ((test.count == 1 && !clamp_lone) || first_constant + 1 >= 1024) {
      // Kept as it is (a merged test needs two constants below index 1024).
      for (std::size_t i = test.first; i < conjuncts.size(); ++i) {
        if (!is_range[i] || ((conjuncts[i][0].s[0] >> 16) & 7u) != slot) continue;
        ranges.push_back({placed.selectivity, conjuncts[i]});
      }
      continue;
    }
    if (first_constant == constants_.size()) {
      constants_.push_back(test.kept.min);
      constants_.push_back(test.kept.max);
    }
    const std::uint32_t word0 = conjuncts[test.first][0].s[0];
    const std::uint32_t arg =
        slot | VM_KEEP_CMP_RANGE << 3 | static_cast<std::uint32_t>(first_constant) << 6;
    placed.code = {{{(word0 & 0xFFFFu) | arg << 16, 0}}};
    ranges.push_back(std::move(placed));
  }
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const Placed& a, const Placed& b) { return a.selectivity < b.selectivity; });
  std::vector<std::vector<cl_uint2>> ordered;
  for (Placed& placed : ranges)
    ordered.push_back(std::move(placed.code));
  for (std::size_t i = 0; i < conjuncts.size(); ++i)
    if (!is_range[i]) ordered.push_back(std::move(conjuncts[i]));
  return ordered;
}

bool ExpressionProgram::UsesRareOperations(std::size_t index) const {
  const VmEntry& e = entry(index);
  for (std::uint32_t pc = e.begin; pc < e.end; ++pc) {
    const std::uint32_t word0 = code_[pc].s[0];
    const std::uint32_t op = word0 & 0xFF;
    const std::uint32_t kind = (word0 >> 8) & 0xFF;
    switch (op) {
      case VM_DIV_I:
      case VM_MOD_I:
      case VM_MOD_R:
      case VM_IN_I:
      case VM_IN_R:
      case VM_STR_CMP:
        return true;
      case VM_ADD_I:
      case VM_SUB_I:
      case VM_MUL_I:
      case VM_NEG_I:
        if ((kind & VM_OPND_NOCHECK) == 0) return true;  // checked (NARROW implies NOCHECK)
        break;
      default:
        break;
    }
  }
  return false;
}

bool ExpressionProgram::IsNarrow(std::size_t index) const {
  const VmEntry& e = entry(index);
  if (e.type != ValueType::kInteger) return false;
  for (std::uint32_t pc = e.begin; pc < e.end; ++pc) {
    const std::uint32_t word0 = code_[pc].s[0];
    const std::uint32_t op = word0 & 0xFF;
    const std::uint32_t kind = (word0 >> 8) & 0xFF;
    switch (op) {
      case VM_IN_I:     // compares in 64 bits; its kind is not an operand
      case VM_STR_CMP:  // reads a CHAR column; its kind is the slot
        continue;
      case VM_ADD_I:
      case VM_SUB_I:
      case VM_MUL_I:
      case VM_NEG_I:
      case VM_DIV_I:
      case VM_MOD_I:
      case VM_DIV_CONST_I:
      case VM_MOD_CONST_I:
        if ((kind & VM_OPND_NARROW) == 0) return false;
        break;
      case VM_LOAD:
      case VM_PUSH:
      case VM_EQ_I:
      case VM_NE_I:
      case VM_LT_I:
      case VM_LE_I:
      case VM_GT_I:
      case VM_GE_I:
      case VM_TRUTH_I:
      case VM_NOT:
      case VM_AND:
      case VM_OR:
      case VM_IS_NULL:
      case VM_IS_NOT_NULL:
      case VM_KEEP:
      case VM_TAKE_PASS:
        break;
      case VM_KEEP_CMP: {
        const std::uint32_t arg = code_[pc].s[0] >> 16;
        const std::int64_t c = constants_[arg >> 6];
        if (OutsideInt32(c)) return false;
        if (((arg >> 3) & 7u) == VM_KEEP_CMP_RANGE) {
          const std::int64_t hi = constants_[(arg >> 6) + 1];
          if (OutsideInt32(hi)) return false;
        }
        break;  // its column kind is checked below
      }
      default:  // REAL arithmetic and comparisons, conversions
        return false;
    }
    switch (kind & VM_OPND_BASE_MASK) {
      case VM_OPND_NONE:
      case VM_OPND_NULL:
      case VM_OPND_POP:
      case VM_OPND_COL_I32:
        break;
      case VM_OPND_CONST: {
        const std::int64_t c = constants_[code_[pc].s[1]];
        if (OutsideInt32(c)) return false;
        break;
      }
      default:  // INT64 and DOUBLE columns, integer columns read as REAL
        return false;
    }
  }
  return true;
}

namespace {

// The shortest text that reads back as `bits` taken as a double, with a
// decimal point (3.0, not 3).
std::string RealText(std::int64_t bits) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::bit_cast<double>(bits));
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".ein") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string ExpressionProgram::Disassemble(
    const std::function<std::string(std::size_t column)>& column_name) const {
  std::string text;
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    text += "entry " + std::to_string(e) + ": [" + std::to_string(entries_[e].begin) + ", " +
            std::to_string(entries_[e].end) + ")\n";
  }
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    const std::string column =
        column_name ? column_name(slots_[s].column) : "column " + std::to_string(slots_[s].column);
    text += "slot " + std::to_string(s) + ": " + column + " " + slots_[s].type.ToString() +
            (slots_[s].nullable ? " nullable" : "") + "\n";
  }
  for (std::size_t pc = 0; pc < code_.size(); ++pc) {
    const std::uint32_t word0 = code_[pc].s[0];
    const std::uint32_t op = word0 & 0xFF;
    const std::uint32_t kind = (word0 >> 8) & 0xFF;
    const std::uint32_t arg = word0 >> 16;
    text += std::to_string(pc) + ": " + OpcodeName(op);
    if (op == VM_STR_CMP) {
      text += " slot " + std::to_string(kind) + " width " + std::to_string(arg);
    } else if (op == VM_KEEP_CMP) {
      static const char* const kCompare[] = {"=", "<>", "<", "<=", ">", ">="};
      const std::uint32_t cmp = (arg >> 3) & 7;
      text += " slot " + std::to_string(arg & 7) +
              (cmp == VM_KEEP_CMP_RANGE ? " in [" + std::to_string(constants_[arg >> 6]) + ", " +
                                              std::to_string(constants_[(arg >> 6) + 1]) + "]"
                                        : std::string(" ") + kCompare[cmp] + " const " +
                                              std::to_string(constants_[arg >> 6])) +
              " else to " + std::to_string(code_[pc].s[1]) +
              ((kind & VM_OPND_NULLABLE) ? " nullable" : "");
    } else if (op == VM_IN_I || op == VM_IN_R) {
      text += " " + std::to_string(arg) + " constants" + (kind ? " +NULL" : "");
    } else {
      switch (kind & VM_OPND_BASE_MASK) {
        case VM_OPND_CONST: {
          // REAL operations read the constant's bits as a double.
          const std::string_view name = OpcodeName(op);
          const std::int64_t bits = constants_[code_[pc].s[1]];
          text += " const " + (name.ends_with("_R") ? RealText(bits) : std::to_string(bits));
          // LOAD and PUSH do not say their domain. A REAL constant's bits
          // are an integer of at least 2^52 in magnitude, seldom written as
          // one: then the REAL reading is shown too.
          const double real = std::bit_cast<double>(bits);
          if ((op == VM_LOAD || op == VM_PUSH) &&
              (bits >= (std::int64_t{1} << 52) || bits <= -(std::int64_t{1} << 52)) &&
              std::isfinite(real))
            text += " (" + RealText(bits) + " as REAL)";
          break;
        }
        case VM_OPND_NULL:
          text += " NULL";
          break;
        case VM_OPND_POP:
          text += " pop";
          break;
        case VM_OPND_NONE:
          break;
        default:
          text += " slot " + std::to_string(arg);
          break;
      }
      if (kind & VM_OPND_REVERSED) text += " reversed";
      if (kind & VM_OPND_NOCHECK) text += " nocheck";
      if (kind & VM_OPND_NARROW) text += " narrow";
    }
    text += "\n";
  }
  return text;
}

}  // namespace clq
