// bench/caf/Ring.cpp — parallel/ring-one/<n> and parallel/ring-many/<n> on
// CAF (ours: bench/parallel/Ring.cpp).
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

using RingShared = workloads::RingShared<caf::actor>;

class RingMember final : public caf::event_based_actor {
 public:
  RingMember(caf::actor_config& config, RingShared* ring, RoundEnd* end, std::int64_t index)
      : caf::event_based_actor(config), ring_(ring), end_(end), index_(index) {}
  caf::behavior make_behavior() override {
    return {[this](const Token& token) {
      ++ring_->hops[static_cast<std::size_t>(index_)].value;
      const Token next{token.id, token.travelled + 1};
      if (next.travelled < ring_->hopsPerToken) {
        send(ring_->members[static_cast<std::size_t>((index_ + 1) % workloads::kRingActors)], next);
        return;
      }
      RingShared::Finish& finish = ring_->finishes[token.id];
      finish.at = index_;
      ++finish.times;
      end_->partDone();
    }};
  }

 private:
  RingShared* ring_;
  RoundEnd* end_;
  std::int64_t index_;
};

template <std::int64_t Tokens>
class Ring {
 public:
  static constexpr const char* kName = Tokens == 1 ? "ring-one" : "ring-many";
  static constexpr const char* kWhat = "hops";
  RoundEnd end;

  void build(Arm& arm) {
    for (std::int64_t i = 0; i < workloads::kRingActors; ++i) {
      ring_.members.push_back(arm.spawn<RingMember>(&ring_, &end, i));
    }
  }
  void release() { ring_.members.clear(); }
  std::int64_t asked() const { return workloads::kRingHops; }
  std::int64_t parts() const { return Tokens; }
  void reset() { ring_.reset(); }
  void start() {
    for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(Tokens); ++t) {
      caf::anon_send(ring_.members[ring_.entry(t)], Token{t, 0});
    }
  }
  std::int64_t done(std::string& wrong) const { return ring_.done(wrong); }

 private:
  RingShared ring_{Tokens};
};

}  // namespace

void registerRingRows() {
  registerParallelRows<Ring<1>>();
  registerParallelRows<Ring<workloads::kRingTokens>>();
}

}  // namespace coreactor::bench::cafarm
