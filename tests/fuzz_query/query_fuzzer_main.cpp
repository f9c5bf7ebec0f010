// query_fuzzer: a differential fuzzer of whole queries, in the manner of
// SQLsmith. Each round makes four random tables (fuzz_tables.hpp) and runs
// random queries over them (query_generator.hpp) on the CPU reference, on
// every device under test and on SQLite (differential_check.hpp). On a
// CPU device each query also runs on the GPU kernel variants (work groups
// of 128 x 8, small tablets), as CLQ_KERNEL_PATHS=gpu CLQ_WG_SIZE=128
// CLQ_IPT=8 would. A failing query is shrunk (shrink.hpp) and printed with
// its seed and number; the run then fails.
//
//   query_fuzzer [--seed N] [--seconds S] [--queries N] [--only Q]
//                [--devices SELECTOR] [--no-gpu-paths] [--max-failures N]
//                [--sql QUERY --round R]
//
// --seconds bounds the run (default 60), --queries the number of queries
// (default: no bound); --only Q reruns query Q of a seed alone; --sql checks
// one query (multiset comparison) over the tables of round R of the seed. Devices:
// --devices, else CLQ_TEST_DEVICES, else all. A run for longer:
//   build/tests/query_fuzzer --seed 7 --seconds 600
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "host/environment_options.hpp"
#include "runtime/device_info.hpp"
#include "runtime/device_selector.hpp"
#include "tests/fuzz_query/differential_check.hpp"
#include "tests/fuzz_query/query_generator.hpp"
#include "tests/fuzz_query/shrink.hpp"

namespace clq::fuzz_query {
namespace {

struct Settings {
  std::uint64_t seed = 1;
  double seconds = 60;
  std::uint64_t queries = UINT64_MAX;
  std::int64_t only = -1;
  std::string devices;
  bool gpu_paths = true;
  std::uint64_t max_failures = 3;
  std::uint64_t queries_per_round = 150;
  std::string sql;  // --sql: check this query alone, over round `round`'s tables
  std::uint64_t round = 0;
};

Settings ParseArguments(int argc, char** argv) {
  Settings s;
  const char* env_devices = std::getenv("CLQ_TEST_DEVICES");
  s.devices = env_devices != nullptr && *env_devices != '\0' ? env_devices : "all";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InvalidInputError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--seed")
      s.seed = std::stoull(value());
    else if (arg == "--seconds")
      s.seconds = std::stod(value());
    else if (arg == "--queries")
      s.queries = std::stoull(value());
    else if (arg == "--only")
      s.only = std::stoll(value());
    else if (arg == "--devices")
      s.devices = value();
    else if (arg == "--no-gpu-paths")
      s.gpu_paths = false;
    else if (arg == "--sql")
      s.sql = value();
    else if (arg == "--round")
      s.round = std::stoull(value());
    else if (arg == "--max-failures")
      s.max_failures = std::stoull(value());
    else
      throw InvalidInputError("unknown argument " + arg + " (see query_fuzzer_main.cpp)");
  }
  return s;
}

int RunFuzzer(const Settings& settings) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const std::vector<DeviceHandle> devices = DiscoverDevices();
  std::vector<DeviceInfo> infos;
  for (const DeviceHandle& d : devices)
    infos.push_back(d.info);
  const EngineOptions options = OptionsFromEnvironment().engine;
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<Target> targets = {{"cpu-reference", nullptr}};
  for (std::size_t index : ResolveDevices(settings.devices, infos)) {
    const DeviceHandle& device = devices.at(index);
    const std::string name = device.info.name + " #" + std::to_string(index);
    engines.push_back(std::make_unique<Engine>(device, options));
    targets.push_back({name, engines.back().get()});
    if (settings.gpu_paths && device.info.kind == DeviceKind::kCpu) {
      EngineOptions gpu = options;
      gpu.kernel_paths = KernelPaths::kGpu;
      gpu.work_group_size = 128;
      gpu.items_per_thread = 8;
      gpu.tablet_rows = 1500;  // larger tables span several tablets
      try {
        engines.push_back(std::make_unique<Engine>(device, gpu));
        targets.push_back(
            {name + " (gpu kernels 128x8, tablets of 1500 rows)", engines.back().get()});
      } catch (const clq::Error& e) {
        // A CPU device whose kernels cannot take 128 work-items (llvmpipe)
        // runs the CPU kernels only.
        std::cout << "query_fuzzer: " << name << ": no GPU-kernel engine (" << e.what() << ")\n";
      }
    }
  }
  DifferentialCheck check(targets);
  if (!settings.sql.empty()) {
    const std::uint64_t round_seed = settings.seed * 1000003 + settings.round;
    const std::vector<TableShape> shapes = RoundShapes(round_seed);
    std::vector<TablePtr> tables;
    for (std::size_t t = 0; t < shapes.size(); ++t)
      tables.push_back(MakeFuzzTable(shapes[t], round_seed * 31 + t));
    check.LoadTables(tables);
    const Verdict verdict = check.Check(settings.sql, false);
    std::cout << (verdict.failure.empty() ? "agrees" : verdict.failure + "\n  " + verdict.detail)
              << "\n";
    return verdict.failure.empty() ? 0 : 1;
  }
  std::uint64_t failures = 0, ran = 0, device_ran = 0, query_number = 0;
  for (std::uint64_t round = 0; query_number < settings.queries; ++round) {
    const std::uint64_t round_seed = settings.seed * 1000003 + round;
    const std::vector<TableShape> shapes = RoundShapes(round_seed);
    std::vector<TablePtr> tables;
    const bool wanted =
        settings.only < 0 ||
        (static_cast<std::uint64_t>(settings.only) >= query_number &&
         static_cast<std::uint64_t>(settings.only) < query_number + settings.queries_per_round);
    if (wanted) {
      for (std::size_t t = 0; t < shapes.size(); ++t)
        tables.push_back(MakeFuzzTable(shapes[t], round_seed * 31 + t));
      check.LoadTables(tables);
    }
    QueryGenerator generator(shapes, round_seed ^ 0x9e3779b97f4a7c15ULL);
    for (std::uint64_t i = 0; i < settings.queries_per_round; ++i, ++query_number) {
      const Query query = generator.Next();
      if (settings.only >= 0 && query_number != static_cast<std::uint64_t>(settings.only)) continue;
      if (query_number >= settings.queries || elapsed() > settings.seconds) break;
      ++ran;
      const Verdict verdict = check.Check(query.Sql(), query.Ordered());
      device_ran += verdict.device_ran ? 1 : 0;
      if (verdict.failure.empty()) continue;
      ++failures;
      const Query minimal = Shrink(
          query,
          [&](const Query& q) {
            return check.Check(q.Sql(), q.Ordered()).failure == verdict.failure;
          },
          600);
      const Verdict minimal_verdict = check.Check(minimal.Sql(), minimal.Ordered());
      std::cout << "FAILURE seed " << settings.seed << " query " << query_number << " round "
                << round << " (rerun: --seed " << settings.seed << " --only " << query_number
                << ")\n"
                << "  " << verdict.failure << "\n  query:   " << query.Sql()
                << "\n  minimal: " << minimal.Sql() << "\n  " << minimal_verdict.detail << "\n";
      if (failures >= settings.max_failures) break;
    }
    if (failures >= settings.max_failures || elapsed() > settings.seconds ||
        (settings.only >= 0 && query_number > static_cast<std::uint64_t>(settings.only)))
      break;
  }
  std::cout << "query_fuzzer: seed " << settings.seed << ", " << ran << " queries in "
            << static_cast<int>(elapsed()) << " s on " << targets.size() << " targets, "
            << device_ran << " ran on a device, " << failures << " failed\n";
  for (const auto& [what, count] : check.documented())
    std::cout << "  documented difference, not compared: " << count << " x " << what << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace clq::fuzz_query

int main(int argc, char** argv) {
  try {
    return clq::fuzz_query::RunFuzzer(clq::fuzz_query::ParseArguments(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "query_fuzzer: " << e.what() << "\n";
    return 2;
  }
}
