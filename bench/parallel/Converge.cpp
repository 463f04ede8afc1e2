// bench/parallel/Converge.cpp — balanced/converge/ring: how fast and how far
// the balancer undoes the worst placement of a busy ring.
//
//   balanced/converge/ring   one hop of a token around ring-many's ring (64
//                            actors, 32 tokens at once), actor i spawned on
//                            isolate i mod N of the most isolates N, so that
//                            every hop crosses, with the balancer on
//                            (ParallelRow.hpp's, 20 ms), for 2 s without a
//                            break: the tokens go round until told to stop.
//                            The figure is ns per hop over the 2 s. Beside
//                            it: the hops per second of the first and of the
//                            last tenth of the run, those of the same ring on
//                            one isolate without a balancer, by the same
//                            code, over 200 ms, and last / one (1: the
//                            balancer brought the ring to one isolate's speed),
//                            with the moves, the crossings and the forwarded
//                            messages per hop.
//
// Every member counts its hops; when told to stop, each token ends at the
// next member it reaches, which notes how many hops it made. The members'
// counts must add up to the tokens' hops, and every token must end once.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/Workloads.hpp"
#include "parallel/Families.hpp"
#include "parallel/ParallelBench.hpp"
#include "parallel/ParallelRow.hpp"

namespace coreactor::bench::parallel {
namespace {

using workloads::kRingActors;
using workloads::kRingTokens;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kConvergeRun{2};
constexpr std::chrono::milliseconds kOneIsolateRun{200};
constexpr int kTenths = 10;

/// One word: which token, and how many hops it has made.
struct Token {
  std::uint32_t id;
  std::uint32_t travelled;
};

/// A member's hops, written by the member only (on whichever isolate it runs:
/// a move orders its turns), read by the benchmark's thread while it runs.
struct alignas(64) Hops {
  std::atomic<std::int64_t> value{0};
};

/// How a token ended: the hops it made, and how often it ended (once).
struct alignas(64) Ending {
  std::int64_t hops = 0;
  std::int64_t times = 0;
};

struct ConvergeShared {
  std::vector<ActorRef> members;
  std::vector<Hops> hops = std::vector<Hops>(static_cast<std::size_t>(kRingActors));
  std::vector<Ending> endings = std::vector<Ending>(static_cast<std::size_t>(kRingTokens));
  alignas(64) std::atomic<bool> stop{false};
  RoundEnd end;

  std::int64_t counted() const {
    std::int64_t sum = 0;
    for (const Hops& member : hops) sum += member.value.load(std::memory_order_relaxed);
    return sum;
  }
};

class Member final : public Actor {
 public:
  Member(ConvergeShared* shared, std::size_t index) : shared_(shared), index_(index) {}
  void receive(ReceiveContext& ctx) override {
    const Token* token = ctx.get<Token>();
    if (token == nullptr) return;
    std::atomic<std::int64_t>& mine = shared_->hops[index_].value;
    mine.store(mine.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    const Token next{token->id, token->travelled + 1};
    if (!shared_->stop.load(std::memory_order_relaxed)) {
      ctx.tell(shared_->members[(index_ + 1) % static_cast<std::size_t>(kRingActors)], next);
      return;
    }
    Ending& ending = shared_->endings[token->id];
    ending.hops = next.travelled;
    ++ending.times;
    shared_->end.partDone();
  }

 private:
  ConvergeShared* shared_;
  std::size_t index_;
};

/// One run of the ring: the hops counted at its start and at the end of
/// each tenth, when they were counted, and what was wrong.
struct Circulation {
  std::vector<std::int64_t> hops;
  std::vector<Clock::time_point> at;
  std::int64_t total = 0;  // every hop, those made after the last tenth until the stop too
  std::string wrong;

  double perSecond(int from, int to) const {
    const double seconds = std::chrono::duration<double>(at[static_cast<std::size_t>(to)] -
                                                         at[static_cast<std::size_t>(from)])
                               .count();
    return static_cast<double>(hops[static_cast<std::size_t>(to)] -
                               hops[static_cast<std::size_t>(from)]) /
           seconds;
  }
};

/// Spawns the ring on `system`, member i on isolate i mod its isolates.
void spawnRing(ActorSystem& system, ConvergeShared& shared, std::size_t isolates) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(kRingActors); ++i) {
    shared.members.push_back(
        system.spawn<Member>("", ActorOptions::create().withIsolate(i % isolates), &shared, i));
  }
}

/// Sends the tokens round for `length`, counting the hops at every tenth,
/// then stops them and checks that every hop was counted once.
Circulation circulate(ConvergeShared& shared, Clock::duration length) {
  Circulation run;
  for (Hops& member : shared.hops) member.value.store(0, std::memory_order_relaxed);
  for (Ending& ending : shared.endings) ending = Ending{};
  shared.stop.store(false, std::memory_order_relaxed);
  shared.end.reset(kRingTokens);
  const Clock::time_point begin = Clock::now();
  run.hops.push_back(0);
  run.at.push_back(begin);
  // Token t enters at member t * (A / T), as ring-many's do.
  for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(kRingTokens); ++t) {
    shared.members[t * static_cast<std::size_t>(kRingActors / kRingTokens)].tell(Token{t, 0});
  }
  for (int tenth = 1; tenth <= kTenths; ++tenth) {
    std::this_thread::sleep_until(begin + length * tenth / kTenths);
    run.hops.push_back(shared.counted());
    run.at.push_back(Clock::now());
  }
  shared.stop.store(true, std::memory_order_relaxed);
  if (!shared.end.waitFor(kParallelRoundTimeout)) {
    run.wrong = "the tokens did not all end within " +
                std::to_string(kParallelRoundTimeout.count()) + " s: a token was lost";
    return run;
  }
  std::int64_t travelled = 0;
  for (std::size_t t = 0; t < shared.endings.size(); ++t) {
    travelled += shared.endings[t].hops;
    if (shared.endings[t].times != 1) {
      run.wrong = "token " + std::to_string(t) + " ended " +
                  std::to_string(shared.endings[t].times) + " times";
    }
  }
  run.total = shared.counted();
  if (run.total != travelled) {
    run.wrong = "the members counted " + std::to_string(run.total) + " hops, the tokens made " +
                std::to_string(travelled);
  }
  return run;
}

void runConvergeRow(benchmark::State& state) {
  const std::size_t most = workloads::parallelCounts().back();
  // The same ring on one isolate, no balancer: what the balanced run is to reach.
  double oneIsolate = 0;
  try {
    ConvergeShared shared;
    const std::unique_ptr<ActorSystem> system = ActorSystem::create(
        "parallel", ActorSystemOptions::create().withIsolates(1).withLogLevel(LogLevel::Warn));
    spawnRing(*system, shared, 1);
    const Circulation run = circulate(shared, kOneIsolateRun);
    if (!run.wrong.empty()) {
      state.SkipWithError(("one isolate: wrong result: " + run.wrong).c_str());
      return;
    }
    oneIsolate = run.perSecond(0, kTenths);
  } catch (...) {
    state.SkipWithError(("one isolate: threw: " + describe(std::current_exception())).c_str());
    return;
  }
  ConvergeShared shared;
  std::unique_ptr<ActorSystem> system;
  if (!setUp(state, [&] {
        system = ActorSystem::create("parallel", ActorSystemOptions::create()
                                                     .withIsolates(most)
                                                     .withLogLevel(LogLevel::Warn)
                                                     .withBalancer(balancerOfRows()));
        spawnRing(*system, shared, most);
      })) {
    return;
  }
  OpMeter meter;
  Circulation run;
  // Over the run, its end after the last tenth included.
  std::uint64_t crossed = 0;
  std::uint64_t forwarded = 0;
  for (auto _ : state) {
    const TransportStats before = system->transportStats();
    try {
      run = circulate(shared, kConvergeRun);
    } catch (...) {
      state.SkipWithError(("threw: " + describe(std::current_exception())).c_str());
      return;
    }
    if (!run.wrong.empty()) {
      state.SkipWithError(("wrong result: " + run.wrong).c_str());
      return;
    }
    const TransportStats after = system->transportStats();
    crossed = after.crossings - before.crossings;
    forwarded = after.forwarded - before.forwarded;
    meter.recordWindow(state, OpMeter::Timed{run.hops.back(), run.at.back() - run.at.front()});
  }
  meter.report(state);
  const double last = run.perSecond(kTenths - 1, kTenths);
  state.counters[kFirstTenthCounter] = run.perSecond(0, 1);
  state.counters[kLastTenthCounter] = last;
  state.counters[kOneIsolateCounter] = oneIsolate;
  state.counters[kLastVsOneCounter] = last / oneIsolate;
  state.counters[kCrossingsPerOpCounter] =
      static_cast<double>(crossed) / static_cast<double>(run.total);
  state.counters[kForwardedPerOpCounter] =
      static_cast<double>(forwarded) / static_cast<double>(run.total);
  const TransportStats stats = system->transportStats();
  state.counters[kMovesCounter] = static_cast<double>(stats.balancerMoves);
  state.counters[kUndoneCounter] = static_cast<double>(stats.balancerUndone);
}

}  // namespace

void registerConvergeRow() {
  // One run of 2 s per repetition: the row's rounds are that run.
  registerTimed(benchmark::RegisterBenchmark(kConvergeRow, &runConvergeRow))->Iterations(1);
}

}  // namespace coreactor::bench::parallel
