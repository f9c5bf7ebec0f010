// ExpressionProgram's analysis: the range analysis that flags integer
// arithmetic (VM_OPND_NOCHECK, VM_OPND_NARROW), and the passes over compiled
// code that pick the machine (IsNarrow, UsesRareOperations) or a kernel
// without the interpreter (IsBareColumn, IsShortReal, LeadingRangeOf,
// IntConjunctsOf).
#include "operators/expression_program.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "kernels_cl/vm_shared.h"
#include "operators/expression_program_internal.hpp"
#include "operators/value_range.hpp"

namespace clq {
namespace expression_internal {

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

double KeptFraction(const VmInputColumn& column, IntRange kept) {
  const std::optional<IntRange> stats = column.range ? column.range() : std::nullopt;
  if (!stats || stats->min > stats->max) return 1.0;
  const double width = static_cast<double>(stats->max) - static_cast<double>(stats->min) + 1;
  const double lo = static_cast<double>(std::max(stats->min, kept.min));
  const double hi = static_cast<double>(std::min(stats->max, kept.max));
  return hi < lo ? 0.0 : (hi - lo + 1) / width;
}

}  // namespace expression_internal

namespace {

using expression_internal::KeptFraction;
using expression_internal::KeptRange;
using expression_internal::OutsideInt32;
using sql::Expr;
using sql::ValueType;

}  // namespace

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
  if (next != VM_LOAD && next != VM_KEEP_CMP && next != VM_STR_CMP && next != VM_STR_LIKE &&
      next != VM_CASE_BEGIN && next != VM_TAKE_PASS)
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
      case VM_STR_LIKE:
      case VM_NAN_NULL:
        return true;
      case VM_ADD_I:
      case VM_SUB_I:
      case VM_MUL_I:
      case VM_NEG_I:
        if ((kind & VM_OPND_NOCHECK) == 0) return true;  // checked (NARROW implies NOCHECK)
        break;
      case VM_EXTRACT:  // rare on both machines: the lean kernels stay smaller
        return true;
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
      case VM_STR_LIKE:
        continue;
      case VM_ADD_I:
      case VM_SUB_I:
      case VM_MUL_I:
      case VM_NEG_I:
      case VM_DIV_I:
      case VM_MOD_I:
      case VM_DIV_CONST_I:
      case VM_MOD_CONST_I:
      case VM_EXTRACT:
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
      case VM_CASE_BEGIN:
      case VM_CASE_WHEN:
      case VM_CASE_THEN:
      case VM_CASE_END:
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

}  // namespace clq
