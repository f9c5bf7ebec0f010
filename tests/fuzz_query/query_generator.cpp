#include "tests/fuzz_query/query_generator.hpp"

#include <algorithm>
#include <string>

namespace clq::fuzz_query {
namespace {

Expr Binary(std::string op, Expr l, Expr r) {
  return {Expr::Kind::kBinary, std::move(op), {std::move(l), std::move(r)}, false};
}

Expr Prefix(std::string op, Expr e) {
  return {Expr::Kind::kPrefix, std::move(op), {std::move(e)}, false};
}

// Whether `e` reads a column or an aggregate (a constant ORDER BY key may
// be a position to SQLite).
bool ReadsWideInteger(const Expr& e) {
  if (e.kind == Expr::Kind::kLeaf)
    return e.text.ends_with(".a") || e.text.ends_with(".b") || e.text.size() >= 9;
  return std::any_of(e.kids.begin(), e.kids.end(), ReadsWideInteger);
}

bool ReadsData(const Expr& e) {
  if (e.aggregate) return true;
  if (e.kind == Expr::Kind::kLeaf)
    return e.text.find('.') != std::string::npos &&
           e.text.find_first_of("abcdefghijklmnopqrstuvwxyz") == 0;
  return std::any_of(e.kids.begin(), e.kids.end(), ReadsData);
}

const std::vector<std::string> kComparisons = {"=", "<>", "<", "<=", ">", ">="};
const std::vector<std::string> kIntegerColumns = {"id", "k", "a", "b"};
const std::vector<std::string> kShortTexts = {"", "a", "b", "ab", "ba", "abc", "B", "z", "abcd"};
const std::vector<std::string> kLongTexts = {"apple", "pear", "fig",   "Fig",       "kiwi",
                                             "plum",  "date", "grape", "grapefruit"};

}  // namespace

Query QueryGenerator::Next() {
  query_ = Query();
  aliases_.clear();
  group_keys_.clear();
  aggregate_scope_ = false;
  GenerateFrom();
  if (random_.Chance(0.45)) {
    GenerateAggregated();
  } else {
    const std::int64_t count = random_.Int(1, 5);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t roll = random_.Int(0, 99);
      if (roll < 65) {
        query_.items.push_back(Numeric(static_cast<int>(random_.Int(0, 3))).expr);
      } else if (roll < 80) {
        query_.items.push_back(Column(AnySource(), random_.Chance(0.5) ? "s" : "t").expr);
      } else {
        query_.items.push_back(Predicate(static_cast<int>(random_.Int(0, 2))));
      }
    }
  }
  query_.distinct = random_.Chance(0.15);
  GenerateOrderBy();
  return query_;
}

// --- FROM and WHERE ------------------------------------------------------------------

void QueryGenerator::GenerateFrom() {
  const std::int64_t roll = random_.Int(0, 99);
  const std::size_t count = roll < 50 ? 1 : (roll < 85 ? 2 : 3);
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t t = static_cast<std::size_t>(random_.Int(0, 2));
    if (random_.Chance(0.05)) t = 3;
    chosen.push_back(t);
    aliases_.push_back("a" + std::to_string(i));
    query_.from.push_back(tables_[t].name + " AS " + aliases_.back());
    if (i == 0) continue;
    const std::size_t other =
        static_cast<std::size_t>(random_.Int(0, static_cast<std::int64_t>(i) - 1));
    const double product =
        static_cast<double>(tables_[t].rows) * static_cast<double>(tables_[chosen[other]].rows);
    if (product <= 20000 && random_.Chance(0.1)) continue;  // a cross product
    Expr condition;
    if (product > 40000) {
      // Through the unique id: at most as many rows as the other side.
      Expr key = Column(other, random_.Pick(kIntegerColumns).c_str()).expr;
      if (random_.Chance(0.3))
        key = Binary("+", key, Expr::Leaf(std::to_string(random_.Int(0, 5))));
      Expr id = Column(i, "id").expr;
      condition = random_.Chance(0.5) ? Binary("=", id, key) : Binary("=", key, id);
    } else {
      condition = JoinCondition(other, i);
    }
    if (i + 1 == count && random_.Chance(0.3)) {
      // A LEFT JOIN of the last table, now and then with a condition on it
      // alone in its ON (which limits its matches, not the rows kept).
      if (random_.Chance(0.4)) {
        Expr own = Binary(random_.Pick(std::vector<std::string>{"<", ">", "<>"}),
                          Column(i, random_.Pick(kIntegerColumns).c_str()).expr,
                          Expr::Leaf(std::to_string(random_.Int(-10, 10))));
        condition = Binary("AND", condition, own);
      }
      query_.left_join_on = condition;
      continue;
    }
    query_.where.push_back(condition);
  }
  const std::int64_t predicates = random_.Int(0, 3);
  for (std::int64_t p = 0; p < predicates; ++p)
    query_.where.push_back(Predicate(static_cast<int>(random_.Int(0, 3))));
  std::shuffle(query_.where.begin(), query_.where.end(),
               std::mt19937_64(static_cast<std::uint64_t>(random_.Int(0, 1 << 30))));
}

Expr QueryGenerator::JoinCondition(std::size_t left, std::size_t right) {
  const std::int64_t roll = random_.Int(0, 99);
  Expr l = Column(left, roll < 50 ? "k" : random_.Pick(kIntegerColumns).c_str()).expr;
  Expr r = Column(right, roll < 70 ? "k" : random_.Pick(kIntegerColumns).c_str()).expr;
  if (random_.Chance(0.25))
    l = Binary(random_.Chance(0.7) ? "+" : "-", l, Expr::Leaf(std::to_string(random_.Int(0, 8))));
  if (random_.Chance(0.1)) r = Binary("%", r, Expr::Leaf(std::to_string(random_.Int(2, 7))));
  return random_.Chance(0.5) ? Binary("=", l, r) : Binary("=", r, l);
}

// --- Aggregation ---------------------------------------------------------------------

void QueryGenerator::GenerateAggregated() {
  const std::int64_t keys = random_.Int(0, 3);
  for (std::int64_t i = 0; i < keys; ++i) {
    Gen key = GroupKey();
    query_.group_by.push_back(key.expr);
    group_keys_.push_back(key);
  }
  aggregate_scope_ = true;
  for (const Gen& key : group_keys_)
    if (random_.Chance(0.7)) query_.items.push_back(key.expr);
  const std::int64_t count = random_.Int(query_.items.empty() ? 1 : 0, 4);
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t roll = random_.Int(0, 99);
    if (roll < 50) {
      query_.items.push_back(NewAggregate().expr);
    } else if (roll < 85) {
      query_.items.push_back(Numeric(static_cast<int>(random_.Int(1, 3))).expr);
    } else {
      query_.items.push_back(Predicate(1));
    }
  }
  if (keys == 0 && std::none_of(query_.items.begin(), query_.items.end(), ReadsData))
    query_.items.push_back(NewAggregate().expr);  // else SQLite would not aggregate
  if (random_.Chance(keys > 0 ? 0.4 : 0.1)) {
    const std::int64_t conjuncts = random_.Int(1, 2);
    for (std::int64_t i = 0; i < conjuncts; ++i)
      query_.having.push_back(Predicate(static_cast<int>(random_.Int(0, 2))));
  }
}

// A group key: a column or an expression of columns, never a constant.
QueryGenerator::Gen QueryGenerator::GroupKey() {
  const std::size_t source = AnySource();
  const std::int64_t roll = random_.Int(0, 99);
  if (roll < 25) return Column(source, "k");
  if (roll < 35) return Column(source, "s");
  if (roll < 42) return Column(source, "t");
  if (roll < 50) return Column(source, "d");
  if (roll < 55) return Column(source, "x");
  if (roll < 62) return Column(source, "a");
  Gen g;
  if (roll < 80) {
    g.expr = Binary("%", Column(source, random_.Chance(0.5) ? "a" : "b").expr,
                    Expr::Leaf(std::to_string(random_.Int(2, 6))));
  } else if (roll < 90) {
    g.expr = Binary(random_.Pick(kComparisons), Column(source, "a").expr,
                    Expr::Leaf(std::to_string(random_.Int(0, 50))));
  } else {
    g.expr = {Expr::Kind::kCast, "INTEGER", {Column(source, "d").expr}, false};
  }
  return g;
}

QueryGenerator::Gen QueryGenerator::NewAggregate() {
  static const std::vector<std::string> kFunctions = {"COUNT", "COUNT", "SUM", "AVG", "MIN", "MAX"};
  const std::string f = random_.Pick(kFunctions);
  Gen g;
  g.expr = {Expr::Kind::kCall, f, {}, true};
  if (f == "COUNT" && random_.Chance(0.5)) return g;  // COUNT(*)
  aggregate_scope_ = false;
  Gen argument;
  for (int attempt = 0;; ++attempt) {
    // COUNT of TEXT only: clq's binder rejects MIN and MAX of TEXT
    // (binder_error_test), though SQLite and the CPU reference have them.
    if (random_.Chance(0.15) && f == "COUNT") {
      argument = Column(AnySource(), random_.Chance(0.5) ? "s" : "t");
    } else {
      argument =
          random_.Chance(0.5) ? NumericColumn() : Numeric(static_cast<int>(random_.Int(1, 3)));
    }
    // AVG over narrow columns only: a total past 64 bits is averaged as a
    // sum of doubles (README), whose rounding depends on the order.
    if (f == "AVG")
      argument = Column(AnySource(), random_.Pick(std::vector<const char*>{"id", "k", "d", "a"}));
    if ((f != "SUM" && f != "AVG") || argument.exact) break;
    if (attempt > 6) {
      argument = Column(AnySource(), "a");
      break;
    }
  }
  aggregate_scope_ = true;
  g.expr.kids.push_back(argument.expr);
  g.type = f == "AVG" ? Type::kReal : (f == "COUNT" ? Type::kInteger : argument.type);
  return g;
}

// --- ORDER BY and LIMIT ------------------------------------------------------------

void QueryGenerator::GenerateOrderBy() {
  if (!random_.Chance(0.5)) return;
  const std::size_t visible = query_.items.size();
  std::vector<bool> covered(visible, false);
  const std::int64_t terms = random_.Int(1, static_cast<std::int64_t>(visible) + 1);
  for (std::int64_t i = 0; i < terms; ++i) {
    const bool descending = random_.Chance(0.4);
    if (!query_.distinct && random_.Chance(0.25)) {
      for (int attempt = 0; attempt < 8; ++attempt) {
        Expr key = random_.Chance(0.7) ? Numeric(2).expr : Predicate(1);
        if (!ReadsData(key)) continue;
        query_.order_by.push_back({std::move(key), descending});
        break;
      }
      continue;
    }
    const std::size_t output =
        static_cast<std::size_t>(random_.Int(0, static_cast<std::int64_t>(visible) - 1));
    query_.order_by.push_back({Expr::Leaf(std::to_string(output + 1)), descending});
    covered[output] = true;
  }
  if (!random_.Chance(0.5)) return;
  for (std::size_t output = 0; output < visible; ++output)
    if (!covered[output])
      query_.order_by.push_back({Expr::Leaf(std::to_string(output + 1)), random_.Chance(0.4)});
  query_.limit = random_.Int(0, 40);
  if (random_.Chance(0.4)) query_.offset = random_.Int(0, 60);
}

// --- Expressions ---------------------------------------------------------------------

std::size_t QueryGenerator::AnySource() {
  return static_cast<std::size_t>(random_.Int(0, static_cast<std::int64_t>(aliases_.size()) - 1));
}

QueryGenerator::Gen QueryGenerator::Column(std::size_t source, const char* name) {
  Gen g;
  g.expr = Expr::Leaf(aliases_[source] + "." + name);
  const std::string n = name;
  g.type = (n == "d" || n == "x")   ? Type::kReal
           : (n == "s" || n == "t") ? Type::kText
                                    : Type::kInteger;
  g.exact = n != "x";
  return g;
}

QueryGenerator::Gen QueryGenerator::NumericColumn() {
  static const std::vector<const char*> kNumeric = {"id", "k", "a", "a", "b", "d", "d", "x"};
  return Column(AnySource(), random_.Pick(kNumeric));
}

QueryGenerator::Gen QueryGenerator::IntegerConstant() {
  static const std::vector<std::string> kOverflowProne = {"2147483647",
                                                          "(-2147483648)",
                                                          "2147483648",
                                                          "4294967296",
                                                          "4611686018427387904",
                                                          "9223372036854775807",
                                                          "(-9223372036854775808)",
                                                          "(-9223372036854775807)",
                                                          "3037000500"};
  Gen g;
  if (random_.Chance(0.08)) {
    g.expr = Expr::Leaf(random_.Pick(kOverflowProne));
    return g;
  }
  const std::int64_t v = random_.Int(-5, 20);
  g.expr = Expr::Leaf(v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v));
  return g;
}

QueryGenerator::Gen QueryGenerator::RealConstant() {
  static const std::vector<std::string> kExtreme = {
      "1.0e300", "(-1.0e300)", "1e-300", "0.1", "1.7976931348623157e308", "(-0.0)"};
  Gen g;
  g.type = Type::kReal;
  if (random_.Chance(0.1)) {
    g.expr = Expr::Leaf(random_.Pick(kExtreme));
    g.exact = false;
    return g;
  }
  const std::int64_t quarters = random_.Int(-40, 40);
  std::string text =
      std::to_string(quarters / 4) + "." + std::to_string(std::abs(quarters % 4) * 25);
  if (quarters < 0)
    text = "(-" + std::to_string(-quarters / 4) + "." + std::to_string((-quarters % 4) * 25) + ")";
  g.expr = Expr::Leaf(text);
  return g;
}

QueryGenerator::Gen QueryGenerator::NumericLeaf() {
  const std::int64_t roll = random_.Int(0, 99);
  if (roll < 4) return {Expr::Leaf("NULL"), Type::kInteger, true};
  if (roll < 18) return IntegerConstant();
  if (roll < 26) return RealConstant();
  if (!aggregate_scope_) return NumericColumn();
  std::vector<const Gen*> numeric_keys;
  for (const Gen& key : group_keys_)
    if (key.type != Type::kText) numeric_keys.push_back(&key);
  if (!numeric_keys.empty() && random_.Chance(0.4)) return *random_.Pick(numeric_keys);
  return NewAggregate();
}

QueryGenerator::Gen QueryGenerator::Numeric(int depth) {
  if (depth <= 0 || random_.Chance(0.25)) {
    Gen leaf = NumericLeaf();
    if (leaf.type == Type::kText) leaf = IntegerConstant();
    return leaf;
  }
  const std::int64_t roll = random_.Int(0, 99);
  if (roll < 70) {
    static const std::vector<std::string> kArithmetic = {"+", "-", "*", "/", "%", "+", "*"};
    const std::string op = random_.Pick(kArithmetic);
    const Gen l = Numeric(depth - 1);
    const Gen r = Numeric(depth - 1);
    Gen g;
    g.expr = Binary(op, l.expr, r.expr);
    g.type = (l.type == Type::kReal || r.type == Type::kReal) ? Type::kReal : Type::kInteger;
    g.exact = l.exact && r.exact && !(op == "/" && g.type == Type::kReal);
    if (op == "%") g.exact = true;  // an integer value
    // A REAL of wide integers (a, b, products, large constants) is off the
    // grid: its sum would depend on the order of addition.
    if (g.type == Type::kReal && (ReadsWideInteger(l.expr) || ReadsWideInteger(r.expr)))
      g.exact = false;
    return g;
  }
  if (roll < 80) {
    Gen g = Numeric(depth - 1);
    g.expr = Prefix("- ", g.expr);
    return g;
  }
  if (roll < 92) {
    Gen g = Numeric(depth - 1);
    const bool to_integer = random_.Chance(0.5);
    g.expr = {Expr::Kind::kCast, to_integer ? "INTEGER" : "REAL", {g.expr}, false};
    if (to_integer) {
      g.type = Type::kInteger;
      g.exact = true;
    } else {
      g.type = Type::kReal;
      g.exact = g.exact && !ReadsWideInteger(g.expr);
    }
    return g;
  }
  if (roll < 97) return NumericCase(depth - 1);
  return {Predicate(depth - 1), Type::kInteger, true};  // a truth value as a number
}

QueryGenerator::Gen QueryGenerator::NumericCase(int depth) {
  Gen g;
  g.expr = {Expr::Kind::kCase, "", {}, false};
  const bool simple = random_.Chance(0.3);
  if (simple) {
    g.expr.text += "S";
    g.expr.kids.push_back(Numeric(depth).expr);
  }
  std::vector<std::size_t> values;
  const std::int64_t whens = random_.Int(1, 3);
  std::vector<Gen> branches;
  for (std::int64_t i = 0; i < whens; ++i) {
    g.expr.kids.push_back(simple ? Numeric(0).expr : Predicate(depth));
    branches.push_back(Numeric(depth));
    values.push_back(g.expr.kids.size());
    g.expr.kids.push_back(branches.back().expr);
  }
  if (random_.Chance(0.7)) {
    g.expr.text += "E";
    branches.push_back(Numeric(depth));
    values.push_back(g.expr.kids.size());
    g.expr.kids.push_back(branches.back().expr);
  }
  bool real = false;
  g.exact = true;
  for (const Gen& b : branches) {
    real = real || b.type == Type::kReal;
    g.exact = g.exact && b.exact;
  }
  g.type = real ? Type::kReal : Type::kInteger;
  if (real) {
    for (std::size_t i = 0; i < branches.size(); ++i) {
      if (branches[i].type == Type::kReal) continue;
      Expr& kid = g.expr.kids[values[i]];
      kid = {Expr::Kind::kCast, "REAL", {kid}, false};
      if (ReadsWideInteger(kid)) g.exact = false;
    }
  }
  return g;
}

// LIKE on a CHAR column (or a literal now and then) with a pattern of the
// fuzz tables' texts cut and joined by wildcards.
Expr QueryGenerator::LikePredicate() {
  Gen value = TextOperand();
  if (value.type != Type::kText) value = Column(AnySource(), "s");
  static const std::vector<std::string> kPieces = {"a",    "b", "ab", "p", "e",  "fig",  "F",
                                                   "rape", "i", "",   "z", "pl", "kiwi", "apple"};
  static const std::vector<std::string> kWildcards = {"%", "_", "%%", "__", "%_", "_%", ""};
  std::string pattern;
  const std::int64_t parts = random_.Int(0, 4);
  for (std::int64_t i = 0; i < parts; ++i)
    pattern += random_.Chance(0.5) ? random_.Pick(kWildcards) : random_.Pick(kPieces);
  Expr like{Expr::Kind::kLike,
            random_.Chance(0.3) ? "NOT " : "",
            {value.expr, Expr::Leaf(random_.Chance(0.03) ? "NULL" : "'" + pattern + "'")},
            false};
  return like;
}

QueryGenerator::Gen QueryGenerator::TextOperand() {
  if (random_.Chance(0.6)) {
    if (!aggregate_scope_) return Column(AnySource(), random_.Chance(0.5) ? "s" : "t");
    for (const Gen& key : group_keys_)
      if (key.type == Type::kText && random_.Chance(0.7)) return key;
  }
  Gen g;
  g.type = Type::kText;
  g.expr = Expr::Leaf(
      "'" + (random_.Chance(0.5) ? random_.Pick(kShortTexts) : random_.Pick(kLongTexts)) + "'");
  return g;
}

// A truth value: comparisons, BETWEEN, IN, IS NULL, AND/OR/NOT, or a number.
Expr QueryGenerator::Predicate(int depth) {
  const std::int64_t roll = random_.Int(0, 99);
  if (depth > 0 && roll < 22)
    return Binary(random_.Chance(0.5) ? "AND" : "OR", Predicate(depth - 1), Predicate(depth - 1));
  if (depth > 0 && roll < 30) return Prefix("NOT ", Predicate(depth - 1));
  const int sub = std::max(0, depth - 1) + static_cast<int>(random_.Int(0, 1));
  if (roll < 55) return Binary(random_.Pick(kComparisons), Numeric(sub).expr, Numeric(sub).expr);
  if (roll < 65) {
    // Mostly a CHAR column against a literal, the one TEXT comparison
    // devices run; now and then two columns or two literals.
    const Gen l = TextOperand();
    Gen r = TextOperand();
    if (random_.Chance(0.8)) {
      r.expr = Expr::Leaf("'" + random_.Pick(kShortTexts) + "'");
      r.type = Type::kText;
    }
    if (l.type == Type::kText && r.type == Type::kText)
      return Binary(random_.Pick(kComparisons), l.expr, r.expr);
    return Binary(random_.Pick(kComparisons), Numeric(sub).expr, Numeric(0).expr);
  }
  const bool text = random_.Chance(0.25);
  auto operand = [&](int d) { return text ? TextOperand().expr : Numeric(d).expr; };
  if (roll < 75) {
    return {Expr::Kind::kBetween,
            random_.Chance(0.3) ? "NOT " : "",
            {operand(sub), operand(0), operand(0)},
            false};
  }
  if (roll < 86) {
    Expr in{Expr::Kind::kIn, random_.Chance(0.3) ? "NOT " : "", {operand(sub)}, false};
    const std::int64_t count = random_.Int(1, 5);
    for (std::int64_t i = 0; i < count; ++i)
      in.kids.push_back(!text && random_.Chance(0.1) ? Expr::Leaf("NULL") : operand(0));
    return in;
  }
  if (roll < 90) return LikePredicate();
  if (roll < 94) {
    return {Expr::Kind::kPostfix,
            random_.Chance(0.5) ? " IS NULL" : " IS NOT NULL",
            {Numeric(sub).expr},
            false};
  }
  return Numeric(sub).expr;
}

}  // namespace clq::fuzz_query
