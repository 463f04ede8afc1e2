// bench/caf/Ask.cpp — the asks on CAF: actor/ask/* between two actors of one
// worker thread (ours: bench/actor/Ask.cpp), and isolates/ask/cross and
// isolates/ask/foreign, between two worker threads and from the benchmark's
// thread (ours: bench/isolates/Ask.cpp). Every ask but no-deadline's has the
// shared deadline (workloads::kAskTimeout).
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

using workloads::kAsks;
using workloads::kAskTimeout;

// ---- actor/ask/from-actor, actor/ask/one-at-a-time ------------------------------------

struct AskTally {
  std::int64_t answered = 0;  // completed with a Response
  std::int64_t failed = 0;    // completed with an error (a timeout)
  Round* round = nullptr;

  /// Counts one outcome in; true (and the round finished) after the last.
  bool completed() {
    if (answered + failed != kAsks) return false;
    round->finish(answered);
    return true;
  }
};

/// Replies to each Request.
caf::behavior askResponder(caf::event_based_actor*) {
  return {[](const Request& request) { return Response{request.n}; }};
}

/// On Go, sends kAsks requests at once, each with the shared deadline, and
/// counts the outcomes in the continuations (which run in its own turns).
caf::behavior asker(caf::event_based_actor* self, caf::actor responder, AskTally* tally) {
  return {[=](const Go& go) {
    *tally = AskTally{0, 0, go.round};
    go.round->begin = WallClock::now();
    for (std::int64_t i = 0; i < kAsks; ++i) {
      self->request(responder, kAskTimeout, Request{static_cast<int>(i)})
          .then(
              [=](const Response&) {
                ++tally->answered;
                tally->completed();
              },
              [=](caf::error&) {
                ++tally->failed;
                tally->completed();
              });
    }
  }};
}

/// Sends the next request of a one-at-a-time run, with `timeout` (the
/// shared deadline, or caf::infinite); its continuation sends the one after,
/// until the tally is complete.
void askNext(caf::event_based_actor* self, const caf::actor& responder, AskTally* tally,
             caf::duration timeout) {
  const int n = static_cast<int>(tally->answered + tally->failed);
  self->request(responder, timeout, Request{n})
      .then(
          [=](const Response&) {
            ++tally->answered;
            if (!tally->completed()) askNext(self, responder, tally, timeout);
          },
          [=](caf::error&) {
            ++tally->failed;
            if (!tally->completed()) askNext(self, responder, tally, timeout);
          });
}

/// On Go, asks kAsks times, one at a time, each with the shared deadline.
caf::behavior oneAtATimeAsker(caf::event_based_actor* self, caf::actor responder, AskTally* tally) {
  return {[=](const Go& go) {
    *tally = AskTally{0, 0, go.round};
    go.round->begin = WallClock::now();
    askNext(self, responder, tally, caf::duration{kAskTimeout});
  }};
}

/// The same without a deadline (actor/ask/one-at-a-time/no-deadline).
caf::behavior oneAtATimeAskerWithoutDeadline(caf::event_based_actor* self, caf::actor responder,
                                             AskTally* tally) {
  return {[=](const Go& go) {
    *tally = AskTally{0, 0, go.round};
    go.round->begin = WallClock::now();
    askNext(self, responder, tally, caf::duration{caf::infinite});
  }};
}

using AskerBehavior = caf::behavior (*)(caf::event_based_actor*, caf::actor, AskTally*);

/// actor/ask/from-actor (all asks at once) and actor/ask/one-at-a-time.
void ask(benchmark::State& state, const char* row, AskerBehavior behavior) {
  AskTally tally;  // first: it outlives the actors that count into it
  Arm arm(row);
  const caf::actor responder = arm.spawn(askResponder);
  const caf::actor driver = arm.spawn(behavior, responder, &tally);
  OpMeter meter;
  for (auto _ : state) {
    Round round;
    if (!meter.measureTimed(state, "asks answered", kAsks,
                            [&] { return arm.runRound(driver, round, Go{&round}); })) {
      break;
    }
  }
  meter.report(state);
}

// ---- isolates/ask/cross ----------------------------------------------------------------

/// What a round of isolates/ask/cross collects: one latency per ask, in ns.
struct CrossAsks {
  Round* round = nullptr;
  std::int64_t answered = 0;
  std::vector<double> latencies;
  WallClock::time_point asked{};
};

void askAcrossNext(caf::event_based_actor* self, const caf::actor& responder, CrossAsks* asks) {
  const int n = static_cast<int>(asks->latencies.size());
  asks->asked = WallClock::now();
  const auto next = [=](bool answered) {
    asks->latencies.push_back(
        std::chrono::duration<double, std::nano>(WallClock::now() - asks->asked).count());
    if (answered) ++asks->answered;
    if (static_cast<std::int64_t>(asks->latencies.size()) < workloads::kCrossAsks) {
      askAcrossNext(self, responder, asks);
    } else {
      asks->round->finish(asks->answered);
    }
  };
  self->request(responder, caf::duration{kAskTimeout}, Request{n})
      .then([=](const Response& response) { next(response.n == n); },
            [=](caf::error&) { next(false); });
}

/// On Go, asks kCrossAsks times, one at a time, timing each.
caf::behavior crossAsker(caf::event_based_actor* self, caf::actor responder, CrossAsks* asks) {
  return {[=](const Go& go) {
    asks->round = go.round;
    asks->answered = 0;
    asks->latencies.clear();
    go.round->begin = WallClock::now();
    askAcrossNext(self, responder, asks);
  }};
}

/// isolates/ask/cross: two worker threads, the asker and the responder
/// where CAF's scheduler puts them; the p50 of every ask is the figure.
void askAcross(benchmark::State& state) {
  CrossAsks asks;  // first: it outlives the actors that write into it
  Arm arm(workloads::kCrossAskRow, 2);
  const caf::actor responder = arm.spawn(askResponder);
  const caf::actor driver = arm.spawn(crossAsker, responder, &asks);
  std::vector<double> all;
  double spent = 0;
  for (auto _ : state) {
    Round round;
    const OpMeter::Timed timed = arm.runRound(driver, round, Go{&round});
    if (!checkCompleted(state, "asks answered", workloads::kCrossAsks, timed.ran)) break;
    for (const double ns : asks.latencies) spent += ns;
    all.insert(all.end(), asks.latencies.begin(), asks.latencies.end());
    state.SetIterationTime(std::chrono::duration<double>(timed.elapsed).count());
  }
  if (state.error_occurred() || all.empty()) return;
  reportLatencies(state, all);
  state.counters["mean_ns"] = spent / static_cast<double>(all.size());
}

// ---- isolates/ask/foreign ----------------------------------------------------------------

/// isolates/ask/foreign: the benchmark's thread asks through a scoped_actor
/// and blocks for each reply (request(...).receive(...)), one at a time,
/// with the shared deadline; one worker thread runs the responder. The
/// p50 of every ask is the figure.
void askForeign(benchmark::State& state) {
  Arm arm(workloads::kForeignAskRow, 1);
  const caf::actor responder = arm.spawn(askResponder);
  caf::scoped_actor self{arm.system()};
  std::vector<double> all;
  for (auto _ : state) {
    std::int64_t answered = 0;
    double spent = 0;
    for (std::int64_t i = 0; i < workloads::kForeignAsks; ++i) {
      const int n = static_cast<int>(i);
      const WallClock::time_point asked = WallClock::now();
      self->request(responder, caf::duration{kAskTimeout}, Request{n})
          .receive([&](const Response& response) { answered += response.n == n ? 1 : 0; },
                   [&](caf::error&) {});
      const double took =
          std::chrono::duration<double, std::nano>(WallClock::now() - asked).count();
      spent += took;
      all.push_back(took);
    }
    if (!checkCompleted(state, "asks answered", workloads::kForeignAsks, answered)) break;
    state.SetIterationTime(spent / 1e9);
  }
  if (state.error_occurred() || all.empty()) return;
  reportLatencies(state, all);
}

}  // namespace

// In the order the CAF arm has always run them.
void registerAskRows() {
  registerTimed(benchmark::RegisterBenchmark(workloads::kAskRow, &ask, workloads::kAskRow, &asker));
  registerTimed(benchmark::RegisterBenchmark(workloads::kCrossAskRow, &askAcross));
  registerTimed(benchmark::RegisterBenchmark(workloads::kForeignAskRow, &askForeign));
  registerTimed(benchmark::RegisterBenchmark(workloads::kAskOneAtATimeRow, &ask,
                                             workloads::kAskOneAtATimeRow, &oneAtATimeAsker));
  registerTimed(benchmark::RegisterBenchmark(workloads::kAskNoDeadlineRow, &ask,
                                             workloads::kAskNoDeadlineRow,
                                             &oneAtATimeAskerWithoutDeadline));
}

}  // namespace coreactor::bench::cafarm
