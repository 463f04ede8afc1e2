// bench/parallel/Skew.cpp — parallel/skew/<n> and balanced/skew/<n>: busy
// actors all spawned on one isolate (ours only: CAF's scheduler has no
// placement to skew).
//
//   parallel/skew/<n>        one job handled: 16 actors, every one spawned on
//                            isolate 0 (withIsolate), each handling 200 jobs a
//                            round, told from the benchmark's thread (the
//                            actors in turn, job after job). A job is
//                            50 of fork-join's items in a row
//                            (workloads::work): a few microseconds. Without
//                            the balancer the other isolates have nothing to
//                            do; with it (balanced/skew/<n>) the actors are
//                            to spread over them.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/Workloads.hpp"
#include "parallel/Families.hpp"
#include "parallel/ParallelRow.hpp"

namespace coreactor::bench::parallel {
namespace {

using workloads::kSkewActors;
using workloads::kSkewChain;
using workloads::kSkewJobs;

/// Job `seq` of actor `actor`: its result.
std::uint64_t skewJob(std::int64_t actor, std::uint64_t seq) {
  std::uint64_t x = static_cast<std::uint64_t>(actor * kSkewJobs) + seq;
  for (int i = 0; i < kSkewChain; ++i) x = workloads::work(x);
  return x;
}

/// Each actor's sum of its jobs' results, computed once, off the clock.
const std::vector<std::uint64_t>& expectedSums() {
  static const std::vector<std::uint64_t> sums = [] {
    std::vector<std::uint64_t> out(static_cast<std::size_t>(kSkewActors));
    for (std::int64_t a = 0; a < kSkewActors; ++a) {
      for (std::int64_t j = 0; j < kSkewJobs; ++j) {
        out[static_cast<std::size_t>(a)] += skewJob(a, static_cast<std::uint64_t>(j));
      }
    }
    return out;
  }();
  return sums;
}

struct Job {
  std::uint64_t seq;
};

/// What one actor counts, on a line of its own.
struct alignas(64) SkewCounts {
  std::int64_t handled = 0;
  std::int64_t inOrder = 0;  // jobs that came with the number expected next
  std::uint64_t sum = 0;
};

class Busy final : public Actor {
 public:
  Busy(SkewCounts* counts, RoundEnd* end, std::int64_t index)
      : counts_(counts), end_(end), index_(index) {}
  void receive(ReceiveContext& ctx) override {
    const Job* job = ctx.get<Job>();
    if (job == nullptr) return;
    SkewCounts& mine = *counts_;
    if (job->seq == static_cast<std::uint64_t>(mine.handled)) ++mine.inOrder;
    mine.sum += skewJob(index_, job->seq);
    if (++mine.handled == kSkewJobs) end_->partDone();
  }

 private:
  SkewCounts* counts_;
  RoundEnd* end_;
  std::int64_t index_;
};

class Skew {
 public:
  static constexpr const char* kWhat = "jobs handled";
  RoundEnd end;

  Skew() : expected_(expectedSums()) {}
  void build(ActorSystem& system, std::size_t) {
    const ActorOptions first = ActorOptions::create().withIsolate(0);
    for (std::int64_t a = 0; a < kSkewActors; ++a) {
      actors_.push_back(
          system.spawn<Busy>("", first, &counts_[static_cast<std::size_t>(a)], &end, a));
    }
  }
  std::int64_t asked() const { return kSkewActors * kSkewJobs; }
  std::int64_t parts() const { return kSkewActors; }
  void reset() {
    for (SkewCounts& c : counts_) c = SkewCounts{};
  }
  void start() {
    for (std::int64_t j = 0; j < kSkewJobs; ++j) {
      for (const ActorRef& actor : actors_) actor.tell(Job{static_cast<std::uint64_t>(j)});
    }
  }
  /// The jobs that came in order; every actor handled each of its jobs once,
  /// and its sum is the one of its jobs' results.
  std::int64_t done(std::string& wrong) const {
    std::int64_t ran = 0;
    for (std::size_t a = 0; a < counts_.size(); ++a) {
      const SkewCounts& c = counts_[a];
      if (c.handled != kSkewJobs || c.inOrder != c.handled || c.sum != expected_[a]) {
        wrong = "actor " + std::to_string(a) + ": " +
                workloads::counted("jobs", kSkewJobs, c.handled) + ", " +
                std::to_string(c.inOrder) + " in order" +
                (c.sum != expected_[a] ? ", a wrong sum" : "");
      }
      ran += c.inOrder;
    }
    return ran;
  }

 private:
  const std::vector<std::uint64_t>& expected_;
  std::vector<SkewCounts> counts_ = std::vector<SkewCounts>(static_cast<std::size_t>(kSkewActors));
  std::vector<ActorRef> actors_;
};

}  // namespace

void registerSkewRows() {
  // No placement/skew/*: the actors are placed by hand, whatever the run.
  registerRows<Skew>("skew", false);
}

}  // namespace coreactor::bench::parallel
