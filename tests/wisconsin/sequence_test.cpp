// The unique1 sequence: parameters, modular arithmetic, permutations, and the
// parallel driver against a naive loop.
#include "wisconsin/sequence.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "common/errors.hpp"
#include "tests/wisconsin/naive_wisconsin.hpp"
#include "wisconsin/modular.hpp"

namespace clq {
namespace {

// Every unique1 in 0..n-1 exactly once.
void ExpectPermutation(const std::vector<std::int32_t>& values, RowCount n) {
  ASSERT_EQ(values.size(), n);
  std::vector<bool> seen(n, false);
  for (std::int32_t v : values) {
    ASSERT_GE(v, 0);
    ASSERT_LT(static_cast<RowCount>(v), n);
    ASSERT_FALSE(seen[static_cast<std::size_t>(v)]) << "duplicate " << v;
    seen[static_cast<std::size_t>(v)] = true;
  }
}

std::vector<std::int32_t> Unique1(RowCount n, unsigned threads = 0) {
  std::vector<std::int32_t> out(n);
  GenerateOptions options;
  options.threads = threads;
  GenerateUnique1(WisconsinParameters(n), n, out, options);
  return out;
}

TEST(SequenceTest, GrayParametersByTier) {
  struct Case {
    RowCount n;
    std::uint64_t generator, prime;
  };
  for (const Case& c :
       {Case{0, 279, 1009}, Case{1000, 279, 1009}, Case{1001, 2969, 10007},
        Case{10000, 2969, 10007}, Case{10001, 21395, 100003}, Case{100000, 21395, 100003},
        Case{1000000, 2107, 1000003}, Case{10000000, 211, 10000019}, Case{100000000, 21, 100000007},
        Case{100000001, 48279, 1000000007}, Case{1000000000, 48279, 1000000007},
        Case{1000000001, 48279, 2147483659}, Case{kMaxWisconsinRows, 48279, 2147483659}}) {
    const SequenceParameters p = WisconsinParameters(c.n);
    EXPECT_EQ(p.generator, c.generator) << c.n;
    EXPECT_EQ(p.prime, c.prime) << c.n;
  }
  EXPECT_THROW(WisconsinParameters(kMaxWisconsinRows + 1), InvalidInputError);
}

// Every tier's prime exceeds its largest N and its generator is a primitive
// root (checked by factoring p-1), so every N gets a permutation; this is
// the proof for the tiers above 100M rows, too large to enumerate in a test.
TEST(SequenceTest, EveryTierIsAPrimeWithAPrimitiveRoot) {
  for (RowCount n :
       {RowCount{1000}, RowCount{10000}, RowCount{100000}, RowCount{1000000}, RowCount{10000000},
        RowCount{100000000}, RowCount{1000000000}, kMaxWisconsinRows}) {
    const SequenceParameters p = WisconsinParameters(n);
    EXPECT_GT(p.prime, n);
    EXPECT_TRUE(IsPrime(p.prime)) << p.prime;
    EXPECT_TRUE(IsPrimitiveRoot(p.generator, p.prime)) << p.generator << " mod " << p.prime;
  }
  EXPECT_EQ(PrimeFactors(2147483658), (std::vector<std::uint64_t>{2, 3, 149, 2402107}));
  EXPECT_EQ(PrimeFactors(1000000006), (std::vector<std::uint64_t>{2, 500000003}));
  // Not primitive: 4 is a square, so its powers are only the quadratic residues.
  EXPECT_FALSE(IsPrimitiveRoot(4, 1009));
  EXPECT_FALSE(IsPrimitiveRoot(2, 1000));
}

TEST(SequenceTest, ModMultiplierMatchesDivision) {
  std::mt19937_64 random(42);
  for (std::uint64_t p : {std::uint64_t{3}, std::uint64_t{1009}, std::uint64_t{1000000007},
                          std::uint64_t{2147483659}, std::uint64_t{4294967291}}) {
    const ModMultiplier mul(p);
    std::uniform_int_distribution<std::uint64_t> value(0, p - 1);
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t a = value(random), b = value(random);
      ASSERT_EQ(mul(a, b), a * b % p) << a << " * " << b << " mod " << p;
    }
    EXPECT_EQ(mul(p - 1, p - 1), 1u);
    EXPECT_EQ(PowMod(mul, 7, 0), 1u % p);
  }
  const ModMultiplier mul(1009);
  std::uint64_t power = 1;
  for (std::uint64_t e = 0; e < 3000; ++e) {
    ASSERT_EQ(PowMod(mul, 279, e), power) << e;
    power = power * 279 % 1009;
  }
}

TEST(SequenceTest, PermutationForSizesAroundTierEdges) {
  for (RowCount n : {RowCount{0}, RowCount{1}, RowCount{2}, RowCount{999}, RowCount{1000},
                     RowCount{1001}, RowCount{100000}, RowCount{1000001}}) {
    SCOPED_TRACE(n);
    ExpectPermutation(Unique1(n), n);
  }
}

TEST(SequenceTest, GoldenFirstValues) {
  const std::vector<std::int32_t> n10000 = Unique1(10000);
  EXPECT_EQ(std::vector<std::int32_t>(n10000.begin(), n10000.begin() + 5),
            (std::vector<std::int32_t>{8800, 1891, 3420, 9850, 7164}));
  const std::vector<std::int32_t> n100 = Unique1(100);
  EXPECT_EQ(std::vector<std::int32_t>(n100.begin(), n100.begin() + 5),
            (std::vector<std::int32_t>{69, 9, 86, 56, 65}));
}

// The parallel driver (chunks, jump-ahead, prefix sums, lanes) gives exactly
// the naive loop's sequence for any thread count, including more threads
// than the tiny sequences have steps per chunk.
TEST(SequenceTest, AnyThreadCountMatchesNaiveLoop) {
  for (RowCount n : {RowCount{1}, RowCount{7}, RowCount{100}, RowCount{1000}, RowCount{1001},
                     RowCount{9999}, RowCount{54321}, RowCount{1000000}}) {
    const std::vector<std::int32_t> expected = testing::NaiveUnique1(n);
    for (unsigned threads : {0u, 1u, 2u, 3u, 7u, 16u}) {
      ASSERT_EQ(Unique1(n, threads), expected) << "n=" << n << " threads=" << threads;
    }
  }
}

TEST(SequenceTest, OtherParametersAlsoGivePermutations) {
  // Small primes with primitive roots: nearly every step is accepted, or
  // very few are.
  for (const SequenceParameters params :
       {SequenceParameters{2, 11}, SequenceParameters{3, 7}, SequenceParameters{5, 23},
        SequenceParameters{48272, 1000003}}) {
    ASSERT_TRUE(IsPrimitiveRoot(params.generator, params.prime));
    for (RowCount n : {RowCount{1}, params.prime / 2, params.prime - 1}) {
      std::vector<std::int32_t> out(n);
      GenerateOptions options;
      options.threads = 3;
      GenerateUnique1(params, n, out, options);
      ExpectPermutation(out, n);
      EXPECT_EQ(out, testing::NaiveUnique1(n, params));
    }
  }
}

TEST(SequenceTest, PrefixAndBlocks) {
  const RowCount n = 100000;
  const std::vector<std::int32_t> all = testing::NaiveUnique1(n);
  std::mutex mutex;
  std::vector<std::int32_t> prefix(1234, -1);
  std::vector<int> hits(prefix.size(), 0);
  GenerateOptions options;
  options.threads = 4;
  ProduceUnique1(WisconsinParameters(n), n, prefix.size(), options, "t",
                 [&](RowCount first, std::span<const std::uint32_t> values) {
                   std::lock_guard lock(mutex);
                   ASSERT_LE(first + values.size(), prefix.size());
                   for (std::size_t i = 0; i < values.size(); ++i) {
                     prefix[first + i] = static_cast<std::int32_t>(values[i]);
                     ++hits[first + i];
                   }
                 });
  EXPECT_EQ(prefix, std::vector<std::int32_t>(all.begin(), all.begin() + 1234));
  EXPECT_EQ(hits, std::vector<int>(prefix.size(), 1));
}

TEST(SequenceTest, ProgressReportsCompletionFromTheCallingThread) {
  const auto caller = std::this_thread::get_id();
  RowCount last_done = 0, last_total = 0;
  int calls = 0;
  GenerateOptions options;
  options.threads = 2;
  options.progress = [&](std::string_view table, RowCount done, RowCount total) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(table, "unique1");
    EXPECT_LE(done, total);
    EXPECT_GE(done, last_done);
    last_done = done;
    last_total = total;
    ++calls;
  };
  std::vector<std::int32_t> out(50000);
  GenerateUnique1(WisconsinParameters(out.size()), out.size(), out, options);
  EXPECT_GE(calls, 1);
  EXPECT_EQ(last_done, 50000u);
  EXPECT_EQ(last_total, 50000u);
}

// Too slow for the suite (1e9 raw steps, 400 MB); run by hand with
// --gtest_also_run_disabled_tests on a Release build.
TEST(SequenceTest, DISABLED_PermutationAbove100MRows) {
  const RowCount n = 100000001;
  ExpectPermutation(Unique1(n), n);
}

}  // namespace
}  // namespace clq
