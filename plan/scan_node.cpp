#include "plan/scan_node.hpp"

namespace clq {

ScanNode::ScanNode(const Engine& engine, const sql::BoundSelect& select, std::size_t source)
    : RowNode({RowShape::Kind::kWholeTable, source, select.from.at(source).table->rows(), true}),
      select_(select) {
  const sql::TableRef& ref = select.from.at(source);
  const std::size_t tablets = engine.TabletCountFor(*ref.table);
  description_ = ref.table->name() + (ref.alias != ref.table->name() ? " AS " + ref.alias : "") +
                 ": " + std::to_string(ref.table->rows()) + " rows in " + std::to_string(tablets) +
                 (tablets == 1 ? " tablet" : " tablets");
}

RowSet ScanNode::Run(ExecutionContext& context) const {
  RowSet rows(context.engine(), context.sources(select_), shape_.source);
  if (const auto& chunk = context.scan_tablets()) rows.KeepTablets(chunk->first, chunk->second);
  return rows;
}

}  // namespace clq
