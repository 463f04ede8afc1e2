// bench/actor/Ask.cpp — actor/ask/*: one ask between two actors of one
// isolate, and from the driving thread. The CAF arm's rows: bench/caf/Ask.cpp.
//
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
//                          hop back into the asking actor adds (ours only).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <system_error>

#include "actor/Families.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/RingFloor.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::actor {
namespace {

using workloads::kAsks;
using workloads::kAskTimeout;

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

}  // namespace

void registerAskRows() {
  registerTimed(benchmark::RegisterBenchmark(workloads::kAskRow, &askFromActor<Asker>));
  registerTimed(
      benchmark::RegisterBenchmark(workloads::kAskOneAtATimeRow, &askFromActor<OneAtATimeAsker>));
  registerTimed(benchmark::RegisterBenchmark("actor/ask/from-driver", &askFromDriver));
}

}  // namespace coreactor::bench::actor
