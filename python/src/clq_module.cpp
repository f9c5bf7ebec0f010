// clq._clq: the native half of the Python package (python/clq/__init__.py is
// the other). A Connection is one engine on one device (or one per device
// of a selector naming several, "gpu,cpu" or "all", which its queries
// split over as `clq query`'s do) with its own catalog; tables come in and results go out through
// the Arrow C Stream and C Data interfaces as PyCapsules (arrow/), so pyarrow, pandas, Polars and
// DuckDB exchange data with clq without any Arrow library in it.
//
// This module is a program edge, like the CLI: it turns the Python
// arguments (device, "name=value" settings) and the environment into
// Options once (host/cli_common) and passes them down.
// nanobind's headers are not held to clq's warnings.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wpedantic"
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>
#pragma GCC diagnostic pop

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arrow/arrow_export.hpp"
#include "arrow/arrow_import.hpp"
#include "common/decimal.hpp"
#include "common/errors.hpp"
#include "host/cli_common.hpp"
#include "plan/query_executor.hpp"
#include "runtime/device_info.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "sql/partition_split.hpp"
#include "sql/sql_error_format.hpp"
#include "storage/catalog.hpp"

namespace nb = nanobind;

namespace clq {
namespace {

// The struct a capsule named `name` holds; a TypeError for anything else.
template <typename T>
T* CapsuleStruct(nb::handle capsule, const char* name) {
  void* pointer = PyCapsule_GetPointer(capsule.ptr(), name);
  if (pointer == nullptr) {
    PyErr_Clear();
    throw nb::type_error((std::string("expected a PyCapsule named '") + name + "'").c_str());
  }
  return static_cast<T*>(pointer);
}

class PyResult {
 public:
  explicit PyResult(QueryResult result)
      : result_(std::make_shared<const QueryResult>(std::move(result))) {}

  // The Arrow PyCapsule protocol: a fresh stream over the result each call.
  nb::capsule ArrowStream(nb::handle /*requested_schema*/) const {
    auto* stream = new ArrowArrayStream{};
    ExportArrowStream(result_, stream);
    return nb::capsule(stream, "arrow_array_stream", [](void* p) noexcept {
      auto* s = static_cast<ArrowArrayStream*>(p);
      if (s->release != nullptr) s->release(s);
      delete s;
    });
  }

  // Rows as tuples: INTEGER as int, REAL as float, TEXT as str, DATE as
  // datetime.date and DECIMAL as decimal.Decimal (exact), as DuckDB's
  // fetchall gives them.
  nb::list FetchAll() const {
    nb::list rows;
    nb::object from_ordinal, decimal;
    for (const ResultColumn& c : result_->columns) {
      if (c.logical.is_date() && !from_ordinal.is_valid())
        from_ordinal = nb::module_::import_("datetime").attr("date").attr("fromordinal");
      if (c.logical.is_decimal() && !decimal.is_valid())
        decimal = nb::module_::import_("decimal").attr("Decimal");
    }
    // date.fromordinal counts days from 0001-01-01 (day 1); 1970-01-01 is 719163.
    constexpr std::int64_t kOrdinalOfEpoch = 719163;
    for (RowCount r = 0; r < result_->rows; ++r) {
      nb::list row;
      for (const ResultColumn& c : result_->columns) {
        if (c.IsNull(r) || c.type == sql::ValueType::kNull) {
          row.append(nb::none());
        } else if (c.type == sql::ValueType::kInteger && c.logical.is_date()) {
          row.append(from_ordinal(c.integers[r] + kOrdinalOfEpoch));
        } else if (c.type == sql::ValueType::kInteger && c.logical.is_decimal()) {
          row.append(decimal(FormatDecimal(c.integers[r], c.logical.scale)));
        } else if (c.type == sql::ValueType::kInteger) {
          row.append(nb::int_(c.integers[r]));
        } else if (c.type == sql::ValueType::kReal) {
          row.append(nb::float_(c.reals[r]));
        } else {
          const std::string_view text = c.TextAt(r);
          row.append(nb::str(text.data(), text.size()));
        }
      }
      rows.append(nb::tuple(row));
    }
    return rows;
  }

  std::vector<std::string> Columns() const {
    std::vector<std::string> names;
    for (const ResultColumn& c : result_->columns)
      names.push_back(c.name);
    return names;
  }

  RowCount Rows() const { return result_->rows; }

 private:
  std::shared_ptr<const QueryResult> result_;
};

class PyConnection {
 public:
  PyConnection(const std::string& device, const std::vector<std::string>& settings) {
    DeviceOptions options;
    options.selector = device;
    options.settings = settings;
    const QueryOptions query_options = ResolveOptions(options).query;
    engines_ = OpenEngines(options, SelectsSeveralDevices(options));
    std::vector<Engine*> engines;
    for (const std::unique_ptr<Engine>& engine : engines_)
      engines.push_back(engine.get());
    // One executor for the connection's life: what it learns of the
    // devices and the slices they hold serve the queries that follow.
    executor_ = std::make_unique<QueryExecutor>(std::move(engines), query_options);
  }

  void RegisterStream(const std::string& name, nb::handle capsule) {
    auto* stream = CapsuleStruct<ArrowArrayStream>(capsule, "arrow_array_stream");
    TablePtr table;
    {
      nb::gil_scoped_release unlocked;
      table = ImportArrowStream(name, stream);
    }
    catalog_.Add(std::move(table));
  }

  void RegisterArray(const std::string& name, nb::handle schema_capsule, nb::handle array_capsule) {
    auto* schema = CapsuleStruct<ArrowSchema>(schema_capsule, "arrow_schema");
    auto* array = CapsuleStruct<ArrowArray>(array_capsule, "arrow_array");
    TablePtr table;
    {
      nb::gil_scoped_release unlocked;
      table = ImportArrowArray(name, schema, array);
    }
    catalog_.Add(std::move(table));
  }

  PyResult Sql(const std::string& text) {
    sql::BoundStatement bound;
    try {
      bound = sql::Bind(sql::Parse(text), catalog_, text);
    } catch (const SqlError& error) {
      throw SqlError(sql::FormatSqlError(text, error));
    }
    QueryResult result;
    {
      nb::gil_scoped_release unlocked;
      if (bound.explain) {
        result = ExplainResult(executor_->Explain(bound.select));
      } else {
        result = executor_->Execute(bound.select);
      }
    }
    return PyResult(std::move(result));
  }

  std::vector<std::string> Tables() const { return catalog_.Names(); }
  // The device's name; with several, their names joined by ", ".
  std::string Device() const {
    std::string names;
    for (const std::unique_ptr<Engine>& engine : engines_)
      names += (names.empty() ? "" : ", ") + engine->info().name;
    return names;
  }

 private:
  // EXPLAIN's text as a result: one row per line.
  static QueryResult ExplainResult(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    ResultColumn column;
    column.name = "plan";
    column.type = sql::ValueType::kText;
    std::size_t width = 1;
    for (const std::string& line : lines)
      width = std::max(width, line.size());
    column.text_width = static_cast<std::uint32_t>(width);
    column.text.assign(lines.size() * width, '\0');
    for (std::size_t i = 0; i < lines.size(); ++i)
      std::copy(lines[i].begin(), lines[i].end(),
                column.text.begin() + static_cast<std::ptrdiff_t>(i * width));
    QueryResult result;
    result.rows = lines.size();
    result.columns.push_back(std::move(column));
    return result;
  }

  std::vector<std::unique_ptr<Engine>> engines_;
  std::unique_ptr<QueryExecutor> executor_;  // on engines_
  Catalog catalog_;
};

nb::list Devices() {
  nb::list devices;
  for (const DeviceHandle& handle : DiscoverDevices()) {
    const DeviceInfo& info = handle.info;
    nb::dict d;
    d["index"] = info.flat_index;
    d["selector"] = info.PairSelector();
    d["platform"] = info.platform_name;
    d["name"] = info.name;
    d["kind"] = DeviceKindName(info.kind);
    d["compute_units"] = info.compute_units;
    d["global_memory_bytes"] = info.global_mem_bytes;
    d["fp64"] = info.fp64;
    d["int64_atomics"] = info.int64_atomics;
    devices.append(d);
  }
  return devices;
}

// The partial query and the combine rule of `sql` over `partitioned`, one of
// `tables` (name -> an Arrow stream capsule of a table with its schema; the
// rows are not read beyond the schema's needs). clq/dask.py runs them.
nb::dict SplitForPartitions(const std::string& sql_text, nb::dict tables,
                            const std::string& partitioned) {
  Catalog catalog;
  for (auto [name, capsule] : tables) {
    const std::string table_name = nb::cast<std::string>(name);
    catalog.Add(ImportArrowStream(table_name,
                                  CapsuleStruct<ArrowArrayStream>(capsule, "arrow_array_stream")));
  }
  sql::PartitionPlan plan;
  try {
    plan = sql::SplitForPartitions(sql_text, catalog, partitioned);
  } catch (const SqlError& error) {
    throw SqlError(sql::FormatSqlError(sql_text, error));
  }
  static const char* const kCombine[] = {"rows", "key", "count", "sum", "min", "max", "avg"};
  nb::list outputs;
  for (const sql::PartitionPlan::Output& o : plan.outputs) {
    nb::dict d;
    d["name"] = o.name;
    d["combine"] = kCombine[static_cast<int>(o.combine)];
    d["column"] = "p" + std::to_string(o.column);
    d["count_column"] = "p" + std::to_string(o.count_column);
    d["visible"] = o.visible;
    outputs.append(d);
  }
  nb::list group_columns;
  for (std::size_t c : plan.group_columns)
    group_columns.append("p" + std::to_string(c));
  nb::list order_by;
  for (const auto& [output, descending] : plan.order_by)
    order_by.append(nb::make_tuple(output, descending));
  nb::dict result;
  result["partial_sql"] = plan.partial_sql;
  result["aggregated"] = plan.aggregated;
  result["distinct"] = plan.distinct;
  result["group_columns"] = group_columns;
  result["outputs"] = outputs;
  result["order_by"] = order_by;
  result["limit"] = plan.limit ? nb::object(nb::int_(*plan.limit)) : nb::none();
  result["offset"] = plan.offset;
  return result;
}

}  // namespace
}  // namespace clq

NB_MODULE(_clq, m) {
  using namespace clq;
  // Later translators are tried first: the base class goes first.
  nb::exception<Error> error(m, "Error");
  nb::exception<InvalidInputError> invalid_input(m, "InvalidInputError", error);
  nb::exception<FileError>(m, "FileError", invalid_input);
  nb::exception<SqlError>(m, "SqlError", error);
  nb::exception<DeviceLimitError>(m, "DeviceLimitError", error);
  nb::exception<InternalError>(m, "InternalError", error);

  nb::class_<PyResult>(m, "Result")
      .def("__arrow_c_stream__", &PyResult::ArrowStream, nb::arg("requested_schema") = nb::none())
      .def("fetchall", &PyResult::FetchAll)
      .def_prop_ro("columns", &PyResult::Columns)
      .def("__len__", &PyResult::Rows);

  nb::class_<PyConnection>(m, "Connection")
      .def(nb::init<const std::string&, const std::vector<std::string>&>(), nb::arg("device"),
           nb::arg("settings"))
      .def("register_stream", &PyConnection::RegisterStream)
      .def("register_array", &PyConnection::RegisterArray)
      .def("sql", &PyConnection::Sql)
      .def("tables", &PyConnection::Tables)
      .def_prop_ro("device", &PyConnection::Device);

  m.def("devices", &Devices);
  m.def("split_for_partitions", &SplitForPartitions, nb::arg("sql"), nb::arg("tables"),
        nb::arg("partitioned"));
}
