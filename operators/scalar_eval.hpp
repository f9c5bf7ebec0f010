// Host evaluation of one bound expression on one row of Values, with SQLite's
// semantics (see sql/bound.hpp): used for the few values computed after
// device work, such as outputs over aggregates of an ungrouped query
// (SELECT SUM(a) / COUNT(*) ...) and constant folding.
//
// Leaves (column, group, aggregate and output references) are resolved by the
// caller's callback. Integer overflow throws InvalidInputError("integer
// overflow"), as on devices.
#pragma once

#include <functional>

#include "sql/bound.hpp"

namespace clq {

using LeafResolver = std::function<sql::Value(const sql::Expr& leaf)>;

sql::Value EvaluateScalar(const sql::Expr& expr, const LeafResolver& resolve);

// SQL truth of a value: true when non-NULL and non-zero.
bool IsTrue(const sql::Value& value);

}  // namespace clq
