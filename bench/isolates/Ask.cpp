// bench/isolates/Ask.cpp — isolates/ask/*: what one ask costs, from a
// foreign thread and from an actor on another isolate. The CAF arm runs
// both rows too (bench/caf/Ask.cpp).
//
//   isolates/ask/foreign   not a mean: the median latency of one ask from the
//                          benchmark's thread (no isolate) to an actor on an
//                          isolate, one at a time; the 99th percentile beside it.
//   isolates/ask/cross     an ask from an actor on isolate 0 to one on isolate
//                          1, one at a time, each timed from the ask to its
//                          continuation: the median latency, p99 and the mean
//                          beside it, and both over floor/busy-poll-rtt.
//
// Every ask checks that its answer is the one to its question.
#include <benchmark/benchmark.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/Results.hpp"
#include "harness/Workloads.hpp"
#include "isolates/Families.hpp"
#include "isolates/Floors.hpp"
#include "isolates/IsolatesBench.hpp"
#include "isolates/Pinning.hpp"

namespace coreactor::bench::isolates {
namespace {

using workloads::kCrossAsks;
using workloads::kForeignAsks;

// The question and its answer, and the actor that answers, of both rows.
struct Request {
  std::int64_t n;
};
struct Response {
  std::int64_t n;
};

class AskResponder final : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (const Request* request = ctx.get<Request>()) ctx.reply(Response{request->n});
  }
};

// ---- isolates/ask/foreign ------------------------------------------------------------

void askForeign(benchmark::State& state) {
  std::unique_ptr<ActorSystem> system;
  std::optional<ScopedPin> here;  // the benchmark's thread, for this row only
  ActorRef responder;
  if (!setUp(state, [&] {
        system = threadedSystem(1);
        if (pinning()) {
          pinIsolate(*system, 0, cpuFor(1));
          here.emplace(cpuFor(0));
        }
        responder = system->spawn<AskResponder>("responder");
      })) {
    return;
  }
  std::vector<double> latencies;
  latencies.reserve(1024);
  for (auto _ : state) {
    std::int64_t answered = 0;
    Steady::duration spent{};
    try {
      for (std::int64_t i = 0; i < kForeignAsks; ++i) {
        const Steady::time_point asked = Steady::now();
        const Response response = system->ask<Response>(responder, Request{i}, kGiveUp).get();
        const Steady::duration took = Steady::now() - asked;
        answered += response.n == i ? 1 : 0;
        spent += took;
        latencies.push_back(std::chrono::duration<double, std::nano>(took).count());
      }
    } catch (...) {
      state.SkipWithError(("threw: " + describe(std::current_exception())).c_str());
      break;
    }
    if (!checkCompleted(state, "asks answered", kForeignAsks, answered)) break;
    state.SetIterationTime(std::chrono::duration<double>(spent).count());
  }
  if (state.error_occurred() || latencies.empty()) return;
  reportLatencies(state, latencies);
}

// ---- isolates/ask/cross --------------------------------------------------------------

/// What a round of cross asks hands back to the bench thread.
struct CrossAskRound {
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  std::int64_t answered = 0;
  std::vector<double> latencies;  // ns, one per ask, in order
};

struct AskAcross {
  CrossAskRound* round;
};

/// On AskAcross, asks its responder kCrossAsks times, one at a time: each
/// answer's continuation takes the time and sends the next ask.
class CrossAsker final : public Actor {
 public:
  explicit CrossAsker(ActorRef responder) : responder_(responder) {}
  void receive(ReceiveContext& ctx) override {
    if (const AskAcross* go = ctx.get<AskAcross>()) {
      round_ = go->round;
      round_->latencies.clear();
      round_->answered = 0;
      askNext(ctx);
    }
  }

 private:
  void askNext(ReceiveContext& ctx) {
    const std::int64_t n = static_cast<std::int64_t>(round_->latencies.size());
    asked_ = Steady::now();
    ctx.ask<Response>(
        responder_, Request{n}, kGiveUp,
        [this, n](ReceiveContext& next, AskResult<Response>& result) {
          const Steady::duration took = Steady::now() - asked_;
          round_->latencies.push_back(std::chrono::duration<double, std::nano>(took).count());
          if (result.ok() && result.value().n == n) ++round_->answered;
          if (static_cast<std::int64_t>(round_->latencies.size()) < kCrossAsks) {
            askNext(next);
            return;
          }
          std::lock_guard<std::mutex> lock(round_->mutex);
          round_->finished = true;
          round_->done.notify_one();
        });
  }

  ActorRef responder_;
  CrossAskRound* round_ = nullptr;
  Steady::time_point asked_{};
};

/// isolates/ask/cross: an ask from an actor on isolate 0 to one on isolate 1,
/// one at a time, each timed from the ask to its continuation. The figure is
/// the p50 of every ask of the row; p99 and the mean beside it. Each round is
/// paired with a round of floor/busy-poll-rtt right after it, and the row
/// reports the median over rounds of the round's p50 and p99 over that
/// floor (p50_x_floor_paired, p99_x_floor_paired), which the targets read.
void askAcross(benchmark::State& state) {
  CrossAskRound round;  // outlives the system, whose asker points at it
  std::unique_ptr<ActorSystem> system;
  ActorRef asker;
  if (!setUp(state, [&] {
        system = threadedSystem(2);
        pinIsolates(*system, 2);
        const ActorRef responder =
            system->spawn<AskResponder>("responder", ActorOptions::create().withIsolate(1));
        asker =
            system->spawn<CrossAsker>("asker", ActorOptions::create().withIsolate(0), responder);
      })) {
    return;
  }
  std::vector<double> all;
  std::vector<double> p50s;
  std::vector<double> p99s;
  Steady::duration spent{};
  for (auto _ : state) {
    {
      std::lock_guard<std::mutex> lock(round.mutex);
      round.finished = false;
    }
    asker.tell(AskAcross{&round});
    std::unique_lock<std::mutex> lock(round.mutex);
    if (!round.done.wait_for(lock, kGiveUp, [&] { return round.finished; })) {
      state.SkipWithError("a round of asks did not finish");
      break;
    }
    if (!checkCompleted(state, "asks answered", kCrossAsks, round.answered)) break;
    double sum = 0;
    for (const double ns : round.latencies) sum += ns;
    spent += std::chrono::nanoseconds(static_cast<std::int64_t>(sum));
    state.SetIterationTime(sum / 1e9);
    all.insert(all.end(), round.latencies.begin(), round.latencies.end());
    const Timed floor = busyPollRound();
    if (floor.ran != kBusyRoundTrips || floor.elapsed.count() <= 0) {
      state.SkipWithError("the paired floor round did not finish");
      break;
    }
    const double floorNs = std::chrono::duration<double, std::nano>(floor.elapsed).count() /
                           static_cast<double>(kBusyRoundTrips);
    p50s.push_back(percentileOf(round.latencies, 0.5) / floorNs);
    p99s.push_back(percentileOf(round.latencies, 0.99) / floorNs);
  }
  if (state.error_occurred() || all.empty()) return;
  reportLatencies(state, all);
  state.counters["mean_ns"] =
      std::chrono::duration<double, std::nano>(spent).count() / static_cast<double>(all.size());
  state.counters[kP50PairedCounter] = medianOfSamples(std::move(p50s));
  state.counters[kP99PairedCounter] = medianOfSamples(std::move(p99s));
}

}  // namespace

void registerAskRows() {
  registerTimed(benchmark::RegisterBenchmark(workloads::kForeignAskRow, &askForeign));
  registerTimed(benchmark::RegisterBenchmark(workloads::kCrossAskRow, &askAcross));
}

}  // namespace coreactor::bench::isolates
