// Query results downloaded into pinned blocks of the engine's result pool:
// each equals the same query's result through staging, INT32 values are
// widened on the device (widen_int32) into an INTEGER column, DOUBLE values
// go as they are, TEXT and empty results take no block, a freed result's
// block serves the next query, and a result outlives its engine. The pool's
// blocks are small here (a minimum of 4 KiB) so that results of 10,000 rows
// use them on every device, CPUs included (pinned_results forces the pool
// on where it would be off). Arrow lends the blocks as they are.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "arrow/arrow_export.hpp"
#include "operators/device_vector.hpp"
#include "operators/pinned_result_download.hpp"
#include "operators/result_builder.hpp"
#include "operators/query_result.hpp"
#include "plan/query_executor.hpp"
#include "runtime/engine.hpp"
#include "runtime/pinned_result_pool.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "storage/catalog.hpp"
#include "tests/support/device_fixture.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

constexpr RowCount kRows = 10000;
constexpr std::uint64_t kMinimum = std::uint64_t{4} << 10;
constexpr std::uint64_t kGranule = std::uint64_t{64} << 10;

std::shared_ptr<PinnedResultPool> SmallPool(const Engine& engine, std::uint64_t kept_bytes) {
  return std::make_shared<PinnedResultPool>(engine.context(), engine.device(), kept_bytes, kMinimum,
                                            kGranule);
}

// Installs a pool of small blocks on `engine` for one scope, then puts back
// the engine's own.
class ScopedResultPool {
 public:
  ScopedResultPool(Engine& engine, std::shared_ptr<PinnedResultPool> pool)
      : engine_(engine), previous_(engine.result_pool()) {
    engine_.set_result_pool(std::move(pool));
  }
  ~ScopedResultPool() { engine_.set_result_pool(std::move(previous_)); }
  ScopedResultPool(const ScopedResultPool&) = delete;
  ScopedResultPool& operator=(const ScopedResultPool&) = delete;

 private:
  Engine& engine_;
  std::shared_ptr<PinnedResultPool> previous_;
};

class PinnedResultDownloadTest : public DeviceTest {
 protected:
  PinnedResultDownloadTest() { AddWisconsinTables(catalog_, kRows); }


  QueryResult Run(Engine& engine, const std::string& sql) {
    const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog_, sql);
    return QueryExecutor(engine, {}).Execute(bound.select);
  }

  // `sql` through staging (no pool), the reference the pinned runs must equal.
  QueryResult Staged(const std::string& sql) {
    const ScopedResultPool none(engine(), nullptr);
    return Run(engine(), sql);
  }

  // `sql` with `pool` installed, recording the kernels it launched.
  QueryResult Pinned(const std::string& sql, std::shared_ptr<PinnedResultPool> pool,
                     std::set<std::string>* launched = nullptr) {
    const ScopedResultPool installed(engine(), std::move(pool));
    if (launched != nullptr)
      engine().SetLaunchObserver([launched](std::string_view k) { launched->emplace(k); });
    QueryResult result = Run(engine(), sql);
    engine().SetLaunchObserver({});
    return result;
  }

  Catalog catalog_;
};

TEST_P(PinnedResultDownloadTest, Int32ValuesAreWidenedOnTheDevice) {
  const std::string sql = "SELECT unique1 + unique2 FROM tenktup1";
  const auto pool = SmallPool(engine(), 16 * kGranule);
  std::set<std::string> launched;
  const QueryResult pinned = Pinned(sql, pool, &launched);
  EXPECT_EQ(CompareResults(Staged(sql), pinned), "");
  EXPECT_TRUE(launched.contains("widen_int32"));
  ASSERT_EQ(pinned.rows, kRows);
  EXPECT_TRUE(pool->Lent(pinned.columns[0].integers.data()));
  EXPECT_EQ(pool->stats().lent_blocks, 1u);
}

TEST_P(PinnedResultDownloadTest, Int64AndRealValuesGoAsTheyAre) {
  CLQ_SKIP_REAL_WITHOUT_FP64(engine());
  for (const std::string query :
       {"SELECT unique1 * 4294967296, unique2 FROM tenktup1 WHERE ten < 7",
        "SELECT unique1 * 0.5, unique2 / 3.0 FROM tenktup1"}) {
    const auto pool = SmallPool(engine(), 16 * kGranule);
    const QueryResult pinned = Pinned(query, pool);
    EXPECT_EQ(CompareResults(Staged(query), pinned), "") << query;
    ASSERT_EQ(pinned.columns.size(), 2u);
    for (const ResultColumn& column : pinned.columns) {
      const void* data = column.type == sql::ValueType::kReal
                             ? static_cast<const void*>(column.reals.data())
                             : static_cast<const void*>(column.integers.data());
      EXPECT_TRUE(pool->Lent(data)) << query << ", column " << column.name;
    }
    EXPECT_EQ(pool->stats().lent_blocks, 2u) << query;
  }
}

// NULLs (division by zero) come in their own map beside the pinned values.
TEST_P(PinnedResultDownloadTest, NullsStayBesideThePinnedValues) {
  const std::string sql = "SELECT unique1 / (ten - 3) FROM tenktup1";
  const auto pool = SmallPool(engine(), 16 * kGranule);
  const QueryResult pinned = Pinned(sql, pool);
  EXPECT_EQ(CompareResults(Staged(sql), pinned), "");
  EXPECT_FALSE(pinned.columns[0].nulls.empty());
  EXPECT_EQ(pool->stats().lent_blocks, 1u);
}

// Many groups' keys are downloaded like any other column.
TEST_P(PinnedResultDownloadTest, GroupKeys) {
  const std::string sql = "SELECT unique2, COUNT(*) FROM tenktup1 GROUP BY unique2";
  const auto pool = SmallPool(engine(), 16 * kGranule);
  const QueryResult pinned = Pinned(sql, pool);
  EXPECT_EQ(CompareResults(Staged(sql), pinned, {.ignore_row_order = true}), "");
  EXPECT_TRUE(pool->Lent(pinned.columns[0].integers.data()));
}

TEST_P(PinnedResultDownloadTest, TextAndEmptyResultsTakeNoBlock) {
  for (const std::string query : {"SELECT stringu1, string4 FROM tenktup1 WHERE ten < 5",
                                  "SELECT unique1 + unique2 FROM tenktup1 WHERE unique1 < 0",
                                  "SELECT unique1 + unique2 FROM tenktup1 WHERE unique1 < 100"}) {
    const auto pool = SmallPool(engine(), 16 * kGranule);
    const QueryResult pinned = Pinned(query, pool);
    EXPECT_EQ(CompareResults(Staged(query), pinned), "") << query;
    EXPECT_EQ(pool->stats().pinned, 0u) << query << ": text, no rows, or below the minimum";
  }
}

TEST_P(PinnedResultDownloadTest, AFreedResultsBlockServesTheNextQuery) {
  const std::string sql = "SELECT unique1 + unique2 FROM tenktup1 WHERE ten < 9";
  const auto pool = SmallPool(engine(), 16 * kGranule);
  const QueryResult expected = Staged(sql);
  const void* first_block = nullptr;
  {
    const QueryResult first = Pinned(sql, pool);
    first_block = first.columns[0].integers.data();
    EXPECT_EQ(CompareResults(expected, first), "");
  }
  EXPECT_EQ(pool->stats().free_blocks, 1u);
  const QueryResult second = Pinned(sql, pool);
  EXPECT_EQ(CompareResults(expected, second), "");
  EXPECT_EQ(second.columns[0].integers.data(), first_block);
  const PinnedResultPool::Stats stats = pool->stats();
  EXPECT_EQ(stats.pinned, 1u);
  EXPECT_EQ(stats.reused, 1u);
}

TEST_P(PinnedResultDownloadTest, BlocksPastTheCapAreUnpinned) {
  const std::string sql = "SELECT unique1 + unique2 FROM tenktup1";
  const auto pool = SmallPool(engine(), 0);
  (void)Pinned(sql, pool);
  (void)Pinned(sql, pool);
  const PinnedResultPool::Stats stats = pool->stats();
  EXPECT_EQ(stats.pinned, 2u);
  EXPECT_EQ(stats.reused, 0u);
  EXPECT_EQ(stats.unpinned, 2u);
  EXPECT_EQ(stats.free_blocks, 0u);
}

// A result keeps its block, and the block its pool and context, after the
// engine that downloaded it is gone (Python results outlive connections).
TEST_P(PinnedResultDownloadTest, AResultOutlivesItsEngine) {
  const std::string sql = "SELECT unique1 + unique2 FROM tenktup1";
  const QueryResult expected = Staged(sql);
  std::weak_ptr<PinnedResultPool> pool;
  QueryResult result;
  {
    EngineOptions options = TestEngineOptions();
    options.pinned_results = Choice::kOn;
    Engine own(TestDevice(GetParam()), options);
    ASSERT_NE(own.result_pool(), nullptr);
    own.set_result_pool(SmallPool(own, 16 * kGranule));
    pool = own.result_pool();
    result = Run(own, sql);
    EXPECT_TRUE(own.result_pool()->Lent(result.columns[0].integers.data()));
  }
  ASSERT_FALSE(pool.expired());
  EXPECT_EQ(CompareResults(expected, result), "");
  result = QueryResult();
  EXPECT_TRUE(pool.expired());
}

// Under a device-memory cap with no room left for the buffer INT32 values
// are widened in, the result takes the staging path, with the same values.
TEST_P(PinnedResultDownloadTest, NoRoomToWidenFallsBackToStaging) {
  EngineOptions options = TestEngineOptions();
  options.pinned_results = Choice::kOn;
  options.device_memory = std::uint64_t{1} << 20;
  Engine capped(TestDevice(GetParam()), options);
  capped.set_result_pool(SmallPool(capped, 16 * kGranule));
  std::vector<std::int32_t> values(40000);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<std::int32_t>(i * 7919 % 100003) - 50000;
  const DeviceVector vector = UploadValues(capped, ColumnType::Int32(), values);
  // What the cap has left: less than the 256 KiB widening buffer.
  std::vector<DeviceBuffer> held;
  while (capped.pool().live_bytes() + (std::uint64_t{192} << 10) <= (std::uint64_t{1} << 20))
    held.push_back(capped.pool().Acquire(std::uint64_t{128} << 10, "held"));
  ResultColumn pinned;
  pinned.type = sql::ValueType::kInteger;
  EXPECT_FALSE(DownloadIntoPinnedResult(capped, pinned, vector));
  const ResultColumn column = DownloadResultColumn(capped, "v", sql::ValueType::kInteger, vector);
  ASSERT_EQ(column.integers.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(column.integers[i], values[i]) << i;
  EXPECT_FALSE(capped.result_pool()->Lent(column.integers.data()));
}

// Arrow lends the pinned block itself, and the block lives while Arrow
// holds it.
TEST_P(PinnedResultDownloadTest, ArrowLendsThePinnedBlock) {
  const auto pool = SmallPool(engine(), 16 * kGranule);
  auto result =
      std::make_shared<const QueryResult>(Pinned("SELECT unique1 + unique2 FROM tenktup1", pool));
  const void* block = result->columns[0].integers.data();
  ASSERT_TRUE(pool->Lent(block));
  ArrowArrayStream stream{};
  ExportArrowStream(std::move(result), &stream);
  ArrowArray batch{};
  ASSERT_EQ(stream.get_next(&stream, &batch), 0);
  stream.release(&stream);
  ASSERT_EQ(batch.n_children, 1);
  EXPECT_EQ(batch.children[0]->buffers[1], block);
  EXPECT_TRUE(pool->Lent(block)) << "the batch holds the result";
  batch.release(&batch);
  EXPECT_FALSE(pool->Lent(block));
}

// EXPLAIN lists the widening where the engine has a pool.
TEST_P(PinnedResultDownloadTest, ThePlanListsTheWidening) {
  const std::string sql = "SELECT unique1 + unique2 FROM tenktup1";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog_, sql);
  {
    const ScopedResultPool installed(engine(), SmallPool(engine(), 0));
    EXPECT_NE(QueryExecutor(engine(), {}).Explain(bound.select).find("widen_int32"),
              std::string::npos);
  }
  const ScopedResultPool none(engine(), nullptr);
  EXPECT_EQ(QueryExecutor(engine(), {}).Explain(bound.select).find("widen_int32"),
            std::string::npos);
}

CLQ_INSTANTIATE_DEVICE_TESTS(PinnedResultDownloadTest);

}  // namespace
}  // namespace clq
