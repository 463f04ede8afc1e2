// bench/actor/CountingActor.hpp — the actor of actor/tell, actor/spawn and
// actor/memory: it counts its starts, its messages and its stops in a Tally
// the benchmark owns, which the benchmark checks against what it asked.
#pragma once

#include <cstdint>

#include "coreactor/ActorSystem.hpp"

namespace coreactor::bench::actor {

/// What the actors of one benchmark report back: counts of what they handled.
struct Tally {
  std::int64_t started = 0;
  std::int64_t received = 0;
  std::int64_t stopped = 0;
};

/// The small message of actor/tell and actor/memory: one int, stored inline.
struct Count {
  int value;
};

/// Counts its starts, its Count messages and its stops.
class CountingActor final : public Actor {
 public:
  explicit CountingActor(Tally* tally) : tally_(tally) {}
  void preStart(ReceiveContext&) override { ++tally_->started; }
  void postStop(ReceiveContext&) override { ++tally_->stopped; }
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Count>()) ++tally_->received;
  }

 private:
  Tally* tally_;
};

}  // namespace coreactor::bench::actor
