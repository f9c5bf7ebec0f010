#include "plan/text_order_codes.hpp"

#include <algorithm>
#include <cstring>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::Expr;
using sql::ValueType;

bool IsTextExtreme(const sql::Aggregate& a) {
  return (a.function == AggregateFunction::kMin || a.function == AggregateFunction::kMax) &&
         a.type == ValueType::kText;
}

// Replaces each reference of `kind` (an aggregate's or a group key's) to
// `index` in `e` by the string of its code.
void DecodeReferences(Expr& e, Expr::Kind kind, std::size_t index,
                      const std::shared_ptr<const TextDictionary>& dictionary) {
  if (e.kind == kind && e.index == index) {
    Expr code = e;
    code.type = ValueType::kInteger;
    Expr text;
    text.kind = Expr::Kind::kTextOfCode;
    text.type = ValueType::kText;
    text.position = e.position;
    text.dictionary = dictionary;
    text.children.push_back(std::move(code));
    e = std::move(text);
    return;
  }
  for (Expr& child : e.children)
    DecodeReferences(child, kind, index, dictionary);
}

// The order codes of CHAR column `index` of `table`, made within
// `host_memory` if they are not yet; returns their dictionary.
std::shared_ptr<const TextDictionary> MakeCodes(const Table& table, std::size_t index,
                                                std::uint64_t host_memory) {
  const Column& codes = table.column(table.OrderCodesSlot(index));
  if (!codes.shared_data()->materialized()) {
    const ColumnData& text = *table.column(index).shared_data();
    CheckHostMemory(host_memory,
                    "the order codes of column " + table.column(index).name() + " of " +
                        table.name() + " (" + std::to_string(text.rows()) + " rows)",
                    SaturatingAdd(codes.shared_data()->byte_size(),
                                  OrderCodesWorkBytes(text.rows(), text.type().width)));
  }
  return codes.shared_data()->Dictionary();
}

// Makes `column`, a CHAR column reference of `table`, read its order codes.
void ReadCodes(const Table& table, Expr& column) {
  column.index = table.OrderCodesSlot(column.index);
  column.type = ValueType::kInteger;
  column.logical = {};
}

void DecodeOutputs(sql::BoundSelect& select, Expr::Kind kind, std::size_t index,
                   const std::shared_ptr<const TextDictionary>& dictionary) {
  for (sql::OutputColumn& output : select.outputs)
    DecodeReferences(output.expr, kind, index, dictionary);
  if (select.having) DecodeReferences(*select.having, kind, index, dictionary);
}

}  // namespace

std::shared_ptr<const sql::BoundSelect> WithTextOrderCodes(const sql::BoundSelect& select,
                                                           std::uint64_t host_memory) {
  std::shared_ptr<sql::BoundSelect> coded;
  const auto copy = [&]() -> sql::BoundSelect& {
    if (!coded) coded = std::make_shared<sql::BoundSelect>(select);
    return *coded;
  };
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    const sql::Aggregate& a = select.aggregates[i];
    if (!IsTextExtreme(a)) continue;
    if (a.argument->kind != Expr::Kind::kColumnRef)
      throw DeviceLimitError(std::string(sql::AggregateName(a.function)) +
                             " of a TEXT expression other than a CHAR column is not supported "
                             "on devices; select the expression in a derived table first");
    const Table& table = *select.from.at(a.argument->source).table;
    const std::shared_ptr<const TextDictionary> dictionary =
        MakeCodes(table, a.argument->index, host_memory);
    sql::Aggregate& changed = copy().aggregates[i];
    ReadCodes(table, *changed.argument);
    changed.type = ValueType::kInteger;
    changed.logical = {};
    DecodeOutputs(*coded, Expr::Kind::kAggregateRef, i, dictionary);
  }
  // CHAR group keys: groups of integers, each group's string looked up.
  for (std::size_t k = 0; k < select.group_keys.size(); ++k) {
    std::optional<GroupingCodes> codes = CodesToGroup(select, select.group_keys[k], host_memory);
    if (!codes) continue;
    copy().group_keys[k] = std::move(codes->key);
    DecodeOutputs(*coded, Expr::Kind::kGroupRef, k, codes->dictionary);
  }
  return coded;
}

std::optional<GroupingCodes> CodesToGroup(const sql::BoundSelect& select, const sql::Expr& key,
                                          std::uint64_t host_memory) {
  if (key.kind != Expr::Kind::kColumnRef || key.type != ValueType::kText) return std::nullopt;
  const Table& table = *select.from.at(key.source).table;
  // Not a derived table's column whose codes are not made: its rows live
  // for one query, and making codes costs more than grouping strings once.
  const bool made = table.column(table.OrderCodesSlot(key.index)).shared_data()->materialized();
  if (select.from[key.source].derived && !made) return std::nullopt;
  // Nor a column of many distinct values whose codes are not made: its rows
  // would be sorted on the host, where grouping strings on the device is
  // cheaper than that once.
  if (!made) {
    const Column& text = table.column(key.index);
    if (!OrderCodesAreCheap(text.shared_data()->data(), text.shared_data()->rows(),
                            text.type().width))
      return std::nullopt;
  }
  // Strings group without codes where making them would pass the budget.
  GroupingCodes codes;
  try {
    codes.dictionary = MakeCodes(table, key.index, host_memory);
  } catch (const ResourceLimitError&) {
    return std::nullopt;
  }
  codes.key = key;
  ReadCodes(table, codes.key);
  return codes;
}

std::optional<sql::Expr> MadeCodes(const sql::BoundSelect& select, const sql::Expr& key) {
  if (key.kind != Expr::Kind::kColumnRef || key.type != ValueType::kText) return std::nullopt;
  const Table& table = *select.from.at(key.source).table;
  if (!table.column(table.OrderCodesSlot(key.index)).shared_data()->materialized())
    return std::nullopt;
  Expr codes = key;
  ReadCodes(table, codes);
  return codes;
}

ResultColumn TextOfCodes(const ResultColumn& codes,
                         const std::shared_ptr<const TextDictionary>& shared) {
  const TextDictionary& dictionary = *shared;
  CLQ_CHECK(codes.type == ValueType::kInteger || codes.type == ValueType::kNull,
            "order codes that are no integers");
  ResultColumn text;
  text.name = codes.name;
  text.type = ValueType::kText;
  const RowCount rows = codes.rows();
  text.nulls = codes.nulls;
  if (codes.type == ValueType::kNull) {
    text.nulls.assign(rows, 1);
    return text;
  }
  // At least a byte, as a CHAR column has: a width of 0 holds no row.
  text.text_width = std::max<std::uint32_t>(dictionary.width, 1);
  text.text.assign(rows * text.text_width, '\0');
  text.dictionary = shared;
  for (RowCount r = 0; r < rows; ++r) {
    if (codes.IsNull(r)) continue;
    const std::int64_t code = codes.integers[r];
    CLQ_CHECK(code >= 0 && static_cast<std::uint64_t>(code) < dictionary.values.size(),
              "an order code outside its dictionary");
    const std::string& value = dictionary.values[static_cast<std::size_t>(code)];
    std::memcpy(text.text.data() + r * text.text_width, value.data(), value.size());
  }
  return text;
}

}  // namespace clq
