// Helpers shared by the files of ExpressionProgram: the compiler
// (expression_compile.cpp, expression_compile_predicates.cpp) and the
// analysis passes over its code (expression_analysis.cpp). Internal to
// operators/: callers include operators/expression_program.hpp.
#pragma once

#include <cstdint>

#include "operators/expression_program.hpp"
#include "operators/value_range.hpp"
#include "sql/bound.hpp"

namespace clq::expression_internal {

inline bool IsComparison(sql::BinaryOp op) {
  using sql::BinaryOp;
  return op == BinaryOp::kEqual || op == BinaryOp::kNotEqual || op == BinaryOp::kLess ||
         op == BinaryOp::kLessEqual || op == BinaryOp::kGreater || op == BinaryOp::kGreaterEqual;
}

inline bool IsArithmetic(sql::BinaryOp op) {
  using sql::BinaryOp;
  return op == BinaryOp::kAdd || op == BinaryOp::kSubtract || op == BinaryOp::kMultiply ||
         op == BinaryOp::kDivide || op == BinaryOp::kModulo;
}

inline bool OutsideInt32(std::int64_t value) {
  return value < INT32_MIN || value > INT32_MAX;
}

// The values [lo, hi] a KEEP_CMP of `cmp` against c lets through; lo > hi
// when none.
IntRange KeptRange(std::uint32_t cmp, std::int64_t c);

// The fraction of `column`'s rows a test keeping the values [kept.min,
// kept.max] lets through, taking the values as spread evenly between the
// column's statistics; 1 (unknown, after those known) without statistics.
double KeptFraction(const VmInputColumn& column, IntRange kept);

// Index of a comparison in the =, <>, <, <=, >, >= order of the opcodes.
inline std::uint32_t ComparisonIndex(sql::BinaryOp op) {
  switch (op) {
    case sql::BinaryOp::kEqual:
      return 0;
    case sql::BinaryOp::kNotEqual:
      return 1;
    case sql::BinaryOp::kLess:
      return 2;
    case sql::BinaryOp::kLessEqual:
      return 3;
    case sql::BinaryOp::kGreater:
      return 4;
    default:
      return 5;
  }
}

}  // namespace clq::expression_internal
