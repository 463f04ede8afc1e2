// bench/caf/Spawner.hpp — the actors of actor/spawn/<N> and actor/memory on
// CAF: a spawner that spawns, starts and stops counted actors, and the tally
// they count into (ours: bench/actor/CountingActor.hpp).
#pragma once

#include <caf/all.hpp>

#include <cstdint>
#include <vector>

#include "caf/Arm.hpp"
#include "caf/Messages.hpp"

namespace coreactor::bench::cafarm {

/// What a spawner's round waits for.
enum class Shape {
  kLifecycle,   ///< actor/spawn/100: the last start stops them all; the last stop finishes
  kPopulation,  ///< actor/spawn/<N>: the last start finishes; StopAll stops them later
  kIdle,        ///< actor/memory: each gets one Count; the last one handled finishes
};

/// What the counted actors of one run report: starts, messages and stops,
/// and when to finish a round.
struct Tally {
  Shape shape = Shape::kPopulation;
  std::int64_t target = 0;
  std::int64_t started = 0;
  std::int64_t received = 0;
  std::int64_t stopped = 0;
  caf::actor spawner;
  std::vector<caf::actor> refs;
  Round* round = nullptr;

  void onStarted(caf::event_based_actor& self) {
    if (++started != target) return;
    if (shape == Shape::kLifecycle) {
      self.send(spawner, AllStarted{});
    } else if (shape == Shape::kPopulation) {
      round->finish(started);
    }
  }
  void onReceived() {
    if (++received == target) round->finish(received);
  }
  void onStopped() {
    if (++stopped == target) round->finish(stopped);
  }
};

/// Counts its start (its behaviour is made when it first runs), its Count
/// messages and its stop (on_exit, once it has quit).
class Counted final : public caf::event_based_actor {
 public:
  Counted(caf::actor_config& config, Tally* tally)
      : caf::event_based_actor(config), tally_(tally) {}
  caf::behavior make_behavior() override {
    tally_->onStarted(*this);
    return {[this](const Count&) { tally_->onReceived(); }};
  }
  void on_exit() override { tally_->onStopped(); }

 private:
  Tally* tally_;
};

/// Tells every actor of the tally to exit (an exit message: CAF's stop) and
/// drops the references to them.
inline void stopAll(caf::event_based_actor* self, Tally* tally) {
  for (const caf::actor& actor : tally->refs) {
    self->send_exit(actor, caf::exit_reason::user_shutdown);
  }
  tally->refs.clear();
}

/// Spawns `tally->target` counted actors on Go (and, for actor/memory, gives
/// each one Count); stops them on AllStarted (from the last one started) or
/// on StopAll (from the benchmark's thread).
inline caf::behavior spawner(caf::event_based_actor* self, Tally* tally) {
  return {
      [=](const Go& go) {
        tally->started = 0;
        tally->received = 0;
        tally->stopped = 0;
        tally->round = go.round;
        go.round->begin = WallClock::now();
        for (std::int64_t i = 0; i < tally->target; ++i) {
          tally->refs.push_back(self->spawn<Counted>(tally));
          if (tally->shape == Shape::kIdle) self->send(tally->refs.back(), Count{1});
        }
      },
      [=](const AllStarted&) { stopAll(self, tally); },
      [=](const StopAll& stop) {
        tally->round = stop.round;
        stopAll(self, tally);
      },
  };
}

}  // namespace coreactor::bench::cafarm
