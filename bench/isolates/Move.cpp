// bench/isolates/Move.cpp — isolates/move/<queued>: what moving an actor to
// the other isolate costs (ActorSystem::move; docs/isolates.md, "Moving an
// actor"), in a threaded system of two isolates, against the ask round trip
// of the same run (isolates/ask/cross).
//
//   isolates/move/0        not a mean: the median latency of one move, from
//                          the call of ActorSystem::move to the actor's
//                          arrival on its new isolate, one move at a time;
//                          p99 beside it, and p99 over isolates/ask/cross's
//                          p99 (p99_x_ask_cross, set after the run).
//   isolates/move/1000     the same with 1000 messages told to the actor
//                          right before each call, between two of its turns.
//
// The arrival is the move's completion: it runs on the new isolate once the
// actor is there, right before its first turn there is due. Each call is
// followed at once by a probe, which a move that takes effect at the
// actor's next turn carries along with whatever was queued; but a move
// takes effect between two turns, and a turn under way goes on with up to
// its throughput of queued messages first, here on the old isolate. So the
// time of the actor's first turn there is not always a time of the move,
// and the completion is. Beside the figure:
// probes_after_move_pct, the share of probes handled on the new isolate,
// behind the move, and queued_moved_pct, the share of the queued messages
// that went with it (isolates/move/1000).
//
// Two actors move back and forth, one at a time: one spawned on isolate 0,
// one on isolate 1, so that the figure has as many moves 0 -> 1 as 1 -> 0.
// A move the figure counts ("out") is called by an actor on the mover's own
// isolate, the one its reference names: it tells the mover the queued
// messages, takes the time, calls move() with a completion, and tells the
// mover the probe. The move back ("return") is called by the same actor
// while the mover is on the other isolate, so it reaches the mover through
// the entry it left behind; it carries no queued messages, and its p50 and
// p99 are set beside the figure (return_p50_ns, return_p99_ns). A step ends
// once both its completion has run and its probe has been handled.
//
// Every move must complete without an error, every probe must be handled
// once and in order, and every queued message once and in order; a mismatch
// fails the row.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/Completion.hpp"
#include "isolates/Families.hpp"
#include "isolates/IsolatesBench.hpp"
#include "isolates/Pinning.hpp"

namespace coreactor::bench::isolates {
namespace {

/// The rows: messages told to the mover right before each out move.
constexpr std::int64_t kMoveQueued[] = {0, 1'000};
/// Moves per round that the figure counts (as many returns come between
/// them): even, so that each of the two movers ends a round at home.
constexpr std::int64_t kOutMoves = 200;
static_assert(kOutMoves % 2 == 0);
/// Steps of a round: each out move and its return.
constexpr std::int64_t kSteps = 2 * kOutMoves;

/// A queued message (its sequence number, per mover), a probe (the step it
/// follows) and the driver's cue for the next step.
struct Queued {
  std::int64_t n;
};
struct Probe {
  std::int64_t step;
};
struct NextStep {};

/// A round's steps and tallies. The step in flight is written by its driver
/// before the call; then its completion (on the mover's new isolate) and
/// the mover write fields of their own, and the one of the two that ends
/// second hands the round on with a message to the next step's driver (or
/// to the benchmark's thread, which reads the tallies once `done` is raised).
struct MoveRound {
  std::int64_t queued = 0;  // messages told before each out move
  ActorRef movers[2];       // mover p lives on isolate p between rounds
  ActorRef drivers[2];      // driver p on isolate p: it calls mover p's moves

  // The step in flight.
  std::int64_t step = 0;
  std::size_t mover = 0;
  std::size_t target = 0;
  bool out = false;
  Steady::time_point called{};
  std::atomic<int> ends{0};  // the completion and the probe still to come

  // The completions' tallies.
  std::int64_t completed = 0;  // with no error
  std::string refusal;         // the first error a completion had
  std::vector<double> outNs;
  std::vector<double> returnNs;
  // The movers' tallies.
  std::int64_t sent[2] = {0, 0};  // queued messages told to each mover, ever
  std::int64_t probes = 0;        // probes handled once, in order
  std::int64_t probesAfterMove = 0;
  std::int64_t queuedHandled = 0;
  std::int64_t queuedInOrder = 0;
  std::int64_t queuedMoved = 0;  // handled on the isolate their move went to
  std::string error;             // the first error of a driver or a mover
  Completion done;

  /// Mover and driver of step `s`: out and back of mover 0, then of mover 1.
  static std::size_t moverOf(std::int64_t s) { return static_cast<std::size_t>((s / 2) % 2); }

  /// One end of the step is there; the second hands the round on.
  void ended() {
    if (ends.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (++step == kSteps) {
      done.raise();
      return;
    }
    drivers[moverOf(step)].tell(NextStep{});
  }
};

/// Calls the moves of mover p (it runs on isolate p, which p's reference
/// names): on NextStep, the step's queued messages, the call, the probe.
class MoveDriver final : public Actor {
 public:
  explicit MoveDriver(MoveRound* round) : round_(round) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<NextStep>()) return;
    MoveRound& r = *round_;
    const std::size_t p = MoveRound::moverOf(r.step);
    const ActorRef& mover = r.movers[p];
    r.mover = p;
    r.out = r.step % 2 == 0;
    r.target = r.out ? 1 - p : p;
    if (r.out) {
      for (std::int64_t i = 0; i < r.queued; ++i) ctx.tell(mover, Queued{r.sent[p]++});
    }
    r.ends.store(2, std::memory_order_relaxed);
    r.called = Steady::now();
    try {
      ctx.system().move(mover, r.target, [&r](std::error_code error) {
        const double ns =
            std::chrono::duration<double, std::nano>(Steady::now() - r.called).count();
        if (error) {
          if (r.refusal.empty()) r.refusal = "a move failed: " + error.message();
        } else {
          ++r.completed;
          (r.out ? r.outNs : r.returnNs).push_back(ns);
        }
        r.ended();
      });
    } catch (...) {
      r.error = "move threw: " + describe(std::current_exception());
      r.done.raise();
      return;
    }
    ctx.tell(mover, Probe{r.step});
  }

 private:
  MoveRound* round_;
};

/// Moves back and forth; counts what it handles, where, and in what order.
class Mover final : public Actor {
 public:
  explicit Mover(MoveRound* round) : round_(round) {}
  void receive(ReceiveContext& ctx) override {
    MoveRound& r = *round_;
    const bool there = ctx.isolateIndex() == r.target;
    if (const Queued* queued = ctx.get<Queued>()) {
      ++r.queuedHandled;
      if (queued->n == next_) ++r.queuedInOrder;
      if (there) ++r.queuedMoved;
      next_ = queued->n + 1;
      return;
    }
    const Probe* probe = ctx.get<Probe>();
    if (probe == nullptr) return;
    if (probe->step != r.step) {
      if (r.error.empty()) {
        r.error = "the probe of step " + std::to_string(probe->step) + " came in step " +
                  std::to_string(r.step);
      }
      r.done.raise();
      return;
    }
    ++r.probes;
    if (there) ++r.probesAfterMove;
    r.ended();
  }

 private:
  MoveRound* round_;
  std::int64_t next_ = 0;  // the sequence number of the next queued message
};

/// isolates/move/<queued>: kOutMoves out moves (and their returns) a round,
/// one at a time; the round's time is the sum of its out moves' latencies.
void moveAcross(benchmark::State& state, std::int64_t queued) {
  MoveRound round;  // outlives the system, whose actors point at it
  std::unique_ptr<ActorSystem> system;
  if (!setUp(state, [&] {
        system = threadedSystem(2);
        pinIsolates(*system, 2);
        round.queued = queued;
        for (std::size_t p = 0; p < 2; ++p) {
          const ActorOptions on = ActorOptions::create().withIsolate(p);
          round.movers[p] = system->spawn<Mover>("mover-" + std::to_string(p), on, &round);
          round.drivers[p] = system->spawn<MoveDriver>("driver-" + std::to_string(p), on, &round);
        }
      })) {
    return;
  }
  std::vector<double> outs;
  std::vector<double> returns;
  std::int64_t probes = 0;
  std::int64_t probesAfterMove = 0;
  std::int64_t queuedHandled = 0;
  std::int64_t queuedMoved = 0;
  Steady::duration spent{};
  for (auto _ : state) {
    round.step = 0;
    round.completed = round.probes = round.probesAfterMove = 0;
    round.queuedHandled = round.queuedInOrder = round.queuedMoved = 0;
    round.outNs.clear();
    round.returnNs.clear();
    round.done.reset();
    round.drivers[0].tell(NextStep{});
    if (!round.done.waitFor(kGiveUp)) {
      state.SkipWithError("a round of moves did not finish");
      break;
    }
    if (!round.error.empty() || !round.refusal.empty()) {
      state.SkipWithError((round.error.empty() ? round.refusal : round.error).c_str());
      break;
    }
    if (!checkCompleted(state, "moves completed", kSteps, round.completed) ||
        !checkCompleted(state, "probes handled, in order", kSteps, round.probes) ||
        !checkCompleted(state, "queued messages handled", kOutMoves * queued,
                        round.queuedHandled) ||
        !checkCompleted(state, "queued messages handled in order", kOutMoves * queued,
                        round.queuedInOrder)) {
      break;
    }
    double sum = 0;
    for (const double ns : round.outNs) sum += ns;
    spent += std::chrono::nanoseconds(static_cast<std::int64_t>(sum));
    state.SetIterationTime(sum / 1e9);
    outs.insert(outs.end(), round.outNs.begin(), round.outNs.end());
    returns.insert(returns.end(), round.returnNs.begin(), round.returnNs.end());
    probes += round.probes;
    probesAfterMove += round.probesAfterMove;
    queuedHandled += round.queuedHandled;
    queuedMoved += round.queuedMoved;
  }
  if (state.error_occurred() || outs.empty()) return;
  reportLatencies(state, outs);
  state.counters["mean_ns"] =
      std::chrono::duration<double, std::nano>(spent).count() / static_cast<double>(outs.size());
  state.counters[kReturnP50Counter] = percentileOf(returns, 0.5);
  state.counters[kReturnP99Counter] = percentileOf(returns, 0.99);
  state.counters[kProbesAfterMoveCounter] =
      100.0 * static_cast<double>(probesAfterMove) / static_cast<double>(probes);
  if (queuedHandled > 0) {
    state.counters[kQueuedMovedCounter] =
        100.0 * static_cast<double>(queuedMoved) / static_cast<double>(queuedHandled);
  }
}

}  // namespace

void registerMoveRows() {
  for (const std::int64_t queued : kMoveQueued) {
    registerTimed(benchmark::RegisterBenchmark(moveRow(queued).c_str(), &moveAcross, queued));
  }
}

}  // namespace coreactor::bench::isolates
