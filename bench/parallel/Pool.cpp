// bench/parallel/Pool.cpp — pool/cpu/<n>: a CPU-bound pool on a threaded
// system of n isolates (n of 1 and 2), as a user runs one
// (coreactor/Router.hpp, docs/routers.md). The CAF arm's rows:
// bench/caf/Pool.cpp.
//
//   pool/cpu/<n>   one job: one of 50,000 told at once by an actor on
//                  isolate 0 through a round-robin pool of one routee per
//                  isolate (withPerIsolate(1)), computed there (a
//                  fork-join item: workloads::work); each routee sums its
//                  results, and the sums are checked.
//
// After the last job the sender broadcasts an end-of-jobs marker through
// the pool (Broadcast): it reaches each routee after that sender's jobs, and
// the last routee to get it ends the round (bench/harness/ParallelRound.hpp).
// After the run, pool/cpu/2's `speedup` is pool/cpu/1's time over its own
// (bench/harness/Results.cpp).
//
//   pool/cpu-floor/<n>  the same jobs on n plain threads, each computing a
//                  contiguous share and summing it (workloads::work), the
//                  sums checked: the machine's own speedup for this work,
//                  beside which pool/cpu's reads.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/RouterTallies.hpp"
#include "harness/Workloads.hpp"
#include "parallel/Families.hpp"
#include "parallel/ParallelRow.hpp"

namespace coreactor::bench::parallel {
namespace {

using workloads::kPoolCpuJobs;
using workloads::RouteeCounts;
using workloads::RouteeTally;

struct Fork {};
struct Job {
  std::uint64_t value;
};
struct EndOfJobs {};

/// Computes its jobs and sums their results; its end-of-jobs marker ends
/// its part of the round.
class Routee final : public Actor {
 public:
  Routee(RouteeCounts* counts, RoundEnd* end) : counts_(counts), end_(end) {}
  void receive(ReceiveContext& ctx) override {
    if (const Job* job = ctx.get<Job>()) {
      ++counts_->handled;
      counts_->sum += workloads::work(job->value);
    } else if (ctx.is<EndOfJobs>()) {
      ++counts_->ends;
      end_->partDone();
    }
  }

 private:
  RouteeCounts* counts_;
  RoundEnd* end_;
};

/// On Fork, tells the pool every job, then the end-of-jobs marker to all.
class Sender final : public Actor {
 public:
  explicit Sender(ActorRef pool) : pool_(std::move(pool)) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Fork>()) return;
    for (std::int64_t i = 0; i < kPoolCpuJobs; ++i) {
      ctx.tell(pool_, Job{static_cast<std::uint64_t>(i)});
    }
    ctx.tell(pool_, Broadcast(EndOfJobs{}));
  }

 private:
  ActorRef pool_;
};

class PoolCpu {
 public:
  static constexpr const char* kWhat = "jobs computed";
  RoundEnd end;

  PoolCpu() : expected_(workloads::poolCpuExpectedSum()) {}
  void build(ActorSystem& system, std::size_t isolates) {
    tally_.resize(isolates);
    RouteeTally* tally = &tally_;
    RoundEnd* roundEnd = &end;
    const ActorRef pool = system.spawnPool(
        "pool", RouterOptions::roundRobin().withPerIsolate(1), ActorFactory([tally, roundEnd] {
          return std::unique_ptr<Actor>(std::make_unique<Routee>(tally->claim(), roundEnd));
        }));
    sender_ = system.spawn<Sender>("sender", ActorOptions::create().withIsolate(0), pool);
  }
  std::int64_t asked() const { return kPoolCpuJobs; }
  std::int64_t parts() const { return static_cast<std::int64_t>(tally_.size()); }
  void reset() { tally_.reset(); }
  void start() { sender_.tell(Fork{}); }
  std::int64_t done(std::string& wrong) const { return tally_.jobs(expected_, wrong); }

 private:
  std::uint64_t expected_;
  RouteeTally tally_;
  ActorRef sender_;
};

/// pool/cpu-floor/<threads>: one round, timed from the threads' start to
/// the last one's end; the jobs count only if the sums add up.
void cpuFloor(benchmark::State& state, std::size_t threads) {
  const std::uint64_t expected = workloads::poolCpuExpectedSum();
  const auto share = static_cast<std::uint64_t>(kPoolCpuJobs) / threads;
  OpMeter meter;
  std::vector<std::uint64_t> sums(threads);
  for (auto _ : state) {
    const bool ok = meter.measure(state, "jobs computed", kPoolCpuJobs, [&] {
      std::vector<std::thread> running;
      for (std::size_t t = 0; t < threads; ++t) {
        const std::uint64_t first = t * share;
        const std::uint64_t last =
            t + 1 == threads ? static_cast<std::uint64_t>(kPoolCpuJobs) : first + share;
        running.emplace_back([&sums, t, first, last] {
          std::uint64_t sum = 0;
          for (std::uint64_t i = first; i < last; ++i) sum += workloads::work(i);
          sums[t] = sum;
        });
      }
      for (std::thread& t : running) t.join();
      std::uint64_t total = 0;
      for (const std::uint64_t sum : sums) total += sum;
      return total == expected ? kPoolCpuJobs : std::int64_t{0};
    });
    if (!ok) break;
  }
  meter.report(state);
}

}  // namespace

void registerPoolRows() {
  for (const std::size_t n : workloads::kPoolCpuIsolates) {
    registerRow<PoolCpu>(workloads::poolCpuRow(n), RowSystem{n, 0, false});
  }
  for (const std::size_t n : workloads::kPoolCpuIsolates) {
    registerTimed(benchmark::RegisterBenchmark(workloads::cpuFloorRow(n).c_str(), &cpuFloor, n));
  }
}

}  // namespace coreactor::bench::parallel
