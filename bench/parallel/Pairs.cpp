// bench/parallel/Pairs.cpp — parallel/pairs/<n>, placement/pairs/run-<k>,
// balanced/pairs/<n> and balanced/pairs-rr/<N>.
//
//   parallel/pairs/<n>       one round trip (ping -> pong) of 8 independent
//                            pairs, 10,000 each, all at once; pair k (both
//                            actors) on isolate k mod n (in placement/*, where
//                            the system's default rule puts them).
//   balanced/pairs-rr/<N>    the same on the most isolates with the balancer
//                            on (ParallelRow.hpp), every actor placed
//                            round-robin (run 1, as placement/pairs/run-1):
//                            every pair starts split, for the balancer to join.
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

using workloads::kPairRoundTrips;
using workloads::kPairs;
using workloads::PairCounts;

struct Ping {
  std::int64_t n;
};
struct Pong {
  std::int64_t n;
};
struct Serve {};

class PairResponder final : public Actor {
 public:
  explicit PairResponder(PairCounts* counts) : counts_(counts) {}
  void receive(ReceiveContext& ctx) override {
    if (const Ping* ping = ctx.get<Ping>()) {
      ++counts_->pings;
      ctx.reply(Pong{ping->n});
    }
  }

 private:
  PairCounts* counts_;
};

/// Starts its pair on Serve, answers each Pong with the next Ping until
/// kPairRoundTrips, then reports its part done.
class PairRequester final : public Actor {
 public:
  PairRequester(PairCounts* counts, RoundEnd* end, ActorRef responder)
      : counts_(counts), end_(end), responder_(responder) {}
  void receive(ReceiveContext& ctx) override {
    if (const Pong* pong = ctx.get<Pong>()) {
      if (pong->n == counts_->pongs) ++counts_->inOrder;
      if (++counts_->pongs < kPairRoundTrips) {
        ctx.tell(responder_, Ping{counts_->pongs});
      } else {
        end_->partDone();
      }
    } else if (ctx.is<Serve>()) {
      ctx.tell(responder_, Ping{0});
    }
  }

 private:
  PairCounts* counts_;
  RoundEnd* end_;
  ActorRef responder_;
};

class Pairs {
 public:
  static constexpr const char* kWhat = "round trips";
  RoundEnd end;

  /// False: the pairs are placed by the system's default rule, as the
  /// other workloads' actors are (the placement/* rows).
  bool byHand = true;

  void build(ActorSystem& system, std::size_t isolates) {
    std::vector<PairCounts>& counts = tally_.counts;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const ActorOptions here =
          byHand ? ActorOptions::create().withIsolate(k % isolates) : ActorOptions::create();
      const ActorRef responder = system.spawn<PairResponder>("", here, &counts[k]);
      requesters_.push_back(system.spawn<PairRequester>("", here, &counts[k], &end, responder));
    }
  }
  std::int64_t asked() const { return kPairs * kPairRoundTrips; }
  std::int64_t parts() const { return kPairs; }
  void reset() { tally_.reset(); }
  void start() {
    for (const ActorRef& requester : requesters_) requester.tell(Serve{});
  }
  std::int64_t done(std::string& wrong) const { return tally_.done(wrong); }

 private:
  workloads::PairsTally tally_;
  std::vector<ActorRef> requesters_;
};

}  // namespace

void registerPairsRows() {
  registerRows<Pairs>("pairs");
  const std::size_t most = workloads::parallelCounts().back();
  registerRow<Pairs>(workloads::balancedRow("pairs-rr", most), RowSystem{most, 1, true});
}

}  // namespace coreactor::bench::parallel
