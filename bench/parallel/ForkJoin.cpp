// bench/parallel/ForkJoin.cpp — parallel/forkjoin/<n> and placement/forkjoin/run-<k>.
//
//   parallel/forkjoin/<n>    one item: handed by the producer to one of 64
//                            workers (50,000 at once, round-robin), computed
//                            (workloads::work, ~100 ns), answered, added to
//                            the producer's sum; the sum is checked.
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

using workloads::Counter;
using workloads::kForkJoinItems;
using workloads::kForkJoinWorkers;

struct Fork {};
struct Item {
  std::uint64_t value;
};
struct Answer {
  std::uint64_t value;
};

using ForkJoinShared = workloads::ForkJoinShared<ActorRef>;

/// Hands every item out on Fork, then gathers the answers.
class Producer final : public Actor {
 public:
  Producer(ForkJoinShared* shared, RoundEnd* end) : shared_(shared), end_(end) {}
  void receive(ReceiveContext& ctx) override {
    if (const Answer* answer = ctx.get<Answer>()) {
      shared_->sum += answer->value;
      if (++shared_->answers == kForkJoinItems) end_->partDone();
    } else if (ctx.is<Fork>()) {
      const std::vector<ActorRef>& workers = shared_->workers;
      for (std::int64_t i = 0; i < kForkJoinItems; ++i) {
        ctx.tell(workers[static_cast<std::size_t>(i % kForkJoinWorkers)],
                 Item{static_cast<std::uint64_t>(i)});
      }
    }
  }

 private:
  ForkJoinShared* shared_;
  RoundEnd* end_;
};

class Worker final : public Actor {
 public:
  explicit Worker(Counter* handled) : handled_(handled) {}
  void receive(ReceiveContext& ctx) override {
    if (const Item* item = ctx.get<Item>()) {
      ++handled_->value;
      ctx.reply(Answer{workloads::work(item->value)});
    }
  }

 private:
  Counter* handled_;
};

class ForkJoin {
 public:
  static constexpr const char* kWhat = "items computed and gathered";
  RoundEnd end;

  ForkJoin() : expected_(workloads::forkJoinExpectedSum()) {}
  void build(ActorSystem& system, std::size_t) {
    producer_ = system.spawn<Producer>("", ActorOptions::create(), &shared_, &end);
    for (Counter& handled : shared_.handled) {
      shared_.workers.push_back(system.spawn<Worker>("", ActorOptions::create(), &handled));
    }
  }
  std::int64_t asked() const { return kForkJoinItems; }
  std::int64_t parts() const { return 1; }
  void reset() { shared_.reset(); }
  void start() { producer_.tell(Fork{}); }
  std::int64_t done(std::string& wrong) const { return shared_.done(expected_, wrong); }

 private:
  std::uint64_t expected_;
  ForkJoinShared shared_;
  ActorRef producer_;
};

}  // namespace

void registerForkJoinRows() {
  registerRows<ForkJoin>("forkjoin");
}

}  // namespace coreactor::bench::parallel
