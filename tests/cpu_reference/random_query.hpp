// Random queries for the SQLite differential test: each is a BoundSelect
// built by hand together with the equivalent SQL text, from the same random
// choices.
//
// The generator stays inside the semantics that clq and SQLite share: small
// values and a bound on every integer expression (so no integer overflow,
// where SQLite would switch to REAL), REAL values on a binary grid and no
// REAL division inside SUM/AVG (so sums are exact in any order), TEXT only
// compared with TEXT, no MEDIAN/QUANTILE, no constant GROUP BY / ORDER BY
// terms (SQLite reads those as column numbers), and ORDER BY covering every
// visible output when there is a LIMIT (so ties cannot change which rows are
// kept).
//
// Tables: every table has the columns of kColumns; the generator reads the
// tables it is given by position.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "tests/cpu_reference/bound_builders.hpp"

namespace clq::cpu_reference_test {

struct RandomColumn {
  const char* name;
  ColumnType type;
  double bound;   // largest |value|
  int grid_bits;  // REAL values are multiples of 2^-grid_bits
};

// k: join/group key; a, b: small integers; d: quarters; e: halves; s, t: text.
inline const std::vector<RandomColumn> kColumns = {
    {"k", ColumnType::Int32(), 12, 0}, {"a", ColumnType::Int32(), 20, 0},
    {"b", ColumnType::Int64(), 50, 0}, {"d", ColumnType::Double(), 10, 2},
    {"e", ColumnType::Double(), 6, 1}, {"s", ColumnType::Char(3), 0, 0},
    {"t", ColumnType::Char(8), 0, 0},
};
inline const std::vector<std::string> kShortTexts = {"", "a", "b", "ab", "ba", "abc", "B", "z"};
inline const std::vector<std::string> kLongTexts = {"apple", "pear", "fig",  "Fig",
                                                    "kiwi",  "plum", "date", "grape"};

class RandomSource {
 public:
  explicit RandomSource(std::uint64_t seed) : engine_(seed) {}
  std::int64_t Int(std::int64_t low, std::int64_t high) {
    return low + static_cast<std::int64_t>(engine_() % static_cast<std::uint64_t>(high - low + 1));
  }
  bool Chance(double p) { return static_cast<double>(engine_() >> 11) * 0x1.0p-53 < p; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<std::size_t>(Int(0, static_cast<std::int64_t>(items.size()) - 1))];
  }

 private:
  std::mt19937_64 engine_;
};

// A table with the kColumns schema and random values in their ranges.
inline TablePtr MakeRandomTable(const std::string& name, RowCount rows, RandomSource& random) {
  std::vector<TestColumn> columns = {
      Int32Column("k", {}),  Int32Column("a", {}),   Int64Column("b", {}),  DoubleColumn("d", {}),
      DoubleColumn("e", {}), CharColumn("s", 3, {}), CharColumn("t", 8, {})};
  for (RowCount r = 0; r < rows; ++r) {
    columns[0].integers.push_back(random.Int(0, 12));
    columns[1].integers.push_back(random.Int(-20, 20));
    columns[2].integers.push_back(random.Int(-50, 50));
    columns[3].reals.push_back(static_cast<double>(random.Int(-40, 40)) / 4);
    columns[4].reals.push_back(static_cast<double>(random.Int(-12, 12)) / 2);
    columns[5].texts.push_back(random.Pick(kShortTexts));
    columns[6].texts.push_back(random.Pick(kLongTexts));
  }
  return MakeTable(name, columns);
}

struct GeneratedQuery {
  sql::BoundSelect select;
  std::string sql;
  bool ordered = false;  // ORDER BY fixes the order of the visible outputs
  bool joined = false;
};

class QueryGenerator {
 public:
  // Most rows a FROM clause of the generated queries can produce (loosely).
  static constexpr double kMaxRows = 1e5;
  // Largest |value| an integer expression may reach.
  static constexpr double kMaxBound = 1e12;

  QueryGenerator(std::vector<TablePtr> tables, std::uint64_t seed)
      : tables_(std::move(tables)), random_(seed) {}

  GeneratedQuery Next() {
    select_ = sql::BoundSelect();
    group_keys_.clear();
    aggregated_scope_ = false;
    GeneratedQuery query;
    std::string from_sql, where_sql;
    GenerateFrom(from_sql, where_sql);
    query.joined = select_.from.size() > 1;
    const bool aggregated = random_.Chance(0.45);
    std::vector<std::string> outputs_sql;
    std::string group_sql, having_sql;
    if (aggregated) {
      GenerateAggregated(outputs_sql, group_sql, having_sql);
    } else {
      GenerateProjection(outputs_sql);
    }
    select_.visible_outputs = select_.outputs.size();
    select_.distinct = random_.Chance(0.15);
    std::string order_sql, limit_sql;
    query.ordered = GenerateOrderBy(order_sql, limit_sql);

    std::string text = select_.distinct ? "SELECT DISTINCT " : "SELECT ";
    for (std::size_t i = 0; i < outputs_sql.size(); ++i)
      text += (i > 0 ? ", " : "") + outputs_sql[i] + " AS c" + std::to_string(i);
    text += " FROM " + from_sql + where_sql + group_sql + having_sql + order_sql + limit_sql;
    query.sql = std::move(text);
    query.select = std::move(select_);
    return query;
  }

 private:
  struct Gen {
    Expr expr;
    std::string sql;
    double bound = 0;   // |value| <= bound for numbers
    int grid_bits = 0;  // exact REAL values are multiples of 2^-grid_bits
    bool exact = true;  // no REAL division inside: sums are order-independent
  };

  // --- FROM and WHERE ------------------------------------------------------------

  void GenerateFrom(std::string& from_sql, std::string& where_sql) {
    const std::int64_t roll = random_.Int(0, 99);
    const std::size_t count = roll < 55 ? 1 : (roll < 90 ? 2 : 3);
    std::vector<std::size_t> chosen;
    for (std::size_t i = 0; i < count; ++i) {
      // Table 3 (empty) now and then; three-way joins include the small table 2.
      std::size_t t = static_cast<std::size_t>(random_.Int(0, 2));
      if (random_.Chance(0.04)) t = 3;
      if (count == 3 && i == 2 && std::find(chosen.begin(), chosen.end(), 2) == chosen.end()) t = 2;
      chosen.push_back(t);
    }
    std::vector<Gen> conditions;
    for (std::size_t i = 0; i < count; ++i) {
      const std::string alias = "a" + std::to_string(i);
      select_.from.push_back({tables_[chosen[i]], alias});
      from_sql += (i > 0 ? ", " : "") + tables_[chosen[i]]->name() + " AS " + alias;
      if (i == 0) continue;
      const double product = static_cast<double>(tables_[chosen[i]]->rows()) *
                             static_cast<double>(tables_[chosen[i - 1]]->rows());
      if (count == 2 && product <= 20000 && random_.Chance(0.2)) continue;  // cross product
      conditions.push_back(JoinCondition(
          static_cast<std::size_t>(random_.Int(0, static_cast<std::int64_t>(i) - 1)), i));
    }
    if (random_.Chance(0.7)) conditions.push_back(Predicate(2));
    if (conditions.empty()) return;
    Gen where = conditions[0];
    for (std::size_t i = 1; i < conditions.size(); ++i)
      where = Combine(BinaryOp::kAnd, where, conditions[i]);
    select_.where = where.expr;
    where_sql = " WHERE " + where.sql;
  }

  Gen JoinCondition(std::size_t left, std::size_t right) {
    const std::int64_t roll = random_.Int(0, 99);
    if (roll < 65) return Combine(BinaryOp::kEqual, Column(left, 0), Column(right, 0));
    if (roll < 80) return Combine(BinaryOp::kEqual, Column(left, 5), Column(right, 5));
    // (a_left.a + c) = a_right.k, or the other way round.
    Gen shifted = Combine(BinaryOp::kAdd, Column(left, 1), IntConstant(random_.Int(0, 8)));
    if (random_.Chance(0.5)) return Combine(BinaryOp::kEqual, shifted, Column(right, 0));
    return Combine(BinaryOp::kEqual, Column(right, 0), shifted);
  }

  // --- SELECT lists ---------------------------------------------------------------

  void GenerateProjection(std::vector<std::string>& outputs_sql) {
    const std::int64_t count = random_.Int(1, 4);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t roll = random_.Int(0, 99);
      Gen g = roll < 55 ? Numeric(2) : (roll < 75 ? TextColumn() : Predicate(1));
      AddOutputGen(g, outputs_sql);
    }
  }

  void GenerateAggregated(std::vector<std::string>& outputs_sql, std::string& group_sql,
                          std::string& having_sql) {
    select_.aggregated = true;
    const std::int64_t keys = random_.Int(0, 2);
    for (std::int64_t i = 0; i < keys; ++i) {
      Gen key = GroupKey();
      group_sql += (i == 0 ? " GROUP BY " : ", ") + key.sql;
      select_.group_keys.push_back(key.expr);
      key.expr = GroupRef(select_.group_keys.size() - 1, key.expr.type);
      group_keys_.push_back(key);
    }
    aggregated_scope_ = true;
    for (const Gen& key : group_keys_)
      if (random_.Chance(0.7)) AddOutputGen(key, outputs_sql);
    // Without GROUP BY, SQL is aggregated only if an aggregate appears.
    if (keys == 0) AddOutputGen(NewAggregate(), outputs_sql);
    const std::int64_t count = random_.Int(keys == 0 ? 0 : 1, 3);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t roll = random_.Int(0, 99);
      Gen g = roll < 50   ? NewAggregate()
              : roll < 75 ? Numeric(1)
              : roll < 85 ? Predicate(0)
                          : GroupText();
      AddOutputGen(g, outputs_sql);
    }
    if (keys > 0 && random_.Chance(0.3)) {
      Gen having = Combine(Pick(kComparisons), NewAggregate(), IntConstant(random_.Int(0, 10)));
      if (random_.Chance(0.3)) having = Combine(BinaryOp::kOr, having, Predicate(0));
      select_.having = having.expr;
      having_sql = " HAVING " + having.sql;
    }
  }

  // A group key that reads a column (a constant would be a column number to SQLite).
  Gen GroupKey() {
    const std::size_t source = AnySource();
    const std::int64_t roll = random_.Int(0, 99);
    if (roll < 30) return Column(source, 0);
    if (roll < 45) return Column(source, 5);
    if (roll < 55) return Column(source, 6);
    if (roll < 65) return Column(source, 4);
    if (roll < 85)
      return Combine(BinaryOp::kModulo, Column(source, random_.Chance(0.5) ? 1 : 2),
                     IntConstant(random_.Int(2, 5)));
    return Combine(Pick(kComparisons), Column(source, 1), IntConstant(random_.Int(-5, 5)));
  }

  // --- ORDER BY and LIMIT ---------------------------------------------------------

  // Returns whether the order of the visible outputs is fully determined.
  bool GenerateOrderBy(std::string& order_sql, std::string& limit_sql) {
    if (!random_.Chance(0.45)) return false;
    const std::size_t visible = select_.visible_outputs;
    const bool limit = random_.Chance(0.5);
    std::vector<std::string> terms;
    std::vector<bool> covered(visible, false);
    const std::int64_t keys = random_.Int(1, static_cast<std::int64_t>(visible) + 1);
    for (std::int64_t i = 0; i < keys; ++i) {
      const bool descending = random_.Chance(0.4);
      if (!select_.distinct && random_.Chance(0.25)) {
        Gen hidden = HiddenKey();
        select_.outputs.push_back({"hidden", hidden.expr});
        select_.order_by.push_back(
            {OutputRef(select_.outputs.size() - 1, hidden.expr.type), descending});
        terms.push_back(hidden.sql + (descending ? " DESC" : ""));
        continue;
      }
      const std::size_t output =
          static_cast<std::size_t>(random_.Int(0, static_cast<std::int64_t>(visible) - 1));
      AddOrderTerm(output, descending, terms);
      covered[output] = true;
    }
    if (limit) {
      for (std::size_t output = 0; output < visible; ++output) {
        if (covered[output]) continue;
        AddOrderTerm(output, random_.Chance(0.4), terms);
        covered[output] = true;
      }
      const std::int64_t count = random_.Int(0, 30);
      const std::int64_t offset = random_.Chance(0.5) ? random_.Int(0, 40) : 0;
      select_.limit = static_cast<std::uint64_t>(count);
      select_.offset = static_cast<std::uint64_t>(offset);
      limit_sql = " LIMIT " + std::to_string(count) + " OFFSET " + std::to_string(offset);
    }
    order_sql = " ORDER BY ";
    for (std::size_t i = 0; i < terms.size(); ++i)
      order_sql += (i > 0 ? ", " : "") + terms[i];
    return std::all_of(covered.begin(), covered.end(), [](bool c) { return c; });
  }

  void AddOrderTerm(std::size_t output, bool descending, std::vector<std::string>& terms) {
    select_.order_by.push_back({OutputRef(output, select_.outputs[output].expr.type), descending});
    terms.push_back(std::to_string(output + 1) + (descending ? " DESC" : ""));
  }

  // An ORDER BY expression that is not a constant.
  Gen HiddenKey() {
    for (;;) {
      Gen g = random_.Chance(0.7) ? Numeric(1) : Predicate(0);
      if (ReadsData(g.expr)) return g;
    }
  }

  static bool ReadsData(const Expr& e) {
    if (e.kind == Expr::Kind::kColumnRef || e.kind == Expr::Kind::kGroupRef ||
        e.kind == Expr::Kind::kAggregateRef)
      return true;
    return std::any_of(e.children.begin(), e.children.end(), ReadsData);
  }

  // --- Expressions ----------------------------------------------------------------

  inline static const std::vector<BinaryOp> kComparisons = {
      BinaryOp::kEqual,     BinaryOp::kNotEqual, BinaryOp::kLess,
      BinaryOp::kLessEqual, BinaryOp::kGreater,  BinaryOp::kGreaterEqual};

  BinaryOp Pick(const std::vector<BinaryOp>& ops) { return random_.Pick(ops); }

  static const char* OpSql(BinaryOp op) {
    switch (op) {
      case BinaryOp::kAdd:
        return "+";
      case BinaryOp::kSubtract:
        return "-";
      case BinaryOp::kMultiply:
        return "*";
      case BinaryOp::kDivide:
        return "/";
      case BinaryOp::kModulo:
        return "%";
      case BinaryOp::kEqual:
        return "=";
      case BinaryOp::kNotEqual:
        return "<>";
      case BinaryOp::kLess:
        return "<";
      case BinaryOp::kLessEqual:
        return "<=";
      case BinaryOp::kGreater:
        return ">";
      case BinaryOp::kGreaterEqual:
        return ">=";
      case BinaryOp::kAnd:
        return "AND";
      case BinaryOp::kOr:
        return "OR";
    }
    return "?";
  }

  // (l op r), with bounds for arithmetic.
  Gen Combine(BinaryOp op, const Gen& l, const Gen& r) {
    Gen g;
    g.expr = Binary(op, l.expr, r.expr);
    g.sql = "(" + l.sql + " " + OpSql(op) + " " + r.sql + ")";
    g.exact = l.exact && r.exact;
    if (!IsArithmetic(op)) {
      g.bound = 1;
      g.exact = true;
      return g;
    }
    const bool real = g.expr.type == ValueType::kReal;
    switch (op) {
      case BinaryOp::kAdd:
      case BinaryOp::kSubtract:
        g.bound = l.bound + r.bound;
        g.grid_bits = std::max(l.grid_bits, r.grid_bits);
        break;
      case BinaryOp::kMultiply:
        g.bound = l.bound * r.bound;
        g.grid_bits = l.grid_bits + r.grid_bits;
        break;
      case BinaryOp::kDivide:
        if (real) {
          // |divisor| >= 2^-grid_bits unless it is zero (then NULL).
          g.bound = l.bound * std::ldexp(1.0, r.grid_bits);
          g.exact = false;
        } else {
          g.bound = l.bound;
        }
        break;
      case BinaryOp::kModulo:
        g.bound = std::min(l.bound, r.bound);
        g.exact = true;  // REAL % yields an integer value
        break;
      default:
        break;
    }
    return g;
  }

  Gen IntConstant(std::int64_t v) {
    Gen g;
    g.expr = Int(v);
    g.sql = v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
    g.bound = static_cast<double>(std::llabs(v));
    return g;
  }

  Gen RealConstant() {
    const double v = static_cast<double>(random_.Int(-40, 40)) / 4;
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f", v);  // always with a decimal point: REAL in SQL
    Gen g;
    g.expr = Real(v);
    g.sql = v < 0 ? std::string("(") + text + ")" : text;
    g.bound = std::fabs(v);
    g.grid_bits = 2;
    return g;
  }

  Gen NullConstant() {
    Gen g;
    g.expr = Null();
    g.sql = "NULL";
    return g;
  }

  std::size_t AnySource() {
    return static_cast<std::size_t>(
        random_.Int(0, static_cast<std::int64_t>(select_.from.size()) - 1));
  }

  Gen Column(std::size_t source, std::size_t index) {
    const RandomColumn& c = kColumns[index];
    Gen g;
    g.expr = ColumnRef(source, index,
                       c.type.type == DataType::kChar ? ValueType::kText
                       : c.type.is_integer()          ? ValueType::kInteger
                                                      : ValueType::kReal);
    g.sql = select_.from[source].alias + "." + c.name;
    g.bound = c.bound;
    g.grid_bits = c.grid_bits;
    return g;
  }

  Gen NumericLeaf() {
    const std::int64_t roll = random_.Int(0, 99);
    if (roll < 4) return NullConstant();
    if (roll < 16) return IntConstant(random_.Int(-5, 20));
    if (roll < 24) return RealConstant();
    if (!aggregated_scope_) return Column(AnySource(), static_cast<std::size_t>(random_.Int(0, 4)));
    std::vector<const Gen*> numeric_keys;
    for (const Gen& key : group_keys_)
      if (key.expr.type == ValueType::kInteger || key.expr.type == ValueType::kReal)
        numeric_keys.push_back(&key);
    if (!numeric_keys.empty() && random_.Chance(0.4)) return *random_.Pick(numeric_keys);
    return NewAggregate();
  }

  Gen Numeric(int depth) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      if (depth == 0 || random_.Chance(0.35)) return NumericLeaf();
      const std::int64_t roll = random_.Int(0, 99);
      Gen g;
      if (roll < 70) {
        static const std::vector<BinaryOp> kArithmetic = {BinaryOp::kAdd, BinaryOp::kSubtract,
                                                          BinaryOp::kMultiply, BinaryOp::kDivide,
                                                          BinaryOp::kModulo};
        const BinaryOp op = Pick(kArithmetic);
        const Gen l = Numeric(depth - 1);
        const Gen r = Numeric(depth - 1);
        if (op == BinaryOp::kDivide && !r.exact) continue;  // no bound on 1 / tiny
        g = Combine(op, l, r);
      } else if (roll < 80) {
        const Gen a = Numeric(depth - 1);
        g = a;
        g.expr = Unary(UnaryOp::kNegate, a.expr);
        g.sql = "(-" + a.sql + ")";
      } else {
        const Gen a = Numeric(depth - 1);
        const bool to_integer = random_.Chance(0.5);
        g = a;
        g.expr = Cast(a.expr, to_integer ? ValueType::kInteger : ValueType::kReal);
        g.sql = std::string("CAST(") + a.sql + (to_integer ? " AS INTEGER)" : " AS REAL)");
        if (to_integer) {
          g.grid_bits = 0;
          g.exact = true;
        }
      }
      if (g.bound <= kMaxBound) return g;
    }
    return NumericLeaf();
  }

  Gen TextColumn() { return Column(AnySource(), random_.Chance(0.5) ? 5 : 6); }

  Gen TextOperand() {
    if (random_.Chance(0.6)) return TextColumn();
    const std::string& v =
        random_.Chance(0.5) ? random_.Pick(kShortTexts) : random_.Pick(kLongTexts);
    Gen g;
    g.expr = Text(v);
    g.sql = "'" + v + "'";
    return g;
  }

  // TEXT in the aggregated scope: a TEXT group key, or MIN/MAX of TEXT.
  Gen GroupText() {
    std::vector<const Gen*> text_keys;
    for (const Gen& key : group_keys_)
      if (key.expr.type == ValueType::kText) text_keys.push_back(&key);
    if (!text_keys.empty() && random_.Chance(0.5)) return *random_.Pick(text_keys);
    aggregated_scope_ = false;
    const Gen argument = TextColumn();
    aggregated_scope_ = true;
    return AggregateGen(random_.Chance(0.5) ? AggregateFunction::kMin : AggregateFunction::kMax,
                        &argument);
  }

  // A truth value: comparisons, BETWEEN, IN, IS NULL, AND/OR/NOT, or a number.
  Gen Predicate(int depth) {
    const std::int64_t roll = random_.Int(0, 99);
    if (depth > 0 && roll < 20) {
      const bool is_and = random_.Chance(0.5);
      return Combine(is_and ? BinaryOp::kAnd : BinaryOp::kOr, Predicate(depth - 1),
                     Predicate(depth - 1));
    }
    if (depth > 0 && roll < 27) {
      const Gen a = Predicate(depth - 1);
      Gen g = a;
      g.expr = Unary(UnaryOp::kNot, a.expr);
      g.sql = "(NOT " + a.sql + ")";
      return g;
    }
    if (roll < 57) return Combine(Pick(kComparisons), Numeric(1), Numeric(1));
    if (roll < 65) {
      if (aggregated_scope_) return Combine(Pick(kComparisons), Numeric(1), Numeric(1));
      return Combine(Pick(kComparisons), TextOperand(), TextOperand());
    }
    if (roll < 75) {
      const bool text = !aggregated_scope_ && random_.Chance(0.3);
      const Gen v = text ? TextOperand() : Numeric(1);
      const Gen low = text ? TextOperand() : Numeric(0);
      const Gen high = text ? TextOperand() : Numeric(0);
      const bool negated = random_.Chance(0.3);
      Gen g;
      g.expr = Between(v.expr, low.expr, high.expr, negated);
      g.sql = "(" + v.sql + (negated ? " NOT BETWEEN " : " BETWEEN ") + low.sql + " AND " +
              high.sql + ")";
      g.bound = 1;
      return g;
    }
    if (roll < 85) {
      const bool text = !aggregated_scope_ && random_.Chance(0.3);
      const Gen v = text ? TextOperand() : Numeric(1);
      std::vector<Expr> items;
      std::string list;
      const std::int64_t count = random_.Int(1, 4);
      for (std::int64_t i = 0; i < count; ++i) {
        const Gen item =
            text ? TextOperand() : (random_.Chance(0.15) ? NullConstant() : Numeric(0));
        items.push_back(item.expr);
        list += (i > 0 ? ", " : "") + item.sql;
      }
      const bool negated = random_.Chance(0.3);
      Gen g;
      g.expr = InList(v.expr, std::move(items), negated);
      g.sql = "(" + v.sql + (negated ? " NOT IN (" : " IN (") + list + "))";
      g.bound = 1;
      return g;
    }
    if (roll < 93) {
      const Gen v = Numeric(1);
      const bool is_null = random_.Chance(0.5);
      Gen g;
      g.expr = Unary(is_null ? UnaryOp::kIsNull : UnaryOp::kIsNotNull, v.expr);
      g.sql = "(" + v.sql + (is_null ? " IS NULL)" : " IS NOT NULL)");
      g.bound = 1;
      return g;
    }
    return Numeric(1);  // a number as a truth value
  }

  // --- Aggregates -----------------------------------------------------------------

  // A new aggregate (COUNT, SUM, AVG, MIN, MAX) over a row-scope argument.
  Gen NewAggregate() {
    static const std::vector<AggregateFunction> kFunctions = {
        AggregateFunction::kCountStar, AggregateFunction::kCount, AggregateFunction::kSum,
        AggregateFunction::kAvg,       AggregateFunction::kMin,   AggregateFunction::kMax};
    const AggregateFunction f = random_.Pick(kFunctions);
    if (f == AggregateFunction::kCountStar) return AggregateGen(f, nullptr);
    aggregated_scope_ = false;
    Gen argument;
    for (int attempt = 0;; ++attempt) {
      argument = random_.Chance(0.5)
                     ? Column(AnySource(), static_cast<std::size_t>(random_.Int(0, 4)))
                     : Numeric(2);
      if (f != AggregateFunction::kSum && f != AggregateFunction::kAvg) break;
      // Sums must be exact in double whatever the order: below 2^53 on the grid.
      const double scaled = argument.bound * std::ldexp(1.0, argument.grid_bits) * kMaxRows;
      if (argument.exact && scaled < 0x1.0p53) break;
      if (attempt > 8) {
        argument = Column(AnySource(), 1);
        break;
      }
    }
    aggregated_scope_ = true;
    return AggregateGen(f, &argument);
  }

  Gen AggregateGen(AggregateFunction f, const Gen* argument) {
    static const char* const kNames[] = {"COUNT", "COUNT", "SUM", "AVG", "MIN", "MAX"};
    select_.aggregates.push_back(
        MakeAggregate(f, argument ? std::optional<Expr>(argument->expr) : std::nullopt));
    const sql::Aggregate& a = select_.aggregates.back();
    Gen g;
    g.expr = AggregateRef(select_.aggregates.size() - 1, a.type);
    g.sql = std::string(kNames[static_cast<int>(f)]) + "(" + (argument ? argument->sql : "*") + ")";
    g.exact = true;
    switch (f) {
      case AggregateFunction::kCountStar:
      case AggregateFunction::kCount:
        g.bound = kMaxRows;
        break;
      case AggregateFunction::kSum:
        g.bound = argument->bound * kMaxRows;
        g.grid_bits = argument->grid_bits;
        break;
      case AggregateFunction::kAvg:
        g.bound = argument->bound;
        g.exact = false;  // a quotient
        break;
      default:
        g.bound = argument->bound;
        g.grid_bits = argument->grid_bits;
        g.exact = argument->exact;
        break;
    }
    return g;
  }

  void AddOutputGen(const Gen& g, std::vector<std::string>& outputs_sql) {
    AddOutput(select_, g.expr);
    outputs_sql.push_back(g.sql);
  }

  std::vector<TablePtr> tables_;
  RandomSource random_;
  sql::BoundSelect select_;
  std::vector<Gen> group_keys_;  // as kGroupRef, with the key's SQL
  bool aggregated_scope_ = false;
};

}  // namespace clq::cpu_reference_test
