#include "wisconsin/dataset.hpp"

#include <memory>

#include "wisconsin/generator.hpp"

namespace clq {

void AddWisconsinTables(Catalog& catalog, RowCount n, const GenerateOptions& options) {
  WisconsinParameters(n);  // rejects a bad N now rather than at first use
  // tenktup1, tenktup2 and bprime are views of one generated table.
  struct Shared {
    RowCount n;
    GenerateOptions options;
    TablePtr tenktup1;
    const TablePtr& Get() {
      if (!tenktup1) tenktup1 = GenerateWisconsinTable(kTenktup1, n, options);
      return tenktup1;
    }
  };
  auto shared = std::make_shared<Shared>(Shared{n, options, nullptr});
  const Schema schema = WisconsinSchema();
  catalog.Add(kTenktup1, schema, [shared] { return shared->Get(); });
  catalog.Add(kTenktup2, schema, [shared] { return shared->Get()->Renamed(kTenktup2); });
  catalog.Add(kOnektup, schema, [n, options] {
    return GenerateWisconsinTable(kOnektup, SmallWisconsinRows(n), options);
  });
  catalog.Add(kBprime, schema,
              [shared] { return shared->Get()->Slice(kBprime, 0, SmallWisconsinRows(shared->n)); });
}

}  // namespace clq
