// The unique1 sequence of the Wisconsin benchmark (Gray et al., "Quickly
// generating billion-record synthetic databases", SIGMOD 1994) and the
// parallel driver that produces it.
//
// For N rows pick a prime p > N and a primitive root g of p. Starting from
// seed = g, each row repeats seed = g * seed mod p until seed <= N, and emits
// unique1 = seed - 1. Raw step k (k = 1 .. p-1) has seed g^(k+1) mod p; since
// g is a primitive root these visit 1 .. p-1 once each, so the accepted seeds
// are a permutation of 1 .. N.
//
// Parallel production, two passes over the raw steps: the steps are split
// into equal chunks; pass 1 counts each chunk's accepted seeds (each chunk
// jumps to its first seed with one modular exponentiation); an exclusive
// prefix sum of the counts gives each chunk's first output row; pass 2 walks
// the chunks again and hands the accepted values, in blocks of consecutive
// rows, to a sink. Within a chunk, kLanes interleaved sub-sequences (stepping
// by g^kLanes) hide the latency of the multiply-reduce chain.
//
// Thread-safety: the functions are reentrant; the sink is called concurrently
// from worker threads (for disjoint row ranges); the progress callback only
// from the calling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "common/host_memory.hpp"
#include "common/types.hpp"

namespace clq {

// The largest N: unique1 and unique2 are INT32 columns.
inline constexpr RowCount kMaxWisconsinRows = 2147483647;

struct SequenceParameters {
  std::uint64_t generator = 0;
  std::uint64_t prime = 0;
};

// Gray et al.'s (generator, prime) for N up to 100M rows; beyond, primes of
// our own choosing (see sequence.cpp). Throws InvalidInputError for
// N > kMaxWisconsinRows.
SequenceParameters WisconsinParameters(RowCount n);

// Reports rows produced so far of `total` for the table `table`; called from
// the generating thread only, a few times per second and once at the end.
using ProgressCallback = std::function<void(std::string_view table, RowCount done, RowCount total)>;

struct GenerateOptions {
  // Worker threads; 0 picks std::thread::hardware_concurrency(), fewer for
  // small N. Any count gives the same rows.
  unsigned threads = 0;
  ProgressCallback progress;  // may be empty
  // The host-memory budget a generated table must fit, with what tables
  // hold already (common/host_memory.hpp); checked before allocating.
  std::uint64_t host_memory = kUnlimitedHostMemory;
};

// Receives unique1 (0-based) of rows [first_row, first_row + values.size()).
using Unique1Sink = std::function<void(RowCount first_row, std::span<const std::uint32_t> values)>;

// Produces rows [0, limit) of the unique1 sequence for N = n with the given
// parameters (REQUIRES: limit <= n < prime < 2^32, generator a primitive root
// of prime), calling `sink` on worker threads for blocks of consecutive rows;
// every row reaches the sink exactly once. `table` only labels progress.
void ProduceUnique1(SequenceParameters params, RowCount n, RowCount limit,
                    const GenerateOptions& options, std::string_view table,
                    const Unique1Sink& sink);

// unique1 of all n rows into `out` (REQUIRES: out.size() == n).
void GenerateUnique1(SequenceParameters params, RowCount n, std::span<std::int32_t> out,
                     const GenerateOptions& options = {});

}  // namespace clq
