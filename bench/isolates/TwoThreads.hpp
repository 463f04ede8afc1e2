// bench/isolates/TwoThreads.hpp — the two threads of a floor or a transport
// row, started together on their CPUs (bench/isolates/Pinning.hpp), each
// waiting for the other by spinning politely; and the loop of a row whose
// every round is one such run.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <thread>

#include "coreactor/detail/CpuRelax.hpp"
#include "harness/BenchSupport.hpp"
#include "isolates/Families.hpp"
#include "isolates/Pinning.hpp"

namespace coreactor::bench::isolates {

/// A busy-wait step: a pause each time, and a yield every 1024 steps, so that
/// two spinning threads sharing one CPU still make progress (with two CPUs
/// the other side is running and the yield returns at once). wait() is false
/// once the deadline has passed: the caller gives up, and its count says so.
class Spinner {
 public:
  explicit Spinner(Steady::time_point deadline) : deadline_(deadline) {}
  bool wait() noexcept {
    detail::cpuRelax();
    if ((++spins_ & 1023) != 0) return true;
    std::this_thread::yield();
    return Steady::now() < deadline_;
  }

 private:
  Steady::time_point deadline_;
  std::uint64_t spins_ = 0;
};

/// Runs `first` and `second` on two new threads, each pinned to its CPU
/// (cpuFor(0), cpuFor(1)) when pinning() holds, and lets them go together
/// once both are in place; returns when both have returned. Throws if a
/// thread could not be pinned (after both ran: the figure would lie).
template <class First, class Second>
void runPair(First&& first, Second&& second) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> unpinned{false};
  const auto side = [&](std::size_t k, auto& body) {
    if (pinning() && !pinCurrentThread(cpuFor(k))) unpinned.store(true);
    ready.fetch_add(1, std::memory_order_acq_rel);
    Spinner spin(Steady::now() + kGiveUp);
    while (!go.load(std::memory_order_acquire) && spin.wait()) {
    }
    body();
  };
  std::thread a([&] { side(0, first); });
  std::thread b([&] { side(1, second); });
  while (ready.load(std::memory_order_acquire) < 2) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  a.join();
  b.join();
  if (unpinned.load()) throw std::runtime_error("could not pin a thread to its CPU");
}

/// One writer's counter that others may read: a plain load and store, no
/// locked instruction on the measured path.
inline void bump(std::atomic<std::int64_t>& counter) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

/// A row whose every round is one call of `round` (a Timed: what ran and how
/// long, taken on the side that finished): runs, checks and reports them.
template <class Round>
void rounds(benchmark::State& state, const char* what, std::int64_t perRound, Round round) {
  OpMeter meter;
  for (auto _ : state) {
    if (!meter.measureTimed(state, what, perRound, round)) break;
  }
  meter.report(state);
}

}  // namespace coreactor::bench::isolates
