// bench/caf/Pool.cpp — pool/cpu/<n> on CAF, n scheduler threads (ours:
// bench/parallel/Pool.cpp): an actor hands 50,000 fork-join items at once
// to a caf::actor_pool of n workers (actor_pool::round_robin()), one per
// thread as ours has one routee per isolate; CAF's work-stealing scheduler
// places them. After the last job the sender sends each worker an
// end-of-jobs marker directly (CAF keeps the order between two actors, and
// the pool enqueues on the sender's behalf, in its turn); the last one to
// get it ends the round. Timed and checked as the parallel workloads are
// (bench/harness/ParallelRound.hpp), with the same checks as ours
// (bench/harness/RouterTallies.hpp).
#include <caf/actor_pool.hpp>
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/RouterTallies.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

using workloads::kPoolCpuJobs;
using workloads::RouteeCounts;
using workloads::RouteeTally;

/// Computes its jobs and sums their results; its end-of-jobs marker ends
/// its part of the round.
class Routee final : public caf::event_based_actor {
 public:
  Routee(caf::actor_config& config, RouteeCounts* counts, RoundEnd* end)
      : caf::event_based_actor(config), counts_(counts), end_(end) {}
  caf::behavior make_behavior() override {
    return {
        [this](const Item& job) {
          ++counts_->handled;
          counts_->sum += workloads::work(job.value);
        },
        [this](const EndOfJobs&) {
          ++counts_->ends;
          end_->partDone();
        },
    };
  }

 private:
  RouteeCounts* counts_;
  RoundEnd* end_;
};

/// On Fork, tells the pool every job, then each worker the end-of-jobs marker.
caf::behavior sender(caf::event_based_actor* self, caf::actor pool,
                     std::vector<caf::actor> routees) {
  return {[=](const Fork&) {
    for (std::int64_t i = 0; i < kPoolCpuJobs; ++i) {
      self->send(pool, Item{static_cast<std::uint64_t>(i)});
    }
    for (const caf::actor& routee : routees) self->send(routee, EndOfJobs{});
  }};
}

class PoolCpu {
 public:
  static constexpr const char* kWhat = "jobs computed";
  RoundEnd end;

  explicit PoolCpu(std::size_t threads)
      : threads_(threads), expected_(workloads::poolCpuExpectedSum()) {}
  void build(Arm& arm) {
    tally_.resize(threads_);
    std::vector<caf::actor> routees;
    const caf::actor pool = arm.keep(caf::actor_pool::make(
        arm.system().dummy_execution_unit(), threads_,
        [&] {
          caf::actor routee = arm.spawn<Routee>(tally_.claim(), &end);
          routees.push_back(routee);
          return routee;
        },
        caf::actor_pool::round_robin()));
    sender_ = arm.spawn(sender, pool, routees);
  }
  void release() { sender_ = nullptr; }
  std::int64_t asked() const { return kPoolCpuJobs; }
  std::int64_t parts() const { return static_cast<std::int64_t>(tally_.size()); }
  void reset() { tally_.reset(); }
  void start() { caf::anon_send(sender_, Fork{}); }
  std::int64_t done(std::string& wrong) const { return tally_.jobs(expected_, wrong); }

 private:
  std::size_t threads_;
  std::uint64_t expected_;
  RouteeTally tally_;
  caf::actor sender_;
};

void poolRow(benchmark::State& state, std::size_t threads) {
  PoolCpu workload(threads);
  Arm arm(workloads::poolCpuRow(threads), threads);
  workload.build(arm);
  runParallelRounds(state, workload, [&] { arm.lost(kParallelRoundTimeout); });
  workload.release();
}

}  // namespace

void registerPoolRows() {
  for (const std::size_t n : workloads::kPoolCpuIsolates) {
    registerTimed(benchmark::RegisterBenchmark(workloads::poolCpuRow(n).c_str(), &poolRow, n));
  }
}

}  // namespace coreactor::bench::cafarm
