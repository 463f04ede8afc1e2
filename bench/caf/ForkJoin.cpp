// bench/caf/ForkJoin.cpp — parallel/forkjoin/<n> on CAF (ours:
// bench/parallel/ForkJoin.cpp).
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "caf/ParallelRow.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

using workloads::Counter;

using ForkJoinShared = workloads::ForkJoinShared<caf::actor>;

class Producer final : public caf::event_based_actor {
 public:
  Producer(caf::actor_config& config, ForkJoinShared* shared, RoundEnd* end)
      : caf::event_based_actor(config), shared_(shared), end_(end) {}
  caf::behavior make_behavior() override {
    return {
        [this](const Fork&) {
          const std::vector<caf::actor>& workers = shared_->workers;
          for (std::int64_t i = 0; i < workloads::kForkJoinItems; ++i) {
            send(workers[static_cast<std::size_t>(i % workloads::kForkJoinWorkers)],
                 Item{static_cast<std::uint64_t>(i)});
          }
        },
        [this](const Answer& answer) {
          shared_->sum += answer.value;
          if (++shared_->answers == workloads::kForkJoinItems) end_->partDone();
        },
    };
  }

 private:
  ForkJoinShared* shared_;
  RoundEnd* end_;
};

class Worker final : public caf::event_based_actor {
 public:
  Worker(caf::actor_config& config, Counter* handled)
      : caf::event_based_actor(config), handled_(handled) {}
  caf::behavior make_behavior() override {
    return {[this](const Item& item) {
      ++handled_->value;
      return Answer{workloads::work(item.value)};
    }};
  }

 private:
  Counter* handled_;
};

class ForkJoin {
 public:
  static constexpr const char* kName = "forkjoin";
  static constexpr const char* kWhat = "items computed and gathered";
  RoundEnd end;

  ForkJoin() : expected_(workloads::forkJoinExpectedSum()) {}
  void build(Arm& arm) {
    producer_ = arm.spawn<Producer>(&shared_, &end);
    for (Counter& handled : shared_.handled) shared_.workers.push_back(arm.spawn<Worker>(&handled));
  }
  void release() {
    producer_ = nullptr;
    shared_.workers.clear();
  }
  std::int64_t asked() const { return workloads::kForkJoinItems; }
  std::int64_t parts() const { return 1; }
  void reset() { shared_.reset(); }
  void start() { caf::anon_send(producer_, Fork{}); }
  std::int64_t done(std::string& wrong) const { return shared_.done(expected_, wrong); }

 private:
  std::uint64_t expected_;
  ForkJoinShared shared_;
  caf::actor producer_;
};

}  // namespace

void registerForkJoinRows() {
  registerParallelRows<ForkJoin>();
}

}  // namespace coreactor::bench::cafarm
