// ExpressionProgram's compiler, predicates: comparisons (text, and INTEGER
// with REAL exactly), AND/OR, BETWEEN, IN, and a WHERE's conjuncts: fusing a
// column test into one KEEP_CMP, merging range tests and ordering them.
#include "operators/expression_program.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/expression_program_internal.hpp"
#include "operators/int_real_compare.hpp"

namespace clq {
namespace {

using expression_internal::ComparisonIndex;
using expression_internal::IsComparison;
using expression_internal::KeptFraction;
using expression_internal::KeptRange;
using expression_internal::OutsideInt32;
using sql::BinaryOp;
using sql::Expr;
using sql::ValueType;

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

// SQLite's BINARY collation: bytewise, a prefix before the longer string.
bool TextComparisonHolds(const std::string& a, const std::string& b, BinaryOp op) {
  const int c = a.compare(b);
  switch (op) {
    case BinaryOp::kEqual:
      return c == 0;
    case BinaryOp::kNotEqual:
      return c != 0;
    case BinaryOp::kLess:
      return c < 0;
    case BinaryOp::kLessEqual:
      return c <= 0;
    case BinaryOp::kGreater:
      return c > 0;
    default:
      return c >= 0;
  }
}

}  // namespace

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
    const bool left_literal = left.kind == Expr::Kind::kConstant;
    const bool right_literal = right.kind == Expr::Kind::kConstant;
    if (left.kind == Expr::Kind::kCase && right_literal) {
      Compile(CaseComparedWith(left, right, e.binary_op), Domain::kInteger);
      return;
    }
    if (right.kind == Expr::Kind::kCase && left_literal) {
      Compile(CaseComparedWith(right, left, sql::MirroredComparison(e.binary_op)),
              Domain::kInteger);
      return;
    }
    if (left_literal && right_literal) {
      Emit(VM_LOAD,
           {VM_OPND_CONST, 0,
            Constant(TextComparisonHolds(left.constant.text, right.constant.text, e.binary_op))});
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
      const Expr exact = ExactIntegerRealComparison(op, integer, real, e.position,
                                                    MayBeNull(integer) || MayBeNull(real));
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

Expr ExpressionProgram::CaseComparedWith(const Expr& case_expr, const Expr& literal,
                                         BinaryOp op) const {
  Expr out = case_expr;
  out.type = ValueType::kInteger;
  for (std::size_t i = 1; i <= out.children.size(); i += 2) {
    Expr& branch = out.children[i < out.children.size() ? i : out.children.size() - 1];
    if (branch.type == ValueType::kNull) continue;  // NULL compared is NULL
    branch = sql::MakeBoolean(op, std::move(branch), literal, branch.position);
  }
  return out;
}

void ExpressionProgram::CompileLike(const Expr& e) {
  const Expr& column = e.children.at(0);
  if (column.kind != Expr::Kind::kColumnRef)
    throw DeviceLimitError("LIKE is supported on devices only on a CHAR column");
  const std::size_t index = mapper_(column.source, column.index);
  std::uint32_t slot = Slot(index);
  if (columns_[index].nullable) slot |= VM_OPND_NULLABLE;  // NULL where the column is
  const std::string& text = e.constant.text;
  const std::uint32_t descriptor = static_cast<std::uint32_t>(constants_.size());
  // The position after the pattern's last '%' (0: none): from there the
  // pattern is the value's suffix, which the matcher tests at the value's
  // end instead of backtracking through every position.
  const std::size_t last_star = text.rfind('%');
  const std::int64_t suffix_from =
      last_star == std::string::npos ? 0 : static_cast<std::int64_t>(last_star + 1);
  constants_.push_back(static_cast<std::int64_t>(text.size()) |
                       (static_cast<std::int64_t>(e.negated ? 1 : 0) << 32) | (suffix_from << 40));
  for (std::size_t i = 0; i < text.size(); i += 8) {
    std::int64_t packed = 0;
    std::memcpy(&packed, text.data() + i, std::min<std::size_t>(8, text.size() - i));
    constants_.push_back(packed);
  }
  Emit(VM_STR_LIKE, {slot, columns_[index].type.width, descriptor});
}

void ExpressionProgram::CompileTextComparison(const Expr& column, const Expr& literal, int cmp,
                                              std::size_t /*position*/) {
  const std::size_t index = mapper_(column.source, column.index);
  std::uint32_t slot = Slot(index);
  if (columns_[index].nullable) slot |= VM_OPND_NULLABLE;  // NULL where the column is
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

}  // namespace clq
