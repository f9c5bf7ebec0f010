// Random queries over the fuzz tables (fuzz_tables.hpp), in every shape of
// clq's SQL subset: filters with AND/OR/NOT/IN/BETWEEN/IS NULL and
// comparisons, INTEGER and REAL arithmetic with overflow-prone constants,
// CAST, CASE (searched and simple, nested, with and without ELSE), LIKE
// patterns on CHAR columns, aggregates, GROUP BY with HAVING, DISTINCT, ORDER BY (positions and
// expressions) with LIMIT/OFFSET, joins of two or three tables (equalities,
// shifted keys, now and then a cross product).
//
// It stays where clq and SQLite mean the same thing, so that a difference is
// a finding: a SUM or AVG argument is exact in double whatever the order of
// addition (no REAL division, no extreme REALs), a LIMIT comes with an
// ORDER BY over every output (ties cannot change the rows kept), GROUP BY
// and ORDER BY never use a bare integer constant (SQLite reads it as a
// position), TEXT is only compared with TEXT, a CASE that mixes INTEGER and
// REAL branches casts its INTEGER ones to REAL (SQLite would keep each row's
// branch type, and integer division or overflow of it differ), and joins of large tables go
// through the unique `id` column so that results stay small.
#pragma once

#include <cstdint>
#include <vector>

#include "tests/cpu_reference/random_query.hpp"
#include "tests/fuzz_query/fuzz_tables.hpp"
#include "tests/fuzz_query/query_ast.hpp"

namespace clq::fuzz_query {

class QueryGenerator {
 public:
  QueryGenerator(std::vector<TableShape> tables, std::uint64_t seed)
      : tables_(std::move(tables)), random_(seed) {}

  Query Next();

 private:
  enum class Type : std::uint8_t { kInteger, kReal, kText };
  struct Gen {
    Expr expr;
    Type type = Type::kInteger;
    bool exact = true;  // a sum of its values is the same in any order
  };

  void GenerateFrom();
  Expr JoinCondition(std::size_t left, std::size_t right);
  void GenerateAggregated();
  void GenerateOrderBy();

  Gen Column(std::size_t source, const char* name);
  Gen NumericColumn();
  Gen IntegerConstant();
  Gen RealConstant();
  Gen NumericLeaf();
  Gen Numeric(int depth);
  Gen TextOperand();
  Gen NumericCase(int depth);
  Expr LikePredicate();
  Expr Predicate(int depth);
  Gen NewAggregate();
  Gen GroupKey();

  std::size_t AnySource();

  std::vector<TableShape> tables_;
  cpu_reference_test::RandomSource random_;
  Query query_;
  std::vector<std::string> aliases_;
  std::vector<Gen> group_keys_;
  bool aggregate_scope_ = false;
};

}  // namespace clq::fuzz_query
