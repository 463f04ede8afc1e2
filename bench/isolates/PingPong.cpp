// bench/isolates/PingPong.cpp — isolates/pingpong/*: a round trip between
// an actor on isolate 0 and one on isolate 1 (bench/isolates/Rally.hpp).
//
//   isolates/pingpong/busy one round trip between an actor on isolate 0 and one
//   isolates/pingpong/idle on isolate 1, nothing else running. Busy: each
//                          message finds its isolate awake, looking for work
//                          in its idle poll window (the system's default,
//                          ActorSystemOptions::withIdlePoll), as the floor's
//                          threads spin; idle: the window is off, so each
//                          isolate sleeps between messages and every message
//                          wakes one, as the floor's threads block.
//   isolates/pingpong/wide the busy round trip with messages of 24 bytes,
//                          which cross as whole Messages, not as words.
//   isolates/pingpong/loaded  the busy round trip while an actor on each
//                          isolate keeps telling itself a message, so each
//                          message waits for the unit in progress.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "coreactor/ActorSystem.hpp"
#include "isolates/Families.hpp"
#include "isolates/Floors.hpp"
#include "isolates/IsolatesBench.hpp"
#include "isolates/Pinning.hpp"
#include "isolates/Rally.hpp"
#include "isolates/TwoThreads.hpp"

namespace coreactor::bench::isolates {
namespace {

/// isolates/pingpong/busy: round trips per round (about a microsecond each).
constexpr std::int64_t kAwakePingPongRoundTrips = 10'000;
/// isolates/pingpong/loaded: round trips per round. Fewer: each waits for
/// the unit in progress on the other loop, a microsecond or two; on one CPU,
/// for the scheduler's time slice (~12 ms a round trip here), and so does
/// the busy one.
constexpr std::int64_t kLoadedPingPongRoundTrips = 200;
constexpr std::int64_t kBusyPingPongRoundTripsOnOneCpu = 10;
// isolates/pingpong/idle: kWakeRoundTrips (bench/isolates/Floors.hpp), as its floor.

/// isolates/pingpong/wide's: 24 bytes, no word, so each crosses as a whole
/// Message (a ring pair of cells) rather than as a word.
struct WidePing {
  std::int64_t n;
  std::int64_t padding[2] = {};
};
struct WidePong {
  std::int64_t n;
  std::int64_t padding[2] = {};
};

// The background load of isolates/pingpong/loaded: an actor per isolate that
// tells itself a message as long as it is not told to stop.
struct Again {};
struct Load {
  /// Messages handled on one isolate, on a line of its own (each is written
  /// by its isolate all the time).
  struct alignas(64) Turns {
    std::atomic<std::int64_t> count{0};
  };
  std::atomic<bool> stop{false};
  Turns turns[2];
};

class BusyLoop final : public Actor {
 public:
  BusyLoop(Load* load, std::size_t isolate) : load_(load), turns_(&load->turns[isolate].count) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Again>()) return;
    bump(*turns_);
    if (!load_->stop.load(std::memory_order_relaxed)) ctx.tell(ctx.self(), Again{});
  }

 private:
  Load* load_;
  std::atomic<std::int64_t>* turns_;
};

/// What else runs on the two isolates of a cross-isolate ping-pong.
enum class Across {
  Busy,    ///< nothing: each message finds its isolate in its idle poll window
  Wide,    ///< Busy, with messages of 24 bytes (WidePing, WidePong) instead of words
  Loaded,  ///< a self-telling actor on each isolate
  Idle,    ///< nothing, and no idle poll window: every message wakes its isolate
};

void pingPongAcross(benchmark::State& state, Across how) {
  const bool busy = how == Across::Loaded;  // the load runs
  Rally rally;                              // these outlive the system, whose actors point at them
  Load load;
  std::unique_ptr<ActorSystem> system;
  ActorRef requester;
  ActorRef responder;
  if (!setUp(state, [&] {
        ActorSystemOptions options = ActorSystemOptions::create();
        if (how == Across::Idle) options = options.withIdlePoll(std::chrono::nanoseconds{0});
        system = threadedSystem(2, options);
        pinIsolates(*system, 2);
        const ActorOptions on0 = ActorOptions::create().withIsolate(0);
        const ActorOptions on1 = ActorOptions::create().withIsolate(1);
        if (how == Across::Wide) {
          requester =
              system->spawn<RequesterOf<Rally, WidePing, WidePong>>("requester", on0, &rally);
          responder =
              system->spawn<ResponderOf<Rally, WidePing, WidePong>>("responder", on1, &rally);
        } else {
          requester = system->spawn<Requester>("requester", on0, &rally);
          responder = system->spawn<Responder>("responder", on1, &rally);
        }
        if (busy) {
          for (std::size_t k = 0; k < 2; ++k) {
            system->spawn<BusyLoop>("", ActorOptions::create().withIsolate(k), &load, k)
                .tell(Again{});
          }
        }
      })) {
    return;
  }
  const std::int64_t roundTrips = how == Across::Idle ? kWakeRoundTrips
                                  : !pinning()        ? kBusyPingPongRoundTripsOnOneCpu
                                  : busy              ? kLoadedPingPongRoundTrips
                                                      : kAwakePingPongRoundTrips;
  OpMeter meter;
  std::int64_t loadMessages = 0;  // handled by the loads during the rounds, both isolates
  std::int64_t rounds = 0;
  // A VM's two CPUs may change topology from minute to minute (the busy-poll
  // round trip reads 35 to 800 ns), so a ratio of two rows run minutes
  // apart can compare two phases. Each round of the awake and idle rows is
  // paired with a round of its floor right after it (off the clock).
  const bool paired = how != Across::Loaded && pinning();
  PairedRatios pairedRatios;
  for (auto _ : state) {
    const std::int64_t before[2] = {load.turns[0].count.load(), load.turns[1].count.load()};
    Timed rowRound;
    const bool ok = meter.measureTimed(state, "round trips in order", roundTrips, [&] {
      rowRound = rallyRound(rally, requester, responder, roundTrips);
      return rowRound;
    });
    if (!ok || !checkCompleted(state, "pings", roundTrips, rally.pings())) break;
    if (paired) {
      const bool awake = how != Across::Idle;
      const std::optional<double> ratio =
          pairedRatio(rowRound, roundTrips, awake ? busyPollRound() : eventFdRound(),
                      awake ? kBusyRoundTrips : kWakeRoundTrips);
      if (!pairedRatios.add(state, ratio, "the paired floor round did not finish")) break;
    }
    const std::int64_t ran[2] = {load.turns[0].count.load() - before[0],
                                 load.turns[1].count.load() - before[1]};
    // Busy means busy all along: both loads ran during the round.
    if (busy && (ran[0] == 0 || ran[1] == 0)) {
      state.SkipWithError("the background load did not run on both isolates during the round");
      break;
    }
    loadMessages += ran[0] + ran[1];
    ++rounds;
  }
  load.stop.store(true, std::memory_order_relaxed);
  meter.report(state);
  pairedRatios.report(state);
  // How much load each isolate ran per round trip: what a message waits behind.
  if (busy && rounds > 0 && !state.error_occurred()) {
    state.counters[kLoadPerRoundTripCounter] =
        static_cast<double>(loadMessages) / static_cast<double>(2 * rounds * roundTrips);
  }
}

}  // namespace

void registerPingPongRows() {
  registerTimed(
      benchmark::RegisterBenchmark("isolates/pingpong/busy", &pingPongAcross, Across::Busy));
  registerTimed(
      benchmark::RegisterBenchmark("isolates/pingpong/wide", &pingPongAcross, Across::Wide));
  registerTimed(
      benchmark::RegisterBenchmark("isolates/pingpong/loaded", &pingPongAcross, Across::Loaded));
  registerTimed(
      benchmark::RegisterBenchmark("isolates/pingpong/idle", &pingPongAcross, Across::Idle));
}

}  // namespace coreactor::bench::isolates
