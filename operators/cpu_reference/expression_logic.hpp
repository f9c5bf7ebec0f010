// Comparisons and three-valued logic of the CPU reference over ValueVectors.
//
// Comparisons yield INTEGER 0/1, or NULL when either side is NULL. INTEGER
// against REAL compares as doubles; TEXT compares bytewise (memcmp, then the
// shorter string first); TEXT against a number is an InvalidInputError (the
// binder rejects it). AND, OR and NOT use three-valued logic over truthiness
// (a non-zero number is true). BETWEEN is (v >= low AND v <= high). IN is
// true when any item equals the value, else NULL when the value or any item
// is NULL, else false; NOT IN and NOT BETWEEN negate (NULL stays NULL).
// IS [NOT] NULL is never NULL.
#pragma once

#include <span>

#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

// REQUIRES: op is one of kEqual .. kGreaterEqual; equal sizes.
ValueVector Compare(sql::BinaryOp op, const ValueVector& left, const ValueVector& right);

// REQUIRES: op is kAnd or kOr; equal sizes.
ValueVector Logic(sql::BinaryOp op, const ValueVector& left, const ValueVector& right);

ValueVector Not(const ValueVector& value);

// is_null: IS NULL, else IS NOT NULL.
ValueVector NullTest(const ValueVector& value, bool is_null);

ValueVector Between(const ValueVector& value, const ValueVector& low, const ValueVector& high,
                    bool negated);

ValueVector InList(const ValueVector& value, std::span<const ValueVector> items, bool negated);

}  // namespace clq::cpu_reference
