// bench/isolates/Rally.hpp — a ping-pong between two actors, as the
// isolates/* rows play it: isolates/pingpong/* across two isolates,
// isolates/scaling/<n> (an OpenRally, bench/isolates/Scaling.cpp) a pair on
// each isolate, isolates/idle-cpu once before the system goes idle.
//
// A rally is written by the benchmark's thread before it starts a round,
// then by the two actors (each message carries the happens-before along).
// Every ping carries its number and the requester counts the pongs that
// come back in order; the responder counts the pings.
#pragma once

#include <atomic>
#include <cstdint>

#include "coreactor/ActorSystem.hpp"
#include "harness/Completion.hpp"
#include "isolates/Families.hpp"
#include "isolates/TwoThreads.hpp"

namespace coreactor::bench::isolates {

struct Ping {
  std::int64_t n;
};
struct Pong {
  std::int64_t n;
};
struct Serve {
  ActorRef responder;
};

/// What the two sides of a rally count. Each side's counters have a cache
/// line of their own, and so does each rally (the rallies of
/// isolates/scaling/<n> run on different isolates at once): the benchmark
/// must not add line transfers of its own to the crossing it measures.
struct RallyCounts {
  struct alignas(64) {
    Steady::time_point start{};            // the first ping (Rally)
    Steady::time_point end{};              // the last pong handled (Rally)
    std::atomic<std::int64_t> pongs{0};    // round trips done
    std::atomic<std::int64_t> ordered{0};  // of which came back in order
  } requester;
  struct alignas(64) {
    std::atomic<std::int64_t> pings{0};
  } responder;

  /// Benchmark's thread, between rounds.
  void resetCounts() {
    responder.pings.store(0, std::memory_order_relaxed);
    requester.pongs.store(0, std::memory_order_relaxed);
    requester.ordered.store(0, std::memory_order_relaxed);
  }
  std::int64_t pings() const { return responder.pings.load(std::memory_order_relaxed); }
  std::int64_t pongs() const { return requester.pongs.load(std::memory_order_relaxed); }
  std::int64_t ordered() const { return requester.ordered.load(std::memory_order_relaxed); }
};

/// One rally of `target` round trips.
struct Rally : RallyCounts {
  std::int64_t target = 0;
  Completion done;

  /// Benchmark's thread, between rounds.
  void reset(std::int64_t roundTrips) {
    target = roundTrips;
    resetCounts();
    done.reset();
  }
  Steady::duration elapsed() const { return requester.end - requester.start; }

  // The requester's side (RequesterOf), on its isolate.
  void begin() { requester.start = Steady::now(); }
  bool wantsMore(std::int64_t done) const { return done < target; }
  void finish() {
    requester.end = Steady::now();
    this->done.raise();
  }
};

/// Serves a rally (a Rally or an OpenRally): a Serve starts it, each Pong
/// brings the next Ping for as long as the rally wants more.
template <class R, class PingT = Ping, class PongT = Pong>
class RequesterOf final : public Actor {
 public:
  explicit RequesterOf(R* rally) : rally_(rally) {}
  void receive(ReceiveContext& ctx) override {
    auto& mine = rally_->requester;
    if (const PongT* pong = ctx.get<PongT>()) {
      const std::int64_t n = mine.pongs.load(std::memory_order_relaxed);
      if (pong->n == n) bump(mine.ordered);
      mine.pongs.store(n + 1, std::memory_order_relaxed);
      if (rally_->wantsMore(n + 1)) {
        ctx.reply(PingT{n + 1});
      } else {
        rally_->finish();
      }
    } else if (const Serve* serve = ctx.get<Serve>()) {
      rally_->begin();
      ctx.tell(serve->responder, PingT{0});
    }
  }

 private:
  R* rally_;
};
using Requester = RequesterOf<Rally>;

/// Answers each Ping with its Pong and counts the pings, for a Rally or an
/// OpenRally (isolates/scaling/<n>).
template <class R, class PingT = Ping, class PongT = Pong>
class ResponderOf final : public Actor {
 public:
  explicit ResponderOf(R* rally) : rally_(rally) {}
  void receive(ReceiveContext& ctx) override {
    if (const PingT* ping = ctx.get<PingT>()) {
      bump(rally_->responder.pings);
      ctx.reply(PongT{ping->n});
    }
  }

 private:
  R* rally_;
};
using Responder = ResponderOf<Rally>;

/// One rally of `roundTrips`, started from the benchmark's thread and timed
/// by the requester: from its first ping to its last pong.
inline Timed rallyRound(Rally& rally, const ActorRef& requester, const ActorRef& responder,
                        std::int64_t roundTrips) {
  rally.reset(roundTrips);
  requester.tell(Serve{responder});
  if (!rally.done.waitFor(kGiveUp)) return Timed{rally.ordered(), {}};
  return Timed{rally.ordered(), rally.elapsed()};
}

}  // namespace coreactor::bench::isolates
