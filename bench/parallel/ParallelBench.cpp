// bench/parallel/ParallelBench.cpp — the parallel workloads on threaded systems of
// 1 .. N isolates, as a user runs them: what one op costs over all isolates
// together, and so how the throughput grows with the isolates.
//
// The families, and what one "op" is in each (sizes: bench/harness/Workloads.hpp,
// shared with the CAF arm, bench/caf/CafBench.cpp, which runs every row
// under the same name with n scheduler threads):
//   parallel/pairs/<n>       one round trip (ping -> pong) of 8 independent
//                            pairs, 10,000 each, all at once; pair k (both
//                            actors) on isolate k mod n.
//   parallel/forkjoin/<n>    one item: handed by the producer to one of 64
//                            workers (50,000 at once, round-robin), computed
//                            (workloads::work, ~100 ns), answered, added to
//                            the producer's sum; the sum is checked.
//   parallel/ring-one/<n>    one hop of a token around a ring of 64 actors;
//                            one token, 64,000 hops.
//   parallel/ring-many/<n>   the same ring with 32 tokens at once, 2,000 hops
//                            each.
//   parallel/all-to-all/<n>  one request answered: 64 actors each send 1,000
//                            requests at once to pseudo-random peers
//                            (workloads::allToAllPeer) and count the replies.
//   parallel/pipeline/<n>    one message through all 8 stages (each one
//                            workloads::work) of a pipeline, 10,000 sent at
//                            once by a source; the last stage counts and sums.
// The figure is ns per op, all isolates together (aggregate); beside it, ops
// per second (items_per_second) and the messages that crossed between
// isolates per op (crossings_per_op, from ActorSystem::transportStats). After
// the run, bench/harness/Results.cpp divides each row's throughput by the 1-isolate
// row's of the same run: the speedup.
//
// The systems are what a user gets: ActorSystem::create with
// withIsolates(n) and nothing else but a quieter log (Warn): the default
// dispatcher and throughput, no pinning, the default idle poll window. Every
// actor is spawned with the default placement (top-level actors spread over
// the isolates in spawn order, ActorSystemOptions::kDefaultPlacementRun at a
// time), but for the pairs, which the workload puts on isolates of their own
// (withIsolate). So with two isolates, a ring's neighbours and a pipeline's
// stages cross between isolates at every run's edge.
//
// placement/<workload>/run-<k> runs the same workloads on N isolates with
// the pairs, too, placed by the system's default rule, top-level actors k at
// a time (ActorSystemOptions::withPlacementRun): the measurement behind the
// default run. Their speedup is over parallel/<workload>/1.
//
// Timing and completion: bench/harness/ParallelRound.hpp. A round runs from the
// kick-off (tells from the benchmark's thread) to the end of its last part,
// timed on the isolate that finished it. Every actor counts what it handled
// on a cache line of its own (a pair, a ring member, a peer, a stage); the
// counts, the routes and the sums are checked after every round, and a lost,
// duplicated or misrouted message, a wrong sum, or a round unfinished after
// 30 s fails the row. Building the system and spawning are off the clock;
// one warm-up round, checked, comes before the timed ones.
#include "parallel/ParallelBench.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "harness/BenchSupport.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/Workloads.hpp"
#include "coreactor/ActorSystem.hpp"

namespace coreactor::bench {
namespace {

using workloads::kAllToAllActors;
using workloads::kAllToAllMessages;
using workloads::kForkJoinItems;
using workloads::kForkJoinWorkers;
using workloads::kPairRoundTrips;
using workloads::kPairs;
using workloads::kPipelineMessages;
using workloads::kPipelineStages;
using workloads::kRingActors;
using workloads::kRingHops;
using workloads::kRingTokens;

// What the actors count, and the checks of a round: one copy for both arms.
using workloads::Counter;
using workloads::PairCounts;
using workloads::PeerCounts;

// ---- parallel/pairs/<n> -----------------------------------------------------------------

struct Ping {
  std::int64_t n;
};
struct Pong {
  std::int64_t n;
};
struct Serve {};

class PairResponder final : public Actor {
 public:
  explicit PairResponder(PairCounts* counts) : counts_(counts) {}
  void receive(ReceiveContext& ctx) override {
    if (const Ping* ping = ctx.get<Ping>()) {
      ++counts_->pings;
      ctx.reply(Pong{ping->n});
    }
  }

 private:
  PairCounts* counts_;
};

/// Starts its pair on Serve, answers each Pong with the next Ping until
/// kPairRoundTrips, then reports its part done.
class PairRequester final : public Actor {
 public:
  PairRequester(PairCounts* counts, RoundEnd* end, ActorRef responder)
      : counts_(counts), end_(end), responder_(responder) {}
  void receive(ReceiveContext& ctx) override {
    if (const Pong* pong = ctx.get<Pong>()) {
      if (pong->n == counts_->pongs) ++counts_->inOrder;
      if (++counts_->pongs < kPairRoundTrips) {
        ctx.tell(responder_, Ping{counts_->pongs});
      } else {
        end_->partDone();
      }
    } else if (ctx.is<Serve>()) {
      ctx.tell(responder_, Ping{0});
    }
  }

 private:
  PairCounts* counts_;
  RoundEnd* end_;
  ActorRef responder_;
};

class Pairs {
 public:
  static constexpr const char* kWhat = "round trips";
  RoundEnd end;

  /// False: the pairs are placed by the system's default rule, as the
  /// other workloads' actors are (the placement/* rows).
  bool byHand = true;

  void build(ActorSystem& system, std::size_t isolates) {
    std::vector<PairCounts>& counts = tally_.counts;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const ActorOptions here =
          byHand ? ActorOptions::create().withIsolate(k % isolates) : ActorOptions::create();
      const ActorRef responder = system.spawn<PairResponder>("", here, &counts[k]);
      requesters_.push_back(system.spawn<PairRequester>("", here, &counts[k], &end, responder));
    }
  }
  std::int64_t asked() const { return kPairs * kPairRoundTrips; }
  std::int64_t parts() const { return kPairs; }
  void reset() { tally_.reset(); }
  void start() {
    for (const ActorRef& requester : requesters_) requester.tell(Serve{});
  }
  std::int64_t done(std::string& wrong) const { return tally_.done(wrong); }

 private:
  workloads::PairsTally tally_;
  std::vector<ActorRef> requesters_;
};

// ---- parallel/forkjoin/<n> ----------------------------------------------------------------

struct Fork {};
struct Item {
  std::uint64_t value;
};
struct Answer {
  std::uint64_t value;
};

using ForkJoinShared = workloads::ForkJoinShared<ActorRef>;

/// Hands every item out on Fork, then gathers the answers.
class Producer final : public Actor {
 public:
  Producer(ForkJoinShared* shared, RoundEnd* end) : shared_(shared), end_(end) {}
  void receive(ReceiveContext& ctx) override {
    if (const Answer* answer = ctx.get<Answer>()) {
      shared_->sum += answer->value;
      if (++shared_->answers == kForkJoinItems) end_->partDone();
    } else if (ctx.is<Fork>()) {
      const std::vector<ActorRef>& workers = shared_->workers;
      for (std::int64_t i = 0; i < kForkJoinItems; ++i) {
        ctx.tell(workers[static_cast<std::size_t>(i % kForkJoinWorkers)],
                 Item{static_cast<std::uint64_t>(i)});
      }
    }
  }

 private:
  ForkJoinShared* shared_;
  RoundEnd* end_;
};

class Worker final : public Actor {
 public:
  explicit Worker(Counter* handled) : handled_(handled) {}
  void receive(ReceiveContext& ctx) override {
    if (const Item* item = ctx.get<Item>()) {
      ++handled_->value;
      ctx.reply(Answer{workloads::work(item->value)});
    }
  }

 private:
  Counter* handled_;
};

class ForkJoin {
 public:
  static constexpr const char* kWhat = "items computed and gathered";
  RoundEnd end;

  ForkJoin() : expected_(workloads::forkJoinExpectedSum()) {}
  void build(ActorSystem& system, std::size_t) {
    producer_ = system.spawn<Producer>("", ActorOptions::create(), &shared_, &end);
    for (Counter& handled : shared_.handled) {
      shared_.workers.push_back(system.spawn<Worker>("", ActorOptions::create(), &handled));
    }
  }
  std::int64_t asked() const { return kForkJoinItems; }
  std::int64_t parts() const { return 1; }
  void reset() { shared_.reset(); }
  void start() { producer_.tell(Fork{}); }
  std::int64_t done(std::string& wrong) const { return shared_.done(expected_, wrong); }

 private:
  std::uint64_t expected_;
  ForkJoinShared shared_;
  ActorRef producer_;
};

// ---- parallel/ring-one/<n>, parallel/ring-many/<n> -----------------------------------------

/// One word: which token, and how many hops it has made.
struct Token {
  std::uint32_t id;
  std::uint32_t travelled;
};

using RingShared = workloads::RingShared<ActorRef>;

class RingMember final : public Actor {
 public:
  RingMember(RingShared* ring, RoundEnd* end, std::int64_t index)
      : ring_(ring), end_(end), index_(index) {}
  void receive(ReceiveContext& ctx) override {
    const Token* token = ctx.get<Token>();
    if (token == nullptr) return;
    ++ring_->hops[static_cast<std::size_t>(index_)].value;
    const Token next{token->id, token->travelled + 1};
    if (next.travelled < ring_->hopsPerToken) {
      ctx.tell(ring_->members[static_cast<std::size_t>((index_ + 1) % kRingActors)], next);
      return;
    }
    RingShared::Finish& finish = ring_->finishes[token->id];
    finish.at = index_;
    ++finish.times;
    end_->partDone();
  }

 private:
  RingShared* ring_;
  RoundEnd* end_;
  std::int64_t index_;
};

template <std::int64_t Tokens>
class Ring {
 public:
  static constexpr const char* kWhat = "hops";
  RoundEnd end;

  void build(ActorSystem& system, std::size_t) {
    for (std::int64_t i = 0; i < kRingActors; ++i) {
      ring_.members.push_back(
          system.spawn<RingMember>("", ActorOptions::create(), &ring_, &end, i));
    }
  }
  std::int64_t asked() const { return kRingHops; }
  std::int64_t parts() const { return Tokens; }
  void reset() { ring_.reset(); }
  void start() {
    // Token t enters at member t * (A / T), as if sent by its predecessor.
    for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(Tokens); ++t) {
      ring_.members[ring_.entry(t)].tell(Token{t, 0});
    }
  }
  std::int64_t done(std::string& wrong) const { return ring_.done(wrong); }

 private:
  RingShared ring_{Tokens};
};

// ---- parallel/all-to-all/<n> --------------------------------------------------------------

struct Begin {};
struct Request {
  std::uint64_t n;
};
struct Reply {
  std::uint64_t n;
};

using AllToAllShared = workloads::AllToAllShared<ActorRef>;

/// On Begin, sends its kAllToAllMessages requests; answers every request;
/// reports its part done at its last reply.
class Peer final : public Actor {
 public:
  Peer(AllToAllShared* shared, RoundEnd* end, std::int64_t index)
      : shared_(shared), end_(end), index_(index) {}
  void receive(ReceiveContext& ctx) override {
    PeerCounts& mine = shared_->counts[static_cast<std::size_t>(index_)];
    if (const Request* request = ctx.get<Request>()) {
      ++mine.requests;
      ctx.reply(Reply{request->n});
    } else if (const Reply* reply = ctx.get<Reply>()) {
      mine.echoed += reply->n;
      if (++mine.replies == kAllToAllMessages) end_->partDone();
    } else if (ctx.is<Begin>()) {
      std::uint64_t rng = workloads::allToAllSeed(index_);
      for (std::int64_t m = 0; m < kAllToAllMessages; ++m) {
        const std::int64_t peer = workloads::allToAllPeer(rng, index_);
        const auto n = static_cast<std::uint64_t>(index_ * kAllToAllMessages + m);
        mine.sent += n;
        ctx.tell(shared_->peers[static_cast<std::size_t>(peer)], Request{n});
      }
    }
  }

 private:
  AllToAllShared* shared_;
  RoundEnd* end_;
  std::int64_t index_;
};

class AllToAll {
 public:
  static constexpr const char* kWhat = "requests answered";
  RoundEnd end;

  void build(ActorSystem& system, std::size_t) {
    for (std::int64_t i = 0; i < kAllToAllActors; ++i) {
      shared_.peers.push_back(system.spawn<Peer>("", ActorOptions::create(), &shared_, &end, i));
    }
  }
  std::int64_t asked() const { return kAllToAllActors * kAllToAllMessages; }
  std::int64_t parts() const { return kAllToAllActors; }
  void reset() { shared_.reset(); }
  void start() {
    for (const ActorRef& peer : shared_.peers) peer.tell(Begin{});
  }
  std::int64_t done(std::string& wrong) const { return shared_.done(wrong); }

 private:
  AllToAllShared shared_;
};

// ---- parallel/pipeline/<n> ----------------------------------------------------------------

struct Feed {};
struct Flow {
  std::uint64_t value;
};

using PipelineShared = workloads::PipelineShared<ActorRef>;

class Source final : public Actor {
 public:
  explicit Source(PipelineShared* shared) : shared_(shared) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Feed>()) return;
    const ActorRef& first = shared_->stages.front();
    for (std::int64_t k = 0; k < kPipelineMessages; ++k) {
      ctx.tell(first, Flow{static_cast<std::uint64_t>(k)});
    }
  }

 private:
  PipelineShared* shared_;
};

class Stage final : public Actor {
 public:
  Stage(PipelineShared* shared, RoundEnd* end, std::int64_t index)
      : shared_(shared), end_(end), index_(index) {}
  void receive(ReceiveContext& ctx) override {
    const Flow* flow = ctx.get<Flow>();
    if (flow == nullptr) return;
    ++shared_->handled[static_cast<std::size_t>(index_)].value;
    const std::uint64_t value = workloads::pipelineStep(flow->value, index_);
    if (index_ + 1 < kPipelineStages) {
      ctx.tell(shared_->stages[static_cast<std::size_t>(index_ + 1)], Flow{value});
      return;
    }
    shared_->last.sum += value;
    if (++shared_->last.arrived == kPipelineMessages) end_->partDone();
  }

 private:
  PipelineShared* shared_;
  RoundEnd* end_;
  std::int64_t index_;
};

class Pipeline {
 public:
  static constexpr const char* kWhat = "messages through every stage";
  RoundEnd end;

  Pipeline() : expected_(workloads::pipelineExpectedSum()) {}
  void build(ActorSystem& system, std::size_t) {
    source_ = system.spawn<Source>("", ActorOptions::create(), &shared_);
    for (std::int64_t s = 0; s < kPipelineStages; ++s) {
      shared_.stages.push_back(system.spawn<Stage>("", ActorOptions::create(), &shared_, &end, s));
    }
  }
  std::int64_t asked() const { return kPipelineMessages; }
  std::int64_t parts() const { return 1; }
  void reset() { shared_.reset(); }
  void start() { source_.tell(Feed{}); }
  std::int64_t done(std::string& wrong) const { return shared_.done(expected_, wrong); }

 private:
  std::uint64_t expected_;
  PipelineShared shared_;
  ActorRef source_;
};

// ---- the rows -----------------------------------------------------------------------------

/// One row: a threaded system of `isolates` isolates, the workload's actors,
/// then the rounds. The workload (which the actors count into) outlives the
/// system. `run`: the system's placement run (0: the default), with the
/// pairs placed by it too.
template <class Workload>
void parallelRow(benchmark::State& state, std::size_t isolates, std::size_t run) {
  Workload workload;
  std::unique_ptr<ActorSystem> system;
  if (!setUp(state, [&] {
        ActorSystemOptions options =
            ActorSystemOptions::create().withIsolates(isolates).withLogLevel(LogLevel::Warn);
        if (run != 0) {
          options = options.withPlacementRun(run);
          if constexpr (requires { workload.byHand; }) workload.byHand = false;
        }
        system = ActorSystem::create("parallel", options);
        workload.build(*system, isolates);
      })) {
    return;
  }
  // How many messages crossed between isolates per op, over every round (the
  // warm-up's included: each round does the same work).
  const std::uint64_t crossedBefore = system->transportStats().crossings;
  runParallelRounds(state, workload, [] {});
  if (state.error_occurred()) return;
  const double ops =
      static_cast<double>(workload.asked()) * static_cast<double>(state.iterations() + 1);
  state.counters[kCrossingsPerOpCounter] =
      static_cast<double>(system->transportStats().crossings - crossedBefore) / ops;
}

/// The workload's parallel/<workload>/<n> rows, then its
/// placement/<workload>/run-<k> rows on the most isolates.
template <class Workload>
void registerRows(const char* workload) {
  const std::vector<std::size_t> counts = workloads::parallelCounts();
  for (const std::size_t n : counts) {
    registerTimed(benchmark::RegisterBenchmark(workloads::parallelRow(workload, n).c_str(),
                                               &parallelRow<Workload>, n, std::size_t{0}));
  }
  for (const std::size_t run : workloads::kPlacementRuns) {
    registerTimed(benchmark::RegisterBenchmark(workloads::placementRow(workload, run).c_str(),
                                               &parallelRow<Workload>, counts.back(), run));
  }
}

}  // namespace

void registerParallelBenchmarks() {
  registerRows<Pairs>("pairs");
  registerRows<ForkJoin>("forkjoin");
  registerRows<Ring<1>>("ring-one");
  registerRows<Ring<kRingTokens>>("ring-many");
  registerRows<AllToAll>("all-to-all");
  registerRows<Pipeline>("pipeline");
}

}  // namespace coreactor::bench
