#include "wisconsin/sequence.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/errors.hpp"
#include "wisconsin/modular.hpp"

namespace clq {
namespace {

struct Tier {
  RowCount max_rows;
  SequenceParameters params;
};

// Gray et al.'s tiers up to 100M rows. Beyond, 1,000,000,007 and 2^31 + 11 =
// 2,147,483,659 (the first prime above 2^31, so every N up to 2^31-1 fits),
// with generator 48279, a primitive root of both (p-1 = 2 * 500000003 and
// 2 * 3 * 149 * 2402107; wisconsin tests check it). A large generator rather
// than the smallest root (5, 2) keeps consecutive rows from being simple
// multiples of each other. Two tiers rather than one keep the raw steps per
// output row at most ~10, as in Gray's tiers.
constexpr Tier kTiers[] = {
    {1000, {279, 1009}},
    {10000, {2969, 10007}},
    {100000, {21395, 100003}},
    {1000000, {2107, 1000003}},
    {10000000, {211, 10000019}},
    {100000000, {21, 100000007}},
    {1000000000, {48279, 1000000007}},
    {kMaxWisconsinRows, {48279, 2147483659}},
};

constexpr unsigned kLanes = 8;
// Steps walked between two hand-offs to the sink: 32 KiB of unique1, which
// stays in L1/L2 while the sink derives the other columns from it.
constexpr std::uint64_t kSegmentSteps = 8192;
static_assert(kSegmentSteps % kLanes == 0);
// Below this many raw steps per thread, extra threads cost more than they save.
constexpr std::uint64_t kMinStepsPerThread = 1 << 18;
constexpr unsigned kChunksPerThread = 4;
constexpr unsigned kMaxThreads = 256;

// Walks the seeds of raw steps [begin, end) in order, kLanes at a time.
class StepWalker {
 public:
  StepWalker(const ModMultiplier& mul, std::uint64_t generator, std::uint64_t begin,
             std::uint64_t end)
      : mul_(mul), jump_(PowMod(mul, generator, kLanes)), remaining_(end - begin) {
    std::uint64_t seed = PowMod(mul, generator, begin + 1);
    for (std::uint64_t& lane : lanes_) {
      lane = seed;
      seed = mul(seed, generator);
    }
  }

  bool done() const { return remaining_ == 0; }

  // Visits the seeds of the next min(max_steps, remaining) steps
  // (REQUIRES: max_steps is a multiple of kLanes or covers all remaining
  // steps, so that a partial group of lanes only happens at the end).
  template <typename Visit>
  void Next(std::uint64_t max_steps, Visit&& visit) {
    const std::uint64_t count = std::min(max_steps, remaining_);
    for (std::uint64_t group = 0; group < count / kLanes; ++group) {
      for (std::uint64_t& lane : lanes_) {
        visit(lane);
        lane = mul_(lane, jump_);
      }
    }
    for (std::uint64_t j = 0; j < count % kLanes; ++j)
      visit(lanes_[j]);
    remaining_ -= count;
  }

 private:
  ModMultiplier mul_;
  std::uint64_t jump_;
  std::uint64_t remaining_;
  std::uint64_t lanes_[kLanes];
};

// Runs task(0 .. tasks-1) on `threads` threads; when `tick` is set, the
// calling thread calls it every 100 ms and once at the end. The first
// exception of a task stops the remaining tasks and is rethrown.
void RunTasks(unsigned threads, std::size_t tasks, const std::function<void(std::size_t)>& task,
              const std::function<void()>& tick) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::condition_variable finished;
  unsigned running = threads;
  std::exception_ptr error;
  auto worker = [&] {
    for (std::size_t i = next++; i < tasks; i = next++) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        next = tasks;
      }
    }
    std::lock_guard lock(mutex);
    --running;
    finished.notify_all();
  };
  {
    std::vector<std::jthread> pool;
    const unsigned spawned = tick ? threads : threads - 1;
    for (unsigned t = 0; t < spawned; ++t)
      pool.emplace_back(worker);
    if (tick) {
      // Exactly one tick after the last task, so it reports completion.
      for (bool all_done = false; !all_done;) {
        {
          std::unique_lock lock(mutex);
          all_done =
              finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; });
        }
        tick();
      }
    } else {
      worker();
    }
  }
  if (error) std::rethrow_exception(error);
}

unsigned ChooseThreads(const GenerateOptions& options, std::uint64_t steps) {
  if (options.threads > 0) return std::min(options.threads, kMaxThreads);
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t useful = std::max<std::uint64_t>(1, steps / kMinStepsPerThread);
  return static_cast<unsigned>(std::min<std::uint64_t>(hardware, useful));
}

}  // namespace

SequenceParameters WisconsinParameters(RowCount n) {
  for (const Tier& tier : kTiers)
    if (n <= tier.max_rows) return tier.params;
  throw InvalidInputError("a Wisconsin table holds at most " + std::to_string(kMaxWisconsinRows) +
                          " rows, not " + std::to_string(n));
}

void ProduceUnique1(SequenceParameters params, RowCount n, RowCount limit,
                    const GenerateOptions& options, std::string_view table,
                    const Unique1Sink& sink) {
  CLQ_CHECK(limit <= n && n < params.prime && params.prime <= 0xFFFFFFFFull &&
                params.generator > 1 && params.generator < params.prime,
            "bad unique1 sequence parameters");
  if (limit == 0) {
    if (options.progress) options.progress(table, 0, 0);
    return;
  }
  const ModMultiplier mul(params.prime);
  const std::uint64_t steps = params.prime - 1;
  const unsigned threads = ChooseThreads(options, steps);
  const std::size_t chunks = threads == 1 ? 1 : std::size_t{threads} * kChunksPerThread;
  // Chunk c walks raw steps [step_begin[c], step_begin[c + 1]).
  std::vector<std::uint64_t> step_begin(chunks + 1);
  for (std::size_t c = 0; c <= chunks; ++c)
    step_begin[c] = 1 + steps * c / chunks;

  // Pass 1: accepted seeds per chunk, then each chunk's first row.
  std::vector<RowCount> first_row(chunks + 1, 0);
  RunTasks(
      threads, chunks,
      [&](std::size_t c) {
        StepWalker walker(mul, params.generator, step_begin[c], step_begin[c + 1]);
        RowCount accepted = 0;
        walker.Next(steps, [&](std::uint64_t seed) { accepted += seed <= n; });
        first_row[c + 1] = accepted;
      },
      nullptr);
  for (std::size_t c = 0; c < chunks; ++c)
    first_row[c + 1] += first_row[c];
  CLQ_CHECK(first_row[chunks] == n, "generator " + std::to_string(params.generator) +
                                        " is not a primitive root of " +
                                        std::to_string(params.prime));

  // Pass 2: the accepted seeds of each chunk, in blocks, up to `limit`.
  std::atomic<RowCount> produced{0};
  std::function<void()> tick;
  if (options.progress) tick = [&] { options.progress(table, produced.load(), limit); };
  RunTasks(
      threads, chunks,
      [&](std::size_t c) {
        RowCount row = first_row[c];
        if (row >= limit) return;
        std::vector<std::uint32_t> block(kSegmentSteps);
        StepWalker walker(mul, params.generator, step_begin[c], step_begin[c + 1]);
        while (!walker.done() && row < limit) {
          std::size_t count = 0;
          // Branch-free: every seed is written, only accepted ones advance
          // `count` (acceptance is unpredictable, ~N/p of the seeds).
          walker.Next(kSegmentSteps, [&](std::uint64_t seed) {
            block[count] = static_cast<std::uint32_t>(seed - 1);
            count += seed <= n;
          });
          count = static_cast<std::size_t>(std::min<RowCount>(count, limit - row));
          if (count > 0) sink(row, std::span<const std::uint32_t>(block.data(), count));
          row += count;
          produced += count;
        }
      },
      tick);
}

void GenerateUnique1(SequenceParameters params, RowCount n, std::span<std::int32_t> out,
                     const GenerateOptions& options) {
  CLQ_CHECK(out.size() == n, "unique1 output of the wrong size");
  ProduceUnique1(params, n, n, options, "unique1",
                 [&](RowCount first_row, std::span<const std::uint32_t> values) {
                   for (std::size_t i = 0; i < values.size(); ++i)
                     out[first_row + i] = static_cast<std::int32_t>(values[i]);
                 });
}

}  // namespace clq
