// bench/actor/ActorBench.cpp — what the actor runtime costs on top of the loop: a
// tell, a ping-pong exchange, an ask, a spawn, and an idle actor's memory.
//
// The families, and what one "op" is in each:
//   actor/tell/<N>         one message of a batch of N tells of a small struct,
//                          from the driving thread into one actor, handled.
//   actor/pingpong/10000   one round trip (ping -> pong) between two actors, of
//                          10,000 started by a single tell: two tells, two turns.
//   actor/ask/from-actor   one ask from an actor to another on its isolate
//                          (ReceiveContext::ask): reply slot, timer, tell,
//                          reply, and the continuation run in a turn of the
//                          asker. One message makes the asker issue 10,000
//                          (so 10,000 timers are armed at once), then the loop
//                          runs.
//   actor/ask/one-at-a-time one ask from an actor, as above, but each one sent
//                          by the previous one's continuation: one in flight,
//                          10,000 in a row. The per-ask cost without a fan-out.
//   actor/ask/from-driver  the same 10,000 asks through ActorSystem::ask with a callback
//                          from the driving thread (the loop thread, in manual
//                          mode): the stand-in measured before
//                          ReceiveContext::ask existed, kept to show what the
//                          hop back into the asking actor adds.
//   actor/spawn/100        one actor's whole life: spawned, started (preStart),
//                          stopped (system->stop, postStop); 100 per iteration.
//   actor/spawn/<N>        one actor spawned and started, N at once (N = 10k,
//                          100k: their ratio is the O(1)-per-spawn claim);
//                          stopping them is off the clock, but checked.
//   actor/memory           resident bytes (RSS) per idle actor: 100,000 actors,
//                          each started and given one message. Measured in a
//                          child process, a fresh heap each time (see
//                          measureMemory below).
// The sizes are bench/harness/Workloads.hpp's, shared with the CAF arm
// (bench/caf/CafBench.cpp), which runs every row above but actor/ask/from-driver
// under the same names, so that coreactor-bench can set them side by side.
//
// Every system runs in manual mode (ActorSystemOptions::withManualRun): the
// benchmark's thread is the loop thread, tells from it take the local path, and
// runUntilIdle() runs the loop there, so no cross-thread wake-up is in any
// figure. The default dispatcher (HybridDispatcher(64)) and the default
// throughput (16 messages per turn) are used throughout.
//
// Completion: the actors count what they actually handled (started, received,
// stopped) in a Tally the benchmark owns; after every iteration the counts are
// checked against what was asked (bench/harness/BenchSupport.hpp), and a mismatch fails
// the benchmark instead of producing a figure. The system and the long-lived
// actors are built outside the timed region; where spawning is the point, the
// spawns are timed and the clean-up is not.
#include "actor/ActorBench.hpp"

#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "harness/BenchSupport.hpp"
#include "harness/MemoryProbe.hpp"
#include "harness/RingFloor.hpp"
#include "harness/Workloads.hpp"
#include "coreactor/ActorSystem.hpp"

namespace coreactor::bench {
namespace {

// The workloads' sizes are shared with the CAF arm (bench/harness/Workloads.hpp).
using workloads::kAsks;
using workloads::kAskTimeout;
using workloads::kIdleActors;
using workloads::kLifecycleActors;
using workloads::kPopulations;
using workloads::kRoundTrips;
using workloads::kTellBatches;

std::unique_ptr<ActorSystem> manualSystem() {
  return ActorSystem::create("bench", ActorSystemOptions::create().withManualRun());
}

// ---- the actors ---------------------------------------------------------------------

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

struct Ping {
  int n;
};
struct Pong {
  int n;
};

struct Rally {
  std::int64_t target = 0;
  std::int64_t pings = 0;  // received by the responder
  std::int64_t pongs = 0;  // received by the requester: completed round trips
};

/// Both sides of the ping-pong: answers a Ping with a Pong, and a Pong with
/// the next Ping until `target` round trips are done. Always ctx.reply: the
/// sender is the other side.
class Player final : public Actor {
 public:
  explicit Player(Rally* rally) : rally_(rally) {}
  void receive(ReceiveContext& ctx) override {
    if (const Ping* ping = ctx.get<Ping>()) {
      ++rally_->pings;
      ctx.reply(Pong{ping->n});
    } else if (const Pong* pong = ctx.get<Pong>()) {
      if (++rally_->pongs < rally_->target) ctx.reply(Ping{pong->n + 1});
    }
  }

 private:
  Rally* rally_;
};

struct Request {
  int n;
};
struct Response {
  int n;
};

/// The target of actor/ask/*: replies to each Request.
class Responder final : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (const Request* request = ctx.get<Request>()) ctx.reply(Response{request->n});
  }
};

// ---- actor/tell/<N> -------------------------------------------------------------------

void tellBatch(benchmark::State& state, std::int64_t batch) {
  auto system = manualSystem();
  Tally tally;
  const ActorRef sink = system->spawn<CountingActor>("sink", ActorOptions::create(), &tally);
  system->runUntilIdle();
  if (!checkCompleted(state, "actor started", 1, tally.started)) return;
  OpMeter meter;
  FloorPairing floor;
  for (auto _ : state) {
    const bool ok = floor.run(batch, [&] {
      return meter.measure(state, "messages", batch, [&] {
        tally.received = 0;
        for (std::int64_t i = 0; i < batch; ++i) sink.tell(Count{static_cast<int>(i)});
        system->runUntilIdle();
        return tally.received;
      });
    });
    if (!ok) break;
  }
  meter.report(state);
  floor.report(state);
}

// ---- actor/pingpong/<N> ---------------------------------------------------------------

void pingPong(benchmark::State& state, std::int64_t roundTrips) {
  auto system = manualSystem();
  Rally rally;
  rally.target = roundTrips;
  const ActorRef requester = system->spawn<Player>("requester", ActorOptions::create(), &rally);
  const ActorRef responder = system->spawn<Player>("responder", ActorOptions::create(), &rally);
  system->runUntilIdle();
  OpMeter meter;
  FloorPairing floor;
  for (auto _ : state) {
    const bool ok = floor.run(roundTrips, [&] {
      return meter.measure(state, "round trips", roundTrips, [&] {
        rally.pings = 0;
        rally.pongs = 0;
        // The one tell that starts the rally, as if the requester had sent it.
        responder.tell(Ping{0}, requester);
        system->runUntilIdle();
        return rally.pongs;
      });
    });
    // Every round trip needs its ping to have been handled too.
    if (!ok || !checkCompleted(state, "pings", roundTrips, rally.pings)) break;
  }
  meter.report(state);
  floor.report(state);
}

// ---- actor/ask/* ------------------------------------------------------------------------

struct AskTally {
  std::int64_t answered = 0;  // completed with a Response
  std::int64_t failed = 0;    // completed with an error or another reply
};

/// Tells the asker to issue `count` asks at once.
struct AskMany {
  std::int64_t count;
};

/// Asks `responder` as many times as it is told to, and counts the outcomes
/// in the continuations (which run in its own turns).
class Asker final : public Actor {
 public:
  Asker(ActorRef responder, AskTally* tally) : responder_(responder), tally_(tally) {}
  void receive(ReceiveContext& ctx) override {
    const AskMany* go = ctx.get<AskMany>();
    if (go == nullptr) return;
    for (std::int64_t i = 0; i < go->count; ++i) {
      ctx.ask<Response>(responder_, Request{static_cast<int>(i)}, kAskTimeout,
                        [t = tally_](ReceiveContext&, AskResult<Response>& result) {
                          if (result.ok()) {
                            ++t->answered;
                          } else {
                            ++t->failed;
                          }
                        });
    }
  }

 private:
  ActorRef responder_;
  AskTally* tally_;
};

/// Asks `responder` one question at a time, as many as it is told to: each
/// answer's continuation sends the next ask.
class OneAtATimeAsker final : public Actor {
 public:
  OneAtATimeAsker(ActorRef responder, AskTally* tally) : responder_(responder), tally_(tally) {}
  void receive(ReceiveContext& ctx) override {
    const AskMany* go = ctx.get<AskMany>();
    if (go == nullptr) return;
    remaining_ = go->count;
    askNext(ctx);
  }

 private:
  void askNext(ReceiveContext& ctx) {
    ctx.ask<Response>(responder_, Request{static_cast<int>(remaining_)}, kAskTimeout,
                      [this](ReceiveContext& next, AskResult<Response>& result) {
                        if (result.ok()) {
                          ++tally_->answered;
                        } else {
                          ++tally_->failed;
                        }
                        if (--remaining_ > 0) askNext(next);
                      });
  }

  ActorRef responder_;
  AskTally* tally_;
  std::int64_t remaining_ = 0;
};

/// actor/ask/from-actor (Asker: all at once) and actor/ask/one-at-a-time.
template <class AskingActor>
void askFromActor(benchmark::State& state) {
  auto system = manualSystem();
  AskTally tally;
  const ActorRef responder = system->spawn<Responder>("responder");
  const ActorRef asker =
      system->spawn<AskingActor>("asker", ActorOptions::create(), responder, &tally);
  system->runUntilIdle();
  OpMeter meter;
  FloorPairing floor;
  for (auto _ : state) {
    const bool ok = floor.run(kAsks, [&] {
      return meter.measure(state, "asks answered", kAsks, [&] {
        tally = AskTally{};
        asker.tell(AskMany{kAsks});
        system->runUntilIdle();
        return tally.answered;
      });
    });
    if (!ok) break;
  }
  meter.report(state);
  floor.report(state);
}

void askFromDriver(benchmark::State& state) {
  auto system = manualSystem();
  const ActorRef responder = system->spawn<Responder>("responder");
  system->runUntilIdle();
  AskTally tally;
  OpMeter meter;
  for (auto _ : state) {
    const bool ok = meter.measure(state, "asks answered", kAsks, [&] {
      tally = AskTally{};
      for (std::int64_t i = 0; i < kAsks; ++i) {
        system->ask(responder, Message(Request{static_cast<int>(i)}), kAskTimeout,
                        [t = &tally](Message* reply, std::error_code error) {
                          if (!error && reply != nullptr && reply->is<Response>()) {
                            ++t->answered;
                          } else {
                            ++t->failed;
                          }
                        });
      }
      system->runUntilIdle();
      return tally.answered;
    });
    if (!ok) break;
  }
  meter.report(state);
}

// ---- actor/spawn/<N> --------------------------------------------------------------------

/// Stops every actor of `refs` and runs the loop until they have all stopped.
/// Returns how many postStop hooks ran.
std::int64_t stopAll(ActorSystem& system, const std::vector<ActorRef>& refs, Tally& tally) {
  tally.stopped = 0;
  for (const ActorRef& ref : refs) system.stop(ref);
  system.runUntilIdle();
  return tally.stopped;
}

/// actor/spawn/100: spawn, start and stop, all on the clock.
void spawnLifecycle(benchmark::State& state, std::int64_t actors) {
  auto system = manualSystem();
  system->runUntilIdle();
  Tally tally;
  std::vector<ActorRef> refs;
  refs.reserve(static_cast<std::size_t>(actors));
  OpMeter meter;
  FloorPairing floor;
  for (auto _ : state) {
    const bool ok = floor.run(actors, [&] {
      return meter.measure(state, "actors through start and stop", actors, [&] {
        refs.clear();
        tally = Tally{};
        for (std::int64_t i = 0; i < actors; ++i) {
          refs.push_back(system->spawn<CountingActor>("", ActorOptions::create(), &tally));
        }
        system->runUntilIdle();
        // Not all started: report that count, and the check fails on it.
        if (tally.started != actors) return tally.started;
        return stopAll(*system, refs, tally);
      });
    });
    if (!ok) break;
  }
  meter.report(state);
  floor.report(state);
}

/// actor/spawn/<N>: spawn and start on the clock; the stop is checked off it.
void spawnPopulation(benchmark::State& state, std::int64_t actors) {
  auto system = manualSystem();
  system->runUntilIdle();
  Tally tally;
  std::vector<ActorRef> refs;
  refs.reserve(static_cast<std::size_t>(actors));
  OpMeter meter;
  for (auto _ : state) {
    refs.clear();
    tally = Tally{};
    const bool ok = meter.measure(state, "actors started", actors, [&] {
      for (std::int64_t i = 0; i < actors; ++i) {
        refs.push_back(system->spawn<CountingActor>("", ActorOptions::create(), &tally));
      }
      system->runUntilIdle();
      return tally.started;
    });
    if (!ok || !OpMeter::unmeasured(state, "actors stopped", actors,
                                    [&] { return stopAll(*system, refs, tally); })) {
      break;
    }
  }
  meter.report(state);
}

// ---- actor/memory -----------------------------------------------------------------------
//
// In a fresh child process each time: bench/harness/MemoryProbe.hpp says why and how.
// The child is runActorMemoryProbe below.

void measureMemory(benchmark::State& state) {
  measureMemoryInChild(state, kMemoryProbeFlag, kIdleActors);
}

}  // namespace

int runActorMemoryProbe() {
  return runMemoryProbeChild(kMemoryProbeFlag, [] {
    // Made before the first point, and written to, so that its pages are in
    // the baseline rather than in the actors' figure.
    std::vector<ActorRef> refs(static_cast<std::size_t>(kIdleActors));
    Tally tally;
    const MemoryPoint bare = memoryNow();
    auto system = manualSystem();
    system->runUntilIdle();
    const MemoryPoint empty = memoryNow();
    for (ActorRef& ref : refs) {
      ref = system->spawn<CountingActor>("", ActorOptions::create(), &tally);
    }
    system->runUntilIdle();
    for (const ActorRef& ref : refs) ref.tell(Count{1});
    system->runUntilIdle();
    const MemoryPoint idle = memoryNow();
    if (!idleActorsReady(kMemoryProbeFlag, kIdleActors, tally.started, tally.received)) return 1;
    system->shutdown();
    if (!idleActorsStopped(kMemoryProbeFlag, kIdleActors, tally.stopped)) return 1;
    printMemoryReading(MemoryReading{bare, empty, idle, static_cast<long long>(tally.received)});
    return 0;
  });
}

void registerActorBenchmarks() {
  for (const std::int64_t batch : kTellBatches) {
    registerTimed(
        benchmark::RegisterBenchmark(workloads::tellRow(batch).c_str(), &tellBatch, batch));
  }
  registerTimed(
      benchmark::RegisterBenchmark(workloads::pingPongRow().c_str(), &pingPong, kRoundTrips));
  registerTimed(benchmark::RegisterBenchmark(workloads::kAskRow, &askFromActor<Asker>));
  registerTimed(
      benchmark::RegisterBenchmark(workloads::kAskOneAtATimeRow, &askFromActor<OneAtATimeAsker>));
  registerTimed(benchmark::RegisterBenchmark("actor/ask/from-driver", &askFromDriver));
  registerTimed(benchmark::RegisterBenchmark(workloads::spawnRow(kLifecycleActors).c_str(),
                                             &spawnLifecycle, kLifecycleActors));
  for (const std::int64_t actors : kPopulations) {
    registerTimed(benchmark::RegisterBenchmark(workloads::spawnRow(actors).c_str(),
                                               &spawnPopulation, actors));
  }
  // One child process per repetition; a single iteration each.
  benchmark::RegisterBenchmark(workloads::kMemoryRow, &measureMemory)->Iterations(1);
}

}  // namespace coreactor::bench
