// bench/parallel/Ring.cpp — parallel/ring-one/<n>, parallel/ring-many/<n>
// and their placement/*/run-<k>.
//
//   parallel/ring-one/<n>    one hop of a token around a ring of 64 actors;
//                            one token, 64,000 hops.
//   parallel/ring-many/<n>   the same ring with 32 tokens at once, 2,000 hops
//                            each.
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

using workloads::kRingActors;
using workloads::kRingHops;
using workloads::kRingTokens;

/// One word: which token, and how many hops it has made.
struct Token {
  std::uint32_t id;
  std::uint32_t travelled;
};

using RingShared = workloads::RingShared<ActorRef>;

class RingMember final : public Actor {
 public:
  RingMember(RingShared* ring, RoundEnd* end, std::int64_t index)
      : ring_(ring), end_(end), index_(index) {}
  void receive(ReceiveContext& ctx) override {
    const Token* token = ctx.get<Token>();
    if (token == nullptr) return;
    ++ring_->hops[static_cast<std::size_t>(index_)].value;
    const Token next{token->id, token->travelled + 1};
    if (next.travelled < ring_->hopsPerToken) {
      ctx.tell(ring_->members[static_cast<std::size_t>((index_ + 1) % kRingActors)], next);
      return;
    }
    RingShared::Finish& finish = ring_->finishes[token->id];
    finish.at = index_;
    ++finish.times;
    end_->partDone();
  }

 private:
  RingShared* ring_;
  RoundEnd* end_;
  std::int64_t index_;
};

template <std::int64_t Tokens>
class Ring {
 public:
  static constexpr const char* kWhat = "hops";
  RoundEnd end;

  void build(ActorSystem& system, std::size_t) {
    for (std::int64_t i = 0; i < kRingActors; ++i) {
      ring_.members.push_back(
          system.spawn<RingMember>("", ActorOptions::create(), &ring_, &end, i));
    }
  }
  std::int64_t asked() const { return kRingHops; }
  std::int64_t parts() const { return Tokens; }
  void reset() { ring_.reset(); }
  void start() {
    // Token t enters at member t * (A / T), as if sent by its predecessor.
    for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(Tokens); ++t) {
      ring_.members[ring_.entry(t)].tell(Token{t, 0});
    }
  }
  std::int64_t done(std::string& wrong) const { return ring_.done(wrong); }

 private:
  RingShared ring_{Tokens};
};

}  // namespace

void registerRingRows() {
  registerRows<Ring<1>>("ring-one");
  registerRows<Ring<kRingTokens>>("ring-many");
}

}  // namespace coreactor::bench::parallel
