// Arithmetic of the CPU reference over ValueVectors of equal length.
//
// INTEGER is int64 and REAL double. + - * / % on two INTEGERs stay INTEGER;
// an overflow (including INT64_MIN / -1) throws
// InvalidInputError("integer overflow"), where SQLite would switch to REAL.
// Integer division truncates toward zero and % takes the dividend's sign
// (INT64_MIN % -1 is 0). With a REAL operand the INTEGER one is converted to
// double; REAL % REAL casts both operands to INTEGER (as CAST does), takes the
// integer remainder and returns it as REAL. Division or modulo by zero is
// NULL, and so is a REAL result that is NaN (SQLite's rule). A NULL operand
// gives NULL. TEXT operands are an InvalidInputError.
#pragma once

#include <cstdint>

#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

// REQUIRES: op is kAdd, kSubtract, kMultiply, kDivide or kModulo; equal sizes.
ValueVector Arithmetic(sql::BinaryOp op, const ValueVector& left, const ValueVector& right);

// Unary minus; -INT64_MIN is an overflow.
ValueVector Negate(const ValueVector& value);

// EXTRACT `op` (UnaryOp::kExtractYear, kExtractMonth, kExtractDay) of
// INTEGER days; NULL stays NULL.
ValueVector Extract(sql::UnaryOp op, const ValueVector& days);

// CAST to INTEGER (REAL truncates toward zero, saturating at the int64
// limits, NaN -> 0) or to REAL.
ValueVector Cast(const ValueVector& value, sql::ValueType target);

// CAST(REAL AS INTEGER) of one value.
std::int64_t RealToInteger(double value);

}  // namespace clq::cpu_reference
