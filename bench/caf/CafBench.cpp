// bench/caf/CafBench.cpp — coreactor-bench-caf, the CAF arm: the actor rows of
// coreactor-bench (bench/actor/ActorBench.cpp) run on CAF 0.17 (Debian's
// libcaf-dev), with the same sizes (bench/harness/Workloads.hpp), the same completion
// checks and the same repetitions (bench/harness/BenchSupport.hpp), in a process of
// its own. coreactor-bench runs it as a child and reads its stdout; run alone,
// it prints the same lines:
//   config <key> <value>           how CAF was set up, once at the start
//   sample <row> <counter> <value> one repetition's counter (ns_per_op, ...)
//   failed <row> <reason>          the row failed its completion check or threw
//   rows <n>                       how many rows ran, at the end
// Progress goes to stderr. Exit status: 0 every row completed, 1 a row
// failed, 2 bad command line.
// Its length is the other arm: every actor and parallel workload of
// coreactor-bench written again against CAF's API, in one program built
// only where CAF is, so it shares no workload code with ours.
//
// How CAF is set up, and why (docs/benchmarks.md has the whole story):
//   - scheduler.max-threads = 1: one worker thread runs every actor, as one
//     isolate runs ours. CAF's default (one worker per core) would put the two
//     sides of a ping-pong on two cores and measure its cross-core hand-off
//     against our same-thread send; the per-core figure is the one to compare.
//     The policy stays CAF's default (work stealing), and so does
//     scheduler.max-throughput (unbounded: an actor drains its mailbox).
//   - logging: Debian builds CAF with CAF_LOG_LEVEL QUIET (compiled out); the
//     logger's verbosities are set to quiet besides, so no log thread runs.
//   - actors: CAF's default, event-based (scheduled) actors, spawned with no
//     options; messages are small structs of one int, as ours.
//   - ask: request(...).then(...) with the same 10 s deadline as ours (CAF
//     arms and cancels it on its timer thread). With 10,000 asks in flight
//     (actor/ask/from-actor) CAF 0.17 finds each answer's handler by a linear
//     search (its unordered_flat_map of pending responses is a vector), so
//     that row grows with the fan-out; actor/ask/one-at-a-time, one ask in
//     flight, is the per-ask cost without it. One more row, CAF only, asks
//     one at a time without a deadline (caf::infinite): every ask of ours has
//     one, so it is the comparison most favourable to CAF, and shows what its
//     deadlines cost it.
//   - time: the worker thread takes it, from the first send to the last
//     message's completion, and hands it back (OpMeter::measureTimed). Our arm
//     runs its loop on the benchmark's thread; here the benchmark's thread only
//     sends one message to start a round and waits for the round to finish, and
//     neither wake-up is in the figure.
//   - the parallel rows (parallel/<workload>/<n>: bench/harness/Workloads.hpp) give
//     CAF n scheduler threads (scheduler.max-threads = n), as ours get n
//     isolates, and leave the placement to its work-stealing scheduler. Their
//     rounds are timed and checked as ours (bench/harness/ParallelRound.hpp): from the
//     kick-off on the benchmark's thread to the end of the last part, on the
//     worker that finished it.
//   - completion: each round counts what its actors actually did (messages
//     handled, round trips, answers, starts, stops) and the benchmark thread
//     checks the counts against what was asked, as in our arm. A message that
//     is lost leaves the round unfinished: after kRoundTimeout the row fails
//     and the process exits 1.
// The whole CAF arm is one program on purpose (it links CAF and no
// coreactor), hence its length.
#include <benchmark/benchmark.h>

#include <algorithm>

#include <caf/all.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/BenchSupport.hpp"
#include "harness/MemoryProbe.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/RunDefaults.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {

using WallClock = std::chrono::steady_clock;

/// One timed round of a row: started by one message from the benchmark's
/// thread, finished on the worker thread. The worker fills it; the benchmark's
/// thread reads it once `done` is set (the promise orders the two).
struct Round {
  std::int64_t ran = 0;
  WallClock::time_point begin{};
  WallClock::time_point end{};
  std::promise<void> done;

  void finish(std::int64_t count) {
    ran = count;
    end = WallClock::now();
    done.set_value();
  }
};

// ---- the messages: small structs, as our arm's -------------------------------------

struct Go {
  Round* round;
};
struct Count {
  int value;
};
struct Flush {
  Round* round;
};
struct Ping {
  int n;
};
struct Pong {
  int n;
};
struct Request {
  int n;
};
struct Response {
  int n;
};
struct AllStarted {};
struct StopAll {
  Round* round;
};

// The parallel rows' (parallel/*), as our arm's (bench/parallel/ParallelBench.cpp).
struct Serve {};
struct Fork {};
struct Item {
  std::uint64_t value;
};
struct Answer {
  std::uint64_t value;
};
struct Token {
  std::uint32_t id;
  std::uint32_t travelled;
};
struct Begin {};
struct PeerRequest {
  std::uint64_t n;
};
struct PeerReply {
  std::uint64_t n;
};
struct Feed {};
struct Flow {
  std::uint64_t value;
};

}  // namespace coreactor::bench::cafarm

// Local messages only: CAF 0.17 wants a type to be serialisable unless told
// it never leaves the process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Go)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Count)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Flush)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Ping)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Pong)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Response)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::AllStarted)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::StopAll)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Serve)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Fork)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Item)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Answer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Token)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Begin)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::PeerRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::PeerReply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Feed)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Flow)

namespace coreactor::bench::cafarm {
namespace {

using workloads::kAsks;
using workloads::kAskTimeout;
using workloads::kIdleActors;
using workloads::kLifecycleActors;
using workloads::kPopulations;
using workloads::kRoundTrips;
using workloads::kTellBatches;

constexpr const char* kProgram = "coreactor-bench-caf";
/// The hidden flag that makes this program actor/memory's child (alone).
constexpr const char* kMemoryProbeFlag = "--caf-memory-probe";
/// How long the benchmark's thread waits for one round. Rounds take
/// milliseconds; one that has not finished after this lost a message.
constexpr std::chrono::seconds kRoundTimeout{60};

// ---- the actor system -----------------------------------------------------------------

class BenchConfig final : public caf::actor_system_config {
 public:
  /// One scheduler thread for the actor rows; n for parallel/<workload>/<n>.
  explicit BenchConfig(std::size_t threads = 1) {
    set("scheduler.max-threads", static_cast<caf::config_value::integer>(threads));
    set("logger.verbosity", caf::atom("quiet"));
    set("logger.file-verbosity", caf::atom("quiet"));
    set("logger.console-verbosity", caf::atom("quiet"));
  }
};

/// One actor system per benchmark run, as our arm makes one ActorSystem, and
/// the row it runs. The actors it keeps are told to exit before the system's
/// destructor waits for every actor to be done.
class Arm {
 public:
  explicit Arm(std::string row, std::size_t threads = 1)
      : row_(std::move(row)), config_(threads), system_(config_) {}
  ~Arm() {
    for (const caf::actor& actor : keep_) {
      caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    }
  }
  Arm(const Arm&) = delete;
  Arm& operator=(const Arm&) = delete;

  /// Spawns a long-lived actor (a function-based one from `args`, or a `T`).
  template <class T = void, class... Args>
  caf::actor spawn(Args&&... args) {
    caf::actor actor;
    if constexpr (std::is_void_v<T>) {
      actor = system_.spawn(std::forward<Args>(args)...);
    } else {
      actor = system_.spawn<T>(std::forward<Args>(args)...);
    }
    keep_.push_back(actor);
    return actor;
  }

  /// A round that never finished: the row is reported failed and the
  /// process ends (the actor system could not shut down with a stuck actor).
  [[noreturn]] void lost(std::chrono::seconds waited) const {
    const long long seconds = waited.count();
    std::printf("failed %s a round did not finish within %lld s: work was lost\n", row_.c_str(),
                seconds);
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s did not finish a round within %lld s\n", kProgram, row_.c_str(),
                 seconds);
    std::_Exit(1);
  }

  /// Starts a round with `message` to `driver` and waits for it. A round
  /// that never finishes lost work: the row is reported failed and the
  /// process ends (the actor system could not shut down with a stuck actor).
  template <class Message>
  OpMeter::Timed runRound(const caf::actor& driver, Round& round, Message message) {
    std::future<void> finished = round.done.get_future();
    caf::anon_send(driver, message);
    if (finished.wait_for(kRoundTimeout) != std::future_status::ready) lost(kRoundTimeout);
    return OpMeter::Timed{round.ran, round.end - round.begin};
  }

  /// The actor system, for a row that asks from the benchmark's thread.
  caf::actor_system& system() noexcept { return system_; }

 private:
  std::string row_;
  BenchConfig config_;
  caf::actor_system system_;
  std::vector<caf::actor> keep_;
};

// ---- actor/tell/<N> -----------------------------------------------------------------------

/// Counts its Count messages; a Flush (sent after a batch, so handled after
/// all of it: CAF keeps the order between two actors) finishes the round.
class Sink final : public caf::event_based_actor {
 public:
  explicit Sink(caf::actor_config& config) : caf::event_based_actor(config) {}
  caf::behavior make_behavior() override {
    return {
        [this](const Count&) { ++received_; },
        [this](const Flush& flush) {
          flush.round->finish(received_);
          received_ = 0;
        },
    };
  }

 private:
  std::int64_t received_ = 0;
};

/// Sends a batch of tells to the sink, then the Flush.
caf::behavior teller(caf::event_based_actor* self, caf::actor sink, std::int64_t batch) {
  return {[=](const Go& go) {
    go.round->begin = WallClock::now();
    for (std::int64_t i = 0; i < batch; ++i) self->send(sink, Count{static_cast<int>(i)});
    self->send(sink, Flush{go.round});
  }};
}

void tellBatch(benchmark::State& state, std::int64_t batch) {
  Arm arm(workloads::tellRow(batch));
  const caf::actor sink = arm.spawn<Sink>();
  const caf::actor driver = arm.spawn(teller, sink, batch);
  OpMeter meter;
  for (auto _ : state) {
    Round round;
    if (!meter.measureTimed(state, "messages", batch,
                            [&] { return arm.runRound(driver, round, Go{&round}); })) {
      break;
    }
  }
  meter.report(state);
}

// ---- actor/pingpong/<N> -------------------------------------------------------------------

struct Rally {
  std::int64_t target = 0;
  std::int64_t pings = 0;  // received by the responder
  std::int64_t pongs = 0;  // received by the requester: completed round trips
  Round* round = nullptr;
};

/// Answers a Ping with a Pong: a handler's result goes back to the sender.
caf::behavior pingResponder(caf::event_based_actor*, Rally* rally) {
  return {[=](const Ping& ping) {
    ++rally->pings;
    return Pong{ping.n};
  }};
}

/// Starts the rally on Go, answers each Pong with the next Ping until the
/// target, then finishes the round.
caf::behavior pingRequester(caf::event_based_actor* self, caf::actor responder, Rally* rally) {
  return {
      [=](const Go& go) {
        rally->pings = 0;
        rally->pongs = 0;
        rally->round = go.round;
        go.round->begin = WallClock::now();
        self->send(responder, Ping{0});
      },
      [=](const Pong& pong) {
        if (++rally->pongs < rally->target) {
          self->send(responder, Ping{pong.n + 1});
        } else {
          rally->round->finish(rally->pongs);
        }
      },
  };
}

void pingPong(benchmark::State& state) {
  Rally rally;  // first: it outlives the actors that count into it
  Arm arm(workloads::pingPongRow());
  rally.target = kRoundTrips;
  const caf::actor responder = arm.spawn(pingResponder, &rally);
  const caf::actor requester = arm.spawn(pingRequester, responder, &rally);
  OpMeter meter;
  for (auto _ : state) {
    Round round;
    const bool ok = meter.measureTimed(state, "round trips", kRoundTrips,
                                       [&] { return arm.runRound(requester, round, Go{&round}); });
    // Every round trip needs its ping to have been handled too.
    if (!ok || !checkCompleted(state, "pings", kRoundTrips, rally.pings)) break;
  }
  meter.report(state);
}

// ---- actor/ask/from-actor -------------------------------------------------------------------

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
      const double took = std::chrono::duration<double, std::nano>(WallClock::now() - asked).count();
      spent += took;
      all.push_back(took);
    }
    if (!checkCompleted(state, "asks answered", workloads::kForeignAsks, answered)) break;
    state.SetIterationTime(spent / 1e9);
  }
  if (state.error_occurred() || all.empty()) return;
  reportLatencies(state, all);
}

// ---- actor/spawn/<N> and actor/memory -------------------------------------------------------

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
void stopAll(caf::event_based_actor* self, Tally* tally) {
  for (const caf::actor& actor : tally->refs) {
    self->send_exit(actor, caf::exit_reason::user_shutdown);
  }
  tally->refs.clear();
}

/// Spawns `tally->target` counted actors on Go (and, for actor/memory, gives
/// each one Count); stops them on AllStarted (from the last one started) or
/// on StopAll (from the benchmark's thread).
caf::behavior spawner(caf::event_based_actor* self, Tally* tally) {
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

/// actor/spawn/100: spawn, start and stop, all on the clock.
void spawnLifecycle(benchmark::State& state, std::int64_t actors) {
  Tally tally;  // first: it outlives the actors that count into it
  Arm arm(workloads::spawnRow(actors));
  tally.shape = Shape::kLifecycle;
  tally.target = actors;
  tally.refs.reserve(static_cast<std::size_t>(actors));
  const caf::actor driver = arm.spawn(spawner, &tally);
  tally.spawner = driver;
  OpMeter meter;
  for (auto _ : state) {
    Round round;
    const bool ok = meter.measureTimed(state, "actors through start and stop", actors,
                                       [&] { return arm.runRound(driver, round, Go{&round}); });
    if (!ok || !checkCompleted(state, "actors started", actors, tally.started)) break;
  }
  meter.report(state);
}

/// actor/spawn/<N>: spawn and start on the clock; the stop is checked off it.
void spawnPopulation(benchmark::State& state, std::int64_t actors) {
  Tally tally;  // first: it outlives the actors that count into it
  Arm arm(workloads::spawnRow(actors));
  tally.shape = Shape::kPopulation;
  tally.target = actors;
  tally.refs.reserve(static_cast<std::size_t>(actors));
  const caf::actor driver = arm.spawn(spawner, &tally);
  OpMeter meter;
  for (auto _ : state) {
    Round started;
    if (!meter.measureTimed(state, "actors started", actors,
                            [&] { return arm.runRound(driver, started, Go{&started}); })) {
      break;
    }
    Round stopped;
    if (!OpMeter::unmeasured(state, "actors stopped", actors, [&] {
          return arm.runRound(driver, stopped, StopAll{&stopped}).ran;
        })) {
      break;
    }
  }
  meter.report(state);
}

void measureMemory(benchmark::State& state) {
  measureMemoryInChild(state, kMemoryProbeFlag, kIdleActors);
}

/// actor/memory's child: the CAF side of bench/harness/MemoryProbe.hpp.
int runMemoryProbe() {
  return runMemoryProbeChild(kMemoryProbeFlag, [] {
    Tally tally;
    tally.shape = Shape::kIdle;
    tally.target = kIdleActors;
    // Made before the first point, and written to, so that its pages are in
    // the baseline rather than in the actors' figure.
    tally.refs.resize(static_cast<std::size_t>(kIdleActors));
    tally.refs.clear();
    MemoryReading reading;
    reading.bare = memoryNow();
    Arm arm(workloads::kMemoryRow);
    const caf::actor driver = arm.spawn(spawner, &tally);
    reading.system = memoryNow();
    Round idle;
    std::future<void> handled = idle.done.get_future();
    caf::anon_send(driver, Go{&idle});
    if (handled.wait_for(kRoundTimeout) != std::future_status::ready) {
      std::fprintf(stderr, "%s: the idle actors did not all handle their message\n",
                   kMemoryProbeFlag);
      std::_Exit(1);
    }
    reading.idle = memoryNow();
    if (!idleActorsReady(kMemoryProbeFlag, kIdleActors, tally.started, tally.received)) return 1;
    Round stopped;
    std::future<void> allStopped = stopped.done.get_future();
    caf::anon_send(driver, StopAll{&stopped});
    // A system with an actor that did not stop could not shut down: end here.
    if (allStopped.wait_for(kRoundTimeout) != std::future_status::ready) {
      std::fprintf(stderr, "%s: the idle actors did not all stop within %lld s\n",
                   kMemoryProbeFlag, static_cast<long long>(kRoundTimeout.count()));
      std::_Exit(1);
    }
    if (!idleActorsStopped(kMemoryProbeFlag, kIdleActors, tally.stopped)) std::_Exit(1);
    reading.actors = tally.received;
    printMemoryReading(reading);
    return 0;
  });
}

// ---- parallel/<workload>/<n> --------------------------------------------------------------
//
// The workloads of bench/parallel/ParallelBench.cpp, with the same sizes, the same
// messages and the same checks; CAF's default (work-stealing) scheduler with
// n threads places the actors. Each workload keeps its actors' handles and
// drops them (release) before its Arm stops the system; the actors read one
// another's handles through the workload, never holding one of their own.

// What the actors count, and the checks of a round: one copy for both arms.
using workloads::Counter;
using workloads::PairCounts;
using workloads::PeerCounts;

// parallel/pairs/<n>

class PairResponder final : public caf::event_based_actor {
 public:
  PairResponder(caf::actor_config& config, PairCounts* counts)
      : caf::event_based_actor(config), counts_(counts) {}
  caf::behavior make_behavior() override {
    return {[this](const Ping& ping) {
      ++counts_->pings;
      return Pong{ping.n};
    }};
  }

 private:
  PairCounts* counts_;
};

class PairRequester final : public caf::event_based_actor {
 public:
  PairRequester(caf::actor_config& config, PairCounts* counts, RoundEnd* end,
                const caf::actor* responder)
      : caf::event_based_actor(config), counts_(counts), end_(end), responder_(responder) {}
  caf::behavior make_behavior() override {
    return {
        [this](const Serve&) { send(*responder_, Ping{0}); },
        [this](const Pong& pong) {
          if (pong.n == counts_->pongs) ++counts_->inOrder;
          if (++counts_->pongs < workloads::kPairRoundTrips) {
            send(*responder_, Ping{static_cast<int>(counts_->pongs)});
          } else {
            end_->partDone();
          }
        },
    };
  }

 private:
  PairCounts* counts_;
  RoundEnd* end_;
  const caf::actor* responder_;
};

class Pairs {
 public:
  static constexpr const char* kName = "pairs";
  static constexpr const char* kWhat = "round trips";
  RoundEnd end;

  void build(Arm& arm) {
    responders_.reserve(tally_.counts.size());  // the requesters point into it
    for (PairCounts& counts : tally_.counts) {
      responders_.push_back(arm.spawn<PairResponder>(&counts));
      requesters_.push_back(arm.spawn<PairRequester>(&counts, &end, &responders_.back()));
    }
  }
  void release() {
    responders_.clear();
    requesters_.clear();
  }
  std::int64_t asked() const { return workloads::kPairs * workloads::kPairRoundTrips; }
  std::int64_t parts() const { return workloads::kPairs; }
  void reset() { tally_.reset(); }
  void start() {
    for (const caf::actor& requester : requesters_) caf::anon_send(requester, Serve{});
  }
  std::int64_t done(std::string& wrong) const { return tally_.done(wrong); }

 private:
  workloads::PairsTally tally_;
  std::vector<caf::actor> responders_;
  std::vector<caf::actor> requesters_;
};

// parallel/forkjoin/<n>

using ForkJoinShared = workloads::ForkJoinShared<caf::actor>;

class Producer final : public caf::event_based_actor {
 public:
  Producer(caf::actor_config& config, ForkJoinShared* shared, RoundEnd* end)
      : caf::event_based_actor(config), shared_(shared), end_(end) {}
  caf::behavior make_behavior() override {
    return {
        [this](const Fork&) {
          const std::vector<caf::actor>& workers = shared_->workers;
          for (std::int64_t i = 0; i < workloads::kForkJoinItems; ++i) {
            send(workers[static_cast<std::size_t>(i % workloads::kForkJoinWorkers)],
                 Item{static_cast<std::uint64_t>(i)});
          }
        },
        [this](const Answer& answer) {
          shared_->sum += answer.value;
          if (++shared_->answers == workloads::kForkJoinItems) end_->partDone();
        },
    };
  }

 private:
  ForkJoinShared* shared_;
  RoundEnd* end_;
};

class Worker final : public caf::event_based_actor {
 public:
  Worker(caf::actor_config& config, Counter* handled)
      : caf::event_based_actor(config), handled_(handled) {}
  caf::behavior make_behavior() override {
    return {[this](const Item& item) {
      ++handled_->value;
      return Answer{workloads::work(item.value)};
    }};
  }

 private:
  Counter* handled_;
};

class ForkJoin {
 public:
  static constexpr const char* kName = "forkjoin";
  static constexpr const char* kWhat = "items computed and gathered";
  RoundEnd end;

  ForkJoin() : expected_(workloads::forkJoinExpectedSum()) {}
  void build(Arm& arm) {
    producer_ = arm.spawn<Producer>(&shared_, &end);
    for (Counter& handled : shared_.handled) shared_.workers.push_back(arm.spawn<Worker>(&handled));
  }
  void release() {
    producer_ = nullptr;
    shared_.workers.clear();
  }
  std::int64_t asked() const { return workloads::kForkJoinItems; }
  std::int64_t parts() const { return 1; }
  void reset() { shared_.reset(); }
  void start() { caf::anon_send(producer_, Fork{}); }
  std::int64_t done(std::string& wrong) const { return shared_.done(expected_, wrong); }

 private:
  std::uint64_t expected_;
  ForkJoinShared shared_;
  caf::actor producer_;
};

// parallel/ring-one/<n>, parallel/ring-many/<n>

using RingShared = workloads::RingShared<caf::actor>;

class RingMember final : public caf::event_based_actor {
 public:
  RingMember(caf::actor_config& config, RingShared* ring, RoundEnd* end, std::int64_t index)
      : caf::event_based_actor(config), ring_(ring), end_(end), index_(index) {}
  caf::behavior make_behavior() override {
    return {[this](const Token& token) {
      ++ring_->hops[static_cast<std::size_t>(index_)].value;
      const Token next{token.id, token.travelled + 1};
      if (next.travelled < ring_->hopsPerToken) {
        send(ring_->members[static_cast<std::size_t>((index_ + 1) % workloads::kRingActors)], next);
        return;
      }
      RingShared::Finish& finish = ring_->finishes[token.id];
      finish.at = index_;
      ++finish.times;
      end_->partDone();
    }};
  }

 private:
  RingShared* ring_;
  RoundEnd* end_;
  std::int64_t index_;
};

template <std::int64_t Tokens>
class Ring {
 public:
  static constexpr const char* kName = Tokens == 1 ? "ring-one" : "ring-many";
  static constexpr const char* kWhat = "hops";
  RoundEnd end;

  void build(Arm& arm) {
    for (std::int64_t i = 0; i < workloads::kRingActors; ++i) {
      ring_.members.push_back(arm.spawn<RingMember>(&ring_, &end, i));
    }
  }
  void release() { ring_.members.clear(); }
  std::int64_t asked() const { return workloads::kRingHops; }
  std::int64_t parts() const { return Tokens; }
  void reset() { ring_.reset(); }
  void start() {
    for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(Tokens); ++t) {
      caf::anon_send(ring_.members[ring_.entry(t)], Token{t, 0});
    }
  }
  std::int64_t done(std::string& wrong) const { return ring_.done(wrong); }

 private:
  RingShared ring_{Tokens};
};

// parallel/all-to-all/<n>

using AllToAllShared = workloads::AllToAllShared<caf::actor>;

class Peer final : public caf::event_based_actor {
 public:
  Peer(caf::actor_config& config, AllToAllShared* shared, RoundEnd* end, std::int64_t index)
      : caf::event_based_actor(config), shared_(shared), end_(end), index_(index) {}
  caf::behavior make_behavior() override {
    return {
        [this](const PeerRequest& request) {
          ++mine().requests;
          return PeerReply{request.n};
        },
        [this](const PeerReply& reply) {
          PeerCounts& counts = mine();
          counts.echoed += reply.n;
          if (++counts.replies == workloads::kAllToAllMessages) end_->partDone();
        },
        [this](const Begin&) {
          PeerCounts& counts = mine();
          std::uint64_t rng = workloads::allToAllSeed(index_);
          for (std::int64_t m = 0; m < workloads::kAllToAllMessages; ++m) {
            const std::int64_t peer = workloads::allToAllPeer(rng, index_);
            const auto n = static_cast<std::uint64_t>(index_ * workloads::kAllToAllMessages + m);
            counts.sent += n;
            send(shared_->peers[static_cast<std::size_t>(peer)], PeerRequest{n});
          }
        },
    };
  }

 private:
  PeerCounts& mine() { return shared_->counts[static_cast<std::size_t>(index_)]; }

  AllToAllShared* shared_;
  RoundEnd* end_;
  std::int64_t index_;
};

class AllToAll {
 public:
  static constexpr const char* kName = "all-to-all";
  static constexpr const char* kWhat = "requests answered";
  RoundEnd end;

  void build(Arm& arm) {
    for (std::int64_t i = 0; i < workloads::kAllToAllActors; ++i) {
      shared_.peers.push_back(arm.spawn<Peer>(&shared_, &end, i));
    }
  }
  void release() { shared_.peers.clear(); }
  std::int64_t asked() const { return workloads::kAllToAllActors * workloads::kAllToAllMessages; }
  std::int64_t parts() const { return workloads::kAllToAllActors; }
  void reset() { shared_.reset(); }
  void start() {
    for (const caf::actor& peer : shared_.peers) caf::anon_send(peer, Begin{});
  }
  std::int64_t done(std::string& wrong) const { return shared_.done(wrong); }

 private:
  AllToAllShared shared_;
};

// parallel/pipeline/<n>

using PipelineShared = workloads::PipelineShared<caf::actor>;

class Source final : public caf::event_based_actor {
 public:
  Source(caf::actor_config& config, PipelineShared* shared)
      : caf::event_based_actor(config), shared_(shared) {}
  caf::behavior make_behavior() override {
    return {[this](const Feed&) {
      const caf::actor& first = shared_->stages.front();
      for (std::int64_t k = 0; k < workloads::kPipelineMessages; ++k) {
        send(first, Flow{static_cast<std::uint64_t>(k)});
      }
    }};
  }

 private:
  PipelineShared* shared_;
};

class Stage final : public caf::event_based_actor {
 public:
  Stage(caf::actor_config& config, PipelineShared* shared, RoundEnd* end, std::int64_t index)
      : caf::event_based_actor(config), shared_(shared), end_(end), index_(index) {}
  caf::behavior make_behavior() override {
    return {[this](const Flow& flow) {
      ++shared_->handled[static_cast<std::size_t>(index_)].value;
      const std::uint64_t value = workloads::pipelineStep(flow.value, index_);
      if (index_ + 1 < workloads::kPipelineStages) {
        send(shared_->stages[static_cast<std::size_t>(index_ + 1)], Flow{value});
        return;
      }
      shared_->last.sum += value;
      if (++shared_->last.arrived == workloads::kPipelineMessages) end_->partDone();
    }};
  }

 private:
  PipelineShared* shared_;
  RoundEnd* end_;
  std::int64_t index_;
};

class Pipeline {
 public:
  static constexpr const char* kName = "pipeline";
  static constexpr const char* kWhat = "messages through every stage";
  RoundEnd end;

  Pipeline() : expected_(workloads::pipelineExpectedSum()) {}
  void build(Arm& arm) {
    source_ = arm.spawn<Source>(&shared_);
    for (std::int64_t s = 0; s < workloads::kPipelineStages; ++s) {
      shared_.stages.push_back(arm.spawn<Stage>(&shared_, &end, s));
    }
  }
  void release() {
    source_ = nullptr;
    shared_.stages.clear();
  }
  std::int64_t asked() const { return workloads::kPipelineMessages; }
  std::int64_t parts() const { return 1; }
  void reset() { shared_.reset(); }
  void start() { caf::anon_send(source_, Feed{}); }
  std::int64_t done(std::string& wrong) const { return shared_.done(expected_, wrong); }

 private:
  std::uint64_t expected_;
  PipelineShared shared_;
  caf::actor source_;
};

/// One row: CAF with `threads` scheduler threads, the workload's actors,
/// then the rounds. The workload (which the actors count into) outlives the
/// system; its handles do not.
template <class Workload>
void parallelRow(benchmark::State& state, std::size_t threads) {
  Workload workload;
  Arm arm(workloads::parallelRow(Workload::kName, threads), threads);
  workload.build(arm);
  runParallelRounds(state, workload, [&] { arm.lost(kParallelRoundTimeout); });
  workload.release();
}

template <class Workload>
void registerParallelRows() {
  for (const std::size_t n : workloads::parallelCounts()) {
    registerTimed(benchmark::RegisterBenchmark(workloads::parallelRow(Workload::kName, n).c_str(),
                                               &parallelRow<Workload>, n));
  }
}

// ---- the output: lines for coreactor-bench ----------------------------------------------------

/// Prints each repetition's counters as `sample` lines on stdout, a failure
/// as a `failed` line, and one progress line per row on stderr.
class LineReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const std::string name = run.run_name.function_name;
      if (run.error_occurred) {
        if (failed_.insert(name).second) {
          std::printf("failed %s %s\n", name.c_str(), run.error_message.c_str());
          std::fprintf(stderr, "[caf] %-24s FAILED: %s\n", name.c_str(), run.error_message.c_str());
          anyFailed_ = true;
        }
        continue;
      }
      if (run.run_type != Run::RT_Iteration) continue;
      for (const auto& [counter, value] : run.counters) {
        std::printf("sample %s %s %.17g\n", name.c_str(), counter.c_str(), value.value);
      }
      auto figure = run.counters.find(kNsPerOpCounter);
      if (figure == run.counters.end()) figure = run.counters.find(kBytesPerOpCounter);
      if (figure != run.counters.end()) {
        std::fprintf(stderr, "[caf] %-24s %9.2f %s (repetition %lld)\n", name.c_str(),
                     figure->second.value, figure->first == kNsPerOpCounter ? "ns/op" : "B/actor",
                     static_cast<long long>(run.repetition_index + 1));
      }
    }
    std::fflush(stdout);
  }
  bool anyFailed() const { return anyFailed_; }

 private:
  std::set<std::string> failed_;  // rows already reported failed
  bool anyFailed_ = false;
};

void registerBenchmarks() {
  const auto timed = registerTimed;
  for (const std::int64_t batch : kTellBatches) {
    timed(benchmark::RegisterBenchmark(workloads::tellRow(batch).c_str(), &tellBatch, batch));
  }
  timed(benchmark::RegisterBenchmark(workloads::pingPongRow().c_str(), &pingPong));
  timed(benchmark::RegisterBenchmark(workloads::kAskRow, &ask, workloads::kAskRow, &asker));
  timed(benchmark::RegisterBenchmark(workloads::kCrossAskRow, &askAcross));
  timed(benchmark::RegisterBenchmark(workloads::kForeignAskRow, &askForeign));
  timed(benchmark::RegisterBenchmark(workloads::kAskOneAtATimeRow, &ask,
                                     workloads::kAskOneAtATimeRow, &oneAtATimeAsker));
  timed(benchmark::RegisterBenchmark(workloads::kAskNoDeadlineRow, &ask,
                                     workloads::kAskNoDeadlineRow,
                                     &oneAtATimeAskerWithoutDeadline));
  timed(benchmark::RegisterBenchmark(workloads::spawnRow(kLifecycleActors).c_str(), &spawnLifecycle,
                                     kLifecycleActors));
  for (const std::int64_t actors : kPopulations) {
    timed(benchmark::RegisterBenchmark(workloads::spawnRow(actors).c_str(), &spawnPopulation,
                                       actors));
  }
  benchmark::RegisterBenchmark(workloads::kMemoryRow, &measureMemory)->Iterations(1);
  registerParallelRows<Pairs>();
  registerParallelRows<ForkJoin>();
  registerParallelRows<Ring<1>>();
  registerParallelRows<Ring<workloads::kRingTokens>>();
  registerParallelRows<AllToAll>();
  registerParallelRows<Pipeline>();
}

void printUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: %s [--quick] [--malloc-defaults] [--benchmark_<flag>=<value> ...]\n"
               "\n"
               "The CAF arm of coreactor-bench: the shared actor rows (bench/harness/Workloads.hpp) on\n"
               "CAF %d.%d.%d with one scheduler thread, and parallel/<workload>/<n> with n.\n"
               "coreactor-bench runs it and reads its stdout: 'config <key> <value>',\n"
               "'sample <row> <counter> <value>' per repetition, 'failed <row> <reason>', and\n"
               "'rows <n>' at the end.\n"
               "\n"
               "  --quick        %d repetitions of %s s instead of %d of %s s\n"
               "  --malloc-defaults  keep glibc's start-up malloc thresholds\n"
               "  --help, -h     this text\n"
               "  --benchmark_*  passed to Google Benchmark (--benchmark_filter=<regex>, ...)\n"
               "\n"
               "Exit status: 0 every row completed (none matching a filter included),\n"
               "1 a row failed its completion check, 2 bad command line.\n",
               kProgram, CAF_MAJOR_VERSION, CAF_MINOR_VERSION, CAF_PATCH_VERSION,
               kQuick.repetitions, kQuick.minTime, kFull.repetitions, kFull.minTime);
}

/// How CAF is set up, read back from a system made with the benchmarks' config.
void printConfig() {
  BenchConfig config;
  caf::actor_system system{config};
  std::printf("config caf-version %d.%d.%d\n", CAF_MAJOR_VERSION, CAF_MINOR_VERSION,
              CAF_PATCH_VERSION);
  std::printf("config scheduler.policy %s\n",
              caf::to_string(caf::get_or(system.config(), "scheduler.policy",
                                         caf::defaults::scheduler::policy))
                  .c_str());
  std::printf("config scheduler.max-threads %zu\n", system.scheduler().num_workers());
  std::printf("config scheduler.max-throughput %zu\n", system.scheduler().max_throughput());
  const std::vector<std::size_t> counts = workloads::parallelCounts();
  std::printf("config parallel/*.scheduler.max-threads %zu..%zu\n", counts.front(), counts.back());
  std::printf("config logging compiled-out\n");
  std::printf("config actors event-based\n");
}

int run(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == kMemoryProbeFlag) return runMemoryProbe();
  bool quick = false;
  bool mallocDefaults = false;
  std::vector<std::string> passThrough;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--malloc-defaults") {
      mallocDefaults = true;
    } else if (arg == "--help" || arg == "-h") {
      printUsage(stdout);
      return 0;
    } else if (arg.starts_with("--benchmark_")) {
      passThrough.emplace_back(arg);
    } else {
      std::fprintf(stderr, "%s: unknown flag '%s'\n\n", kProgram, argv[i]);
      printUsage(stderr);
      return 2;
    }
  }
  if (!mallocDefaults) pinMallocThresholds();
  std::vector<std::string> args =
      benchmarkArguments(argv[0], quick ? kQuick : kFull, passThrough);
  if (!initializeBenchmark(args)) {
    std::fprintf(stderr, "\n");
    printUsage(stderr);
    return 2;
  }

  printConfig();
  registerBenchmarks();
  LineReporter reporter;
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::printf("rows %zu\n", ran);
  return reporter.anyFailed() ? 1 : 0;
}

}  // namespace
}  // namespace coreactor::bench::cafarm

int main(int argc, char** argv) {
  return coreactor::bench::cafarm::run(argc, argv);
}
