#include "plan/text_order_codes.hpp"

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

// Replaces each reference to aggregate `index` in `e` by the string of its code.
void DecodeReferences(Expr& e, std::size_t index,
                      const std::shared_ptr<const TextDictionary>& dictionary) {
  if (e.kind == Expr::Kind::kAggregateRef && e.index == index) {
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
    DecodeReferences(child, index, dictionary);
}

}  // namespace

std::shared_ptr<const sql::BoundSelect> WithTextOrderCodes(const sql::BoundSelect& select,
                                                           std::uint64_t host_memory) {
  std::shared_ptr<sql::BoundSelect> coded;
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    const sql::Aggregate& a = select.aggregates[i];
    if (!IsTextExtreme(a)) continue;
    const Expr& argument = *a.argument;
    if (argument.kind != Expr::Kind::kColumnRef)
      throw DeviceLimitError(std::string(sql::AggregateName(a.function)) +
                             " of a TEXT expression other than a CHAR column is not supported "
                             "on devices; select the expression in a derived table first");
    const Table& table = *select.from.at(argument.source).table;
    const std::size_t slot = table.OrderCodesSlot(argument.index);
    const Column& codes = table.column(slot);
    if (!codes.shared_data()->materialized()) {
      const ColumnData& text = *table.column(argument.index).shared_data();
      CheckHostMemory(host_memory,
                      "the order codes of column " + table.column(argument.index).name() + " of " +
                          table.name() + " (" + std::to_string(text.rows()) + " rows)",
                      SaturatingAdd(codes.shared_data()->byte_size(),
                                    OrderCodesWorkBytes(text.rows(), text.type().width)));
    }
    const std::shared_ptr<const TextDictionary> dictionary = codes.shared_data()->Dictionary();
    if (!coded) coded = std::make_shared<sql::BoundSelect>(select);
    sql::Aggregate& changed = coded->aggregates[i];
    changed.type = ValueType::kInteger;
    changed.logical = {};
    changed.argument->index = slot;
    changed.argument->type = ValueType::kInteger;
    changed.argument->logical = {};
    for (sql::OutputColumn& output : coded->outputs)
      DecodeReferences(output.expr, i, dictionary);
    if (coded->having) DecodeReferences(*coded->having, i, dictionary);
  }
  return coded;
}

}  // namespace clq
