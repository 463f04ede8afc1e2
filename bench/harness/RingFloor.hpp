// bench/harness/RingFloor.hpp — the raw floor of one unit of work on one thread: a
// 16-byte {fn, arg} entry pushed on a ring, popped, and called through a
// pointer (floor/ring). The dispatch rows compare the loop's hop with it; the
// actor rows run a short round of it right after each of their rounds, on the
// same thread (so the same CPU, in the same minute), and report their cost in
// floors as well as in ns: a VM's vCPUs do not always run at one speed.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "harness/BenchSupport.hpp"
#include "harness/Results.hpp"

namespace coreactor::bench {

struct FloorEntry {
  void (*fn)(void*);
  void* arg;
};
static_assert(sizeof(FloorEntry) == 16, "the floor is measured on 16-byte entries");

// g++ 12 reads runFloorChain, inlined into a caller that owns the ring, as
// storing the address of its local chain in a ring that outlives the call
// (-Wdangling-pointer). The chain empties the ring before it returns, so no
// entry that points at it is popped again: a false positive, silenced for
// the ring's push only.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif

// A fixed ring of 64 entries. The chain holds one entry at a time, so it walks
// 1 KiB over and over, as the isolate's microtask ring does under hop/microtask.
class FloorRing {
 public:
  static constexpr std::size_t kCapacity = 64;

  bool empty() const noexcept { return head_ == tail_; }
  void push(FloorEntry entry) noexcept {
    // A real ring checks for room; keep that branch in the floor.
    if (tail_ - head_ == kCapacity) [[unlikely]] {
      std::abort();
    }
    slots_[tail_++ & (kCapacity - 1)] = entry;
  }
  FloorEntry pop() noexcept { return slots_[head_++ & (kCapacity - 1)]; }

 private:
  FloorEntry slots_[kCapacity] = {};
  std::size_t head_ = 0;
  std::size_t tail_ = 0;
};

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif

struct FloorChain {
  FloorRing* ring;
  std::int64_t ran;
  std::int64_t target;
};

// noinline, and called through a pointer the optimiser may not see through
// (DoNotOptimize below): the floor must pay for a real indirect call.
[[gnu::noinline]] inline void floorStep(void* arg) {
  FloorChain& chain = *static_cast<FloorChain*>(arg);
  if (++chain.ran < chain.target) chain.ring->push(FloorEntry{&floorStep, &chain});
}

/// Runs a chain of `hops` ring calls on `ring`; returns how many ran.
inline std::int64_t runFloorChain(FloorRing& ring, std::int64_t hops) {
  FloorChain chain{&ring, 0, hops};
  ring.push(FloorEntry{&floorStep, &chain});
  while (!ring.empty()) {
    FloorEntry entry = ring.pop();
    benchmark::DoNotOptimize(entry.fn);
    entry.fn(entry.arg);
  }
  return chain.ran;
}

/// One short round of the floor on this thread: ns per ring call, or 0 if
/// the chain did not run all its hops.
inline double floorNsNow(std::int64_t hops = 4096) {
  FloorRing ring;
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t ran = runFloorChain(ring, hops);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  if (ran != hops) return 0;
  return std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(hops);
}

/// Pairs each round of a single-threaded row with a short round of the
/// floor right after it, on the same thread, and reports the median of the
/// per-round ratios (row ns per op / floor ns per call) as the row's
/// kPairedFloorRatioCounter: the row's cost in ring floors of its own CPU
/// and minute, which the targets stated for a ~2.5 ns floor read.
class FloorPairing {
 public:
  /// Runs `round` (which returns whether it completed) and, if it did,
  /// the floor after it. Returns what `round` returned.
  template <class Round>
  bool run(std::int64_t ops, Round&& round) {
    const auto start = std::chrono::steady_clock::now();
    const bool ok = round();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (ok && ops > 0) {
      const double floor = floorNsNow();
      if (floor > 0) {
        ratios_.push_back(std::chrono::duration<double, std::nano>(elapsed).count() /
                          static_cast<double>(ops) / floor);
      }
    }
    return ok;
  }
  void report(benchmark::State& state) {
    if (!ratios_.empty() && !state.error_occurred()) {
      state.counters[kPairedFloorRatioCounter] = medianOfSamples(std::move(ratios_));
    }
  }

 private:
  std::vector<double> ratios_;
};

}  // namespace coreactor::bench
