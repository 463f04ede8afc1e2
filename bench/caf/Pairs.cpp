// bench/caf/Pairs.cpp — parallel/pairs/<n> on CAF (ours: bench/parallel/Pairs.cpp).
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

using workloads::PairCounts;

class PairResponder final : public caf::event_based_actor {
 public:
  PairResponder(caf::actor_config& config, PairCounts* counts)
      : caf::event_based_actor(config), counts_(counts) {}
  caf::behavior make_behavior() override {
    return {[this](const Ping& ping) {
      ++counts_->pings;
      return Pong{ping.n};
    }};
  }

 private:
  PairCounts* counts_;
};

class PairRequester final : public caf::event_based_actor {
 public:
  PairRequester(caf::actor_config& config, PairCounts* counts, RoundEnd* end,
                const caf::actor* responder)
      : caf::event_based_actor(config), counts_(counts), end_(end), responder_(responder) {}
  caf::behavior make_behavior() override {
    return {
        [this](const Serve&) { send(*responder_, Ping{0}); },
        [this](const Pong& pong) {
          if (pong.n == counts_->pongs) ++counts_->inOrder;
          if (++counts_->pongs < workloads::kPairRoundTrips) {
            send(*responder_, Ping{static_cast<int>(counts_->pongs)});
          } else {
            end_->partDone();
          }
        },
    };
  }

 private:
  PairCounts* counts_;
  RoundEnd* end_;
  const caf::actor* responder_;
};

class Pairs {
 public:
  static constexpr const char* kName = "pairs";
  static constexpr const char* kWhat = "round trips";
  RoundEnd end;

  void build(Arm& arm) {
    responders_.reserve(tally_.counts.size());  // the requesters point into it
    for (PairCounts& counts : tally_.counts) {
      responders_.push_back(arm.spawn<PairResponder>(&counts));
      requesters_.push_back(arm.spawn<PairRequester>(&counts, &end, &responders_.back()));
    }
  }
  void release() {
    responders_.clear();
    requesters_.clear();
  }
  std::int64_t asked() const { return workloads::kPairs * workloads::kPairRoundTrips; }
  std::int64_t parts() const { return workloads::kPairs; }
  void reset() { tally_.reset(); }
  void start() {
    for (const caf::actor& requester : requesters_) caf::anon_send(requester, Serve{});
  }
  std::int64_t done(std::string& wrong) const { return tally_.done(wrong); }

 private:
  workloads::PairsTally tally_;
  std::vector<caf::actor> responders_;
  std::vector<caf::actor> requesters_;
};

}  // namespace

void registerPairsRows() {
  registerParallelRows<Pairs>();
}

}  // namespace coreactor::bench::cafarm
