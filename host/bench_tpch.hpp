// The data of `clq bench --suite tpch`: the 8 TPC-H tables of a directory of
// clq table files (scripts/tpch_data.sh SF DIR writes them), and its scale
// factor.
#pragma once

#include <cstdint>
#include <string>

#include "storage/catalog.hpp"

namespace clq {

struct TpchBenchData {
  Catalog catalog;  // the 8 tables, each read on first use
  RowCount lineitem_rows = 0;
  std::string scale_factor;  // as given, or inferred from the rows of orders
};

// Registers DIR/<table>.clq for region, nation, part, supplier, partsupp,
// customer, orders and lineitem. `scale_factor` (empty: inferred) must match
// the rows of orders, 1,500,000 x SF. Throws InvalidInputError naming the
// directory and the missing file, or the mismatch.
TpchBenchData OpenTpchData(const std::string& dir, const std::string& scale_factor,
                           std::uint64_t host_memory);

}  // namespace clq
