// The 22 TPC-H queries of tests/tpch/queries, embedded at build time
// (scripts/embed_tpch_queries.cmake), for `clq bench --suite tpch`.
#pragma once

#include <span>

namespace clq {

struct TpchQueryText {
  const char* name;  // the file's stem: "q01" .. "q22"
  const char* sql;   // the file's text, comments included
};

// In file-name order.
std::span<const TpchQueryText> TpchQueryTexts();

}  // namespace clq
