// The balancer's decision (runtime/balance/Plan.hpp) on made-up traffic, at
// 2, 4, 16 and 64 isolates. A workload is a graph of who talks to whom and
// what each message costs its handler; a model says how fast it runs on a
// placement (each isolate pays its actors' messages and the crossings it
// sends or receives; a workload with one message in flight, like a ring
// with one token, pays them all one after the other, and a wake-up per
// crossing). Each period the isolates' samples come from that throughput,
// the plan's moves are applied, and after many periods the workload must
// run at least about as fast as its best simple placement: a one-token ring
// and all-to-all chatter gathered, pairs together and spread, a skew
// spread, a pipeline left cut, with no actor pulled back and forth. Nothing
// here runs a loop or reads a clock, but the cost of a plan (reported, not
// asserted).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

#include "runtime/balance/Plan.hpp"

namespace coreactor::detail::balance {
namespace {

constexpr double kCapacity = 1e8;       // a 100 ms period
constexpr double kCrossingNanos = 100;  // what a crossing costs each side
constexpr double kWakeUpNanos = 2'000;  // what one costs a message in flight alone
constexpr std::uint32_t kEvery = 1000;  // one message in kEvery is sampled

// A workload: actors 1..n (ids), who sends to whom (one message per edge
// per unit of work), the cost of each actor's handler.
struct Workload {
  std::size_t actors = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> edges;  // sender -> receiver
  std::vector<double> cost;                                    // ns per message, by actor id
  bool oneInFlight = false;  // the messages follow one another (a ring's one token)
  std::uint64_t driver = 0;  // an actor fed by a plain thread (its samples have no sender)
};

struct Simulation {
  Workload w;
  std::size_t isolates;
  std::vector<std::uint32_t> where;  // by actor id
  BalancerOptions options;
  Memory memory;
  std::map<std::uint64_t, std::uint32_t> movesOf;
  std::size_t totalMoves = 0;
  double planNanos = 0;
  std::vector<double> speeds;  // each period's throughput, in units of work per period
  std::vector<double> carry;   // by edge: the part of a sample not taken yet
  // The isolates report their busy time, as an isolate on a real clock
  // measures it (its handlers' time and the crossings no sample sees);
  // else the plan reckons it from the samples.
  bool measured = false;

  // The time one unit of work takes on the current placement.
  double unitTime() const {
    std::vector<double> t(isolates, 0.0);
    double crossings = 0;
    for (const auto& [from, to] : w.edges) {
      t[where[to]] += w.cost[to];
      if (from != w.driver && where[from] != where[to]) {
        t[where[from]] += kCrossingNanos;
        t[where[to]] += kCrossingNanos;
        ++crossings;
      }
    }
    if (w.oneInFlight) {
      double sum = crossings * kWakeUpNanos;
      for (const double x : t) sum += x;
      return sum;
    }
    return *std::max_element(t.begin(), t.end());
  }
  // Units of work a saturated system finishes in one period.
  double speed() const { return kCapacity / unitTime(); }
  // Each isolate's busy time in a period at this placement: its share of
  // a unit's time, for as many units as the period holds.
  std::vector<double> busyTimes() const {
    std::vector<double> t(isolates, 0.0);
    for (const auto& [from, to] : w.edges) {
      t[where[to]] += w.cost[to];
      if (from != w.driver && where[from] != where[to]) {
        t[where[from]] += kCrossingNanos;
        t[where[to]] += kCrossingNanos;
      }
    }
    const double units = speed();
    for (double& x : t) x = std::min(kCapacity, x * units);
    return t;
  }
  // The same on one isolate.
  double speedOnOne() const {
    double sum = 0;
    for (const auto& [from, to] : w.edges) sum += w.cost[to];
    return kCapacity / sum;
  }

  // One period: the samples the isolates take at this placement's speed,
  // the plan, its moves applied.
  std::vector<Move> period() {
    const double units = speed();
    speeds.push_back(units);
    std::vector<Report> reports(isolates);
    const std::vector<double> busy = busyTimes();
    for (std::uint32_t i = 0; i < isolates; ++i) {
      reports[i].isolate = i;
      if (measured) reports[i].busyNanos = busy[i];
    }
    // One sample per kEvery messages of each edge, the fraction carried over
    // (from a phase of its own, as random gaps would spread them).
    if (carry.empty()) {
      for (std::size_t e = 0; e < w.edges.size(); ++e) {
        carry.push_back(std::fmod(static_cast<double>(e) * 0.6180339887, 1.0));
      }
    }
    for (std::size_t e = 0; e < w.edges.size(); ++e) {
      const auto& [from, to] = w.edges[e];
      carry[e] += units / kEvery;
      const double n = std::floor(carry[e]);
      carry[e] -= n;
      const std::uint64_t sender = from == w.driver ? Sample::kNobody : from;
      for (double m = 0; m < n; ++m) {
        reports[where[to]].samples.push_back(
            Sample{to, sender, static_cast<std::uint64_t>(w.cost[to])});
      }
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<Move> moves = plan(reports, isolates, kCapacity, options, memory);
    planNanos = std::max(planNanos,
                         static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                 std::chrono::steady_clock::now() - start)
                                                 .count()));
    for (const Move& m : moves) {
      where[m.actor] = m.to;
      ++movesOf[m.actor];
      ++totalMoves;
    }
    return moves;
  }
  void run(int periods) {
    for (int p = 0; p < periods; ++p) period();
  }
  // The mean speed over the last `periods`, over the speed on one isolate.
  double lastSpeedup(std::size_t periods) const {
    double sum = 0;
    for (std::size_t i = speeds.size() - periods; i < speeds.size(); ++i) sum += speeds[i];
    return sum / static_cast<double>(periods) / speedOnOne();
  }
  std::size_t cut() const {
    std::size_t n = 0;
    for (const auto& [from, to] : w.edges) {
      n += from != w.driver && where[from] != where[to] ? 1 : 0;
    }
    return n;
  }
  std::uint32_t mostMovesOfOneActor() const {
    std::uint32_t most = 0;
    for (const auto& [actor, n] : movesOf) most = std::max(most, n);
    return most;
  }
  void report(const char* what) const {
    std::printf(
        "[%s, %zu isolates] speedup %.2f (first period %.2f), moves %zu (most of one actor %u), "
        "steps kept %llu, undone %llu, cut %zu, slowest plan %.0f us\n",
        what, isolates, lastSpeedup(20), speeds.front() / speedOnOne(), totalMoves,
        mostMovesOfOneActor(), static_cast<unsigned long long>(memory.kept),
        static_cast<unsigned long long>(memory.undone), cut(), planNanos / 1000);
  }
};

Simulation make(Workload w, std::size_t isolates) {
  Simulation s;
  s.w = std::move(w);
  s.isolates = isolates;
  s.options.sampleEvery = kEvery;
  s.where.assign(s.w.actors + 1, 0);
  return s;
}

// A ring of `n` actors, each placed on actor % isolates (the worst placement:
// every hop crosses), cheap messages, one token.
Simulation ring(std::size_t n, std::size_t isolates) {
  Workload w;
  w.actors = n;
  w.cost.assign(n + 1, 20.0);
  w.oneInFlight = true;
  for (std::uint64_t a = 1; a <= n; ++a) w.edges.emplace_back(a, a % n + 1);
  Simulation s = make(std::move(w), isolates);
  for (std::uint64_t a = 1; a <= n; ++a) s.where[a] = static_cast<std::uint32_t>(a % isolates);
  return s;
}

// Pairs that ping-pong, each split between two isolates, round-robin.
Simulation pairs(std::size_t count, std::size_t isolates) {
  Workload w;
  w.actors = 2 * count;
  w.cost.assign(w.actors + 1, 30.0);
  for (std::uint64_t p = 0; p < count; ++p) {
    w.edges.emplace_back(2 * p + 1, 2 * p + 2);
    w.edges.emplace_back(2 * p + 2, 2 * p + 1);
  }
  Simulation s = make(std::move(w), isolates);
  for (std::uint64_t a = 1; a <= 2 * count; ++a) {
    s.where[a] = static_cast<std::uint32_t>((a - 1) % isolates);
  }
  return s;
}

// Busy actors fed by a plain thread, all on isolate 0.
Simulation skew(std::size_t busy, std::size_t isolates) {
  Workload w;
  w.actors = busy + 1;
  w.driver = busy + 1;  // stands for the plain thread
  w.cost.assign(w.actors + 1, 3'000.0);
  for (std::uint64_t a = 1; a <= busy; ++a) w.edges.emplace_back(w.driver, a);
  return make(std::move(w), isolates);  // everyone on isolate 0
}

// Every actor sends to every other, cheap messages, round-robin placement.
Simulation allToAll(std::size_t n, std::size_t isolates) {
  Workload w;
  w.actors = n;
  w.cost.assign(n + 1, 20.0);
  for (std::uint64_t a = 1; a <= n; ++a) {
    for (std::uint64_t b = 1; b <= n; ++b) {
      if (a != b) w.edges.emplace_back(a, b);
    }
  }
  Simulation s = make(std::move(w), isolates);
  for (std::uint64_t a = 1; a <= n; ++a) s.where[a] = static_cast<std::uint32_t>(a % isolates);
  return s;
}

// A chain of stages with real work in each, cut into contiguous blocks, one
// per isolate (as the default placement cuts it).
Simulation pipeline(std::size_t stages, std::size_t isolates) {
  Workload w;
  w.actors = stages;
  w.cost.assign(stages + 1, 500.0);
  for (std::uint64_t a = 1; a < stages; ++a) w.edges.emplace_back(a, a + 1);
  Simulation s = make(std::move(w), isolates);
  for (std::uint64_t a = 1; a <= stages; ++a) {
    s.where[a] = static_cast<std::uint32_t>((a - 1) * isolates / stages);
  }
  return s;
}

// At 2, 4, 16 and 64 isolates, with the busy time reckoned from the
// samples (a manual clock) and measured (a real one).
class AtIsolates : public ::testing::TestWithParam<std::tuple<std::size_t, bool>> {
 protected:
  std::size_t isolates() const { return std::get<0>(GetParam()); }
  Simulation measuredAsAsked(Simulation s) const {
    s.measured = std::get<1>(GetParam());
    return s;
  }
  void SetUp() override {
#if defined(__SANITIZE_THREAD__)
    // A simulation on one thread, thirty times slower under ThreadSanitizer
    // (half the TSan suite's time), which has nothing to check in it: the
    // Release and ASan suites run it.
    GTEST_SKIP() << "one thread: nothing for ThreadSanitizer to check";
#endif
  }
};

TEST_P(AtIsolates, ARingWithOneTokenSpreadTheWorstWayGathersAndStays) {
  Simulation s = measuredAsAsked(ring(64, isolates()));
  ASSERT_EQ(s.cut(), 64u);
  s.run(300);
  // Gathered, and the tries at cutting it again (undone) cost little.
  EXPECT_GE(s.lastSpeedup(100), 0.9);
  EXPECT_GE(s.memory.undone, 1u) << "it never tried to spread the ring";
  EXPECT_LE(s.mostMovesOfOneActor(), s.options.maxMovesPerActor + s.memory.undone);
  s.report("ring, one token");
}

TEST_P(AtIsolates, SplitPairsComeTogetherAndSpreadOverAllIsolates) {
  const std::size_t n = isolates();
  Simulation s = measuredAsAsked(pairs(4 * n, n));
  s.run(100);
  EXPECT_EQ(s.cut(), 0u) << "pairs still split";
  EXPECT_GE(s.lastSpeedup(20), 0.8 * static_cast<double>(n)) << "the pairs piled up";
  s.report("split pairs");
}

TEST_P(AtIsolates, BusyActorsAllSpawnedOnOneIsolateSpreadOverAll) {
  const std::size_t n = isolates();
  Simulation s = measuredAsAsked(skew(4 * n, n));
  s.run(100);
  EXPECT_GE(s.lastSpeedup(20), 0.75 * static_cast<double>(n)) << "still skewed";
  EXPECT_LE(s.mostMovesOfOneActor(), 2u);
  s.report("skew");
}

TEST_P(AtIsolates, AllToAllChatterEndsAtLeastAsFastAsOnOneIsolate) {
  Simulation s = measuredAsAsked(allToAll(32, isolates()));
  s.run(300);
  EXPECT_GE(s.lastSpeedup(100), 0.9);
  EXPECT_LE(s.mostMovesOfOneActor(), s.options.maxMovesPerActor + s.memory.undone);
  s.report("all-to-all");
}

TEST_P(AtIsolates, APipelineCutWhereItGainsStaysCut) {
  const std::size_t n = std::min<std::size_t>(isolates(), 8);
  Simulation s = measuredAsAsked(pipeline(8, isolates()));
  const double before = s.speed() / s.speedOnOne();
  s.run(300);
  // Gathering it was tried and undone; it is never left slower than it began.
  EXPECT_GE(s.lastSpeedup(100), 0.9 * before);
  if (n == 2) {
    EXPECT_GE(s.lastSpeedup(100), 1.6);
  }
  s.report("pipeline");
}

INSTANTIATE_TEST_SUITE_P(BalancerPlan, AtIsolates,
                         ::testing::Combine(::testing::Values(2, 4, 16, 64), ::testing::Bool()),
                         [](const auto& info) {
                           return std::to_string(std::get<0>(info.param)) + "isolates" +
                                  (std::get<1>(info.param) ? "Measured" : "Reckoned");
                         });

TEST(BalancerPlan, AStepThatLowersTheThroughputIsUndoneAndNotTriedAgainSoon) {
  Simulation s = ring(16, 2);
  // Gathered on isolate 0 by hand: the only step left is cutting it.
  std::fill(s.where.begin(), s.where.end(), 0u);
  std::vector<Move> tried;
  int period = 0;
  for (; period < 10 && tried.empty(); ++period) tried = s.period();
  ASSERT_FALSE(tried.empty()) << "no spread tried on a busy isolate beside an idle one";
  s.period();  // the moves land
  for (std::uint32_t k = 1; k < kJudgePeriods; ++k) {
    EXPECT_TRUE(s.period().empty()) << "judged on " << k << " of " << kJudgePeriods << " periods";
  }
  const std::vector<Move> back = s.period();  // judged: slower, so undone
  ASSERT_EQ(back.size(), tried.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].actor, tried[i].actor);
    EXPECT_EQ(back[i].to, 0u);
  }
  EXPECT_EQ(s.memory.undone, 1u);
  // Barred for kRetryPeriods: nothing moves until then.
  for (std::uint64_t p = 0; p + 2 < kRetryPeriods; ++p) {
    EXPECT_TRUE(s.period().empty()) << "period " << p << " after the undo";
  }
}

TEST(BalancerPlan, AnActorThatCannotMoveIsNeverOrderedAgain) {
  Simulation s = ring(8, 2);
  std::vector<Move> first;
  for (int p = 0; p < 4 && first.empty(); ++p) first = s.period();
  ASSERT_FALSE(first.empty());
  // The first one it ordered failed for good (pinned): it stays out of every plan.
  const std::uint64_t pinned = first.front().actor;
  s.memory.unmovable.insert(pinned);
  s.where[pinned] = pinned % 2;  // it did not move
  for (int p = 0; p < 100; ++p) {
    for (const Move& m : s.period()) EXPECT_NE(m.actor, pinned);
  }
}

// Two isolates; actors 1 and 2 talk, 1 on isolate 0 and 2 on `second`,
// `samples` of each a period (one in 64 messages), and `detoured`
// messages that came to the isolates' Forwards by a way around.
std::vector<Report> chatter(std::uint32_t second, std::uint64_t samples, double detoured = 0) {
  std::vector<Report> r{Report{0, {}, 0}, Report{1, {}, 0}};
  for (std::uint64_t i = 0; i < samples; ++i) {
    r[0].samples.push_back(Sample{1, 2, 1'000, 64});
    r[second].samples.push_back(Sample{2, 1, 1'000, 64});
  }
  r[0].detoured = detoured;
  return r;
}

TEST(BalancerPlan, AStepIsJudgedOnceTheSendersRoutesHaveSettled) {
  // A gathering, then periods in which a tenth of the messages still come
  // to the entries the mover left by a way around (the senders' routes are
  // not set up yet), at half the throughput: not judged on those. Once they settle the
  // step is judged on what it runs at then, and kept.
  BalancerOptions options;
  Memory memory;
  plan(chatter(1, 500), 2, 1e8, options, memory);  // the first period holds the start
  ASSERT_FALSE(plan(chatter(1, 500), 2, 1e8, options, memory).empty()) << "nothing gathered";
  ASSERT_TRUE(memory.trial.has_value());
  EXPECT_TRUE(plan(chatter(0, 250, 0.1 * 500 * 128), 2, 1e8, options, memory).empty());  // landing
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(plan(chatter(0, 250, 0.1 * 500 * 128), 2, 1e8, options, memory).empty());
    EXPECT_EQ(memory.undone, 0u) << "judged while the routes were settling";
    EXPECT_EQ(memory.kept, 0u) << "judged while the routes were settling";
  }
  for (std::uint32_t k = 0; k < kJudgePeriods; ++k) plan(chatter(0, 500), 2, 1e8, options, memory);
  EXPECT_EQ(memory.kept, 1u);
  EXPECT_EQ(memory.undone, 0u);

  // Routes that never settle: judged kMostSettlePeriods after landing, on
  // what the placement runs at then (here worse: undone).
  Memory stuck;
  plan(chatter(1, 500), 2, 1e8, options, stuck);
  ASSERT_FALSE(plan(chatter(1, 500), 2, 1e8, options, stuck).empty());
  plan(chatter(0, 250, 1e5), 2, 1e8, options, stuck);  // landing
  for (std::uint64_t i = 0; i < kMostSettlePeriods; ++i) {
    plan(chatter(0, 250, 1e5), 2, 1e8, options, stuck);
    ASSERT_EQ(stuck.undone, 0u) << "judged " << i << " periods after landing";
  }
  for (std::uint32_t k = 0; k < kJudgePeriods; ++k)
    plan(chatter(0, 250, 1e5), 2, 1e8, options, stuck);
  EXPECT_EQ(stuck.undone, 1u);
}

TEST(BalancerPlan, APauseOfTheWholeSystemDoesNotCountAgainstAStep) {
  // A gathering judged on a period in which the program paused half the
  // time (every isolate asleep at once): it handled half the messages, as
  // fast as before while it worked. Kept; the same period with no pause
  // measured is a halving, and undoes the step.
  for (const bool paused : {true, false}) {
    BalancerOptions options;
    Memory memory;
    plan(chatter(1, 500), 2, 1e8, options, memory);
    ASSERT_FALSE(plan(chatter(1, 500), 2, 1e8, options, memory).empty());
    for (std::uint32_t k = 0; k <= kJudgePeriods; ++k) {  // landing, then the judged ones
      plan(chatter(0, 250), 2, 1e8, options, memory, nullptr, paused ? 0.5e8 : 0.0);
    }
    EXPECT_EQ(memory.kept, paused ? 1u : 0u) << (paused ? "paused" : "not paused");
    EXPECT_EQ(memory.undone, paused ? 0u : 1u) << (paused ? "paused" : "not paused");
  }
}

TEST(BalancerPlan, AGroupSpreadOverEvenIsolatesGathersWhereMostOfItIs) {
  // A chain of 20 actors, 19 on isolate 1 and one on isolate 0, nothing
  // else running: either isolate would end as busy, so the one actor
  // moves, not the 19. The handlers' times vary and the busy times are
  // measured, so that the sums of the isolates' work and of the group's
  // share, taken in different orders, differ in their last bits.
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::vector<Report> r{Report{0, {}, 0}, Report{1, {}, 0}};
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull;
    for (std::uint64_t i = 0; i < 2000; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      const std::uint64_t actor = 1 + i % 20;
      const std::uint64_t sender = actor == 20 ? 1 : actor + 1;
      r[actor == 1 ? 0 : 1].samples.push_back(Sample{actor, sender, 500 + x % 7'919, 64});
    }
    // Measured busy times: each message's cost becomes a fraction.
    r[0].busyNanos = 0.0937e7;
    r[1].busyNanos = 1.8713e7;
    BalancerOptions options;
    Memory memory;
    plan(r, 2, 2e7, options, memory);
    const std::vector<Move> moves = plan(r, 2, 2e7, options, memory);
    ASSERT_EQ(moves.size(), 1u) << "seed " << seed;
    EXPECT_EQ(moves[0].actor, 1u);
    EXPECT_EQ(moves[0].to, 1u);
  }
}

TEST(BalancerPlan, AGroupJustGatheredIsNotSpreadUntilItsMoversCooledDown) {
  // A ring of 8 on a busy isolate 0, its even members just moved there (a
  // gathering): spreading now could only cut the odd ones out, one by one.
  // Once the movers' cooldown has passed, the ring is spread.
  // Each member hears from the one before it, a few more times the
  // further along it is: actor 1's neighbours each talk more with their
  // other neighbour, so it is a unit of its own, free to go.
  Report busy{0, {}, 0};
  for (std::uint64_t actor = 1; actor <= 8; ++actor) {
    for (std::uint64_t i = 0; i < 80 + 10 * actor; ++i) {
      busy.samples.push_back(Sample{actor, actor == 1 ? 8 : actor - 1, 20'000, 64});
    }
  }
  busy.busyNanos = 0.95e8;
  Report idle{1, {}, 0};
  idle.busyNanos = 0;
  BalancerOptions options;
  Memory memory;
  plan({busy, idle}, 2, 1e8, options, memory);
  for (std::uint64_t a = 2; a <= 8; a += 2) memory.actors[a] = Memory::Actor{memory.round, 1};
  for (std::uint32_t i = 0; i < options.cooldownPeriods; ++i) {
    EXPECT_TRUE(plan({busy, idle}, 2, 1e8, options, memory).empty()) << "period " << i;
  }
  EXPECT_FALSE(plan({busy, idle}, 2, 1e8, options, memory).empty());
}

TEST(BalancerPlan, ASpreadThatWasKeptBarsGatheringItsGroupAgain) {
  // A pair split over two isolates, after a spreading step of it that is
  // judged better (the throughput rose): gathering it is barred for
  // kRetryPeriods, as after a gathering that was undone.
  BalancerOptions options;
  Memory memory;
  Memory::Lesson& lesson = memory.lessons[1];
  EXPECT_EQ(lesson.gatherBarredUntil, 0u);
  plan(chatter(1, 500), 2, 1e8, options, memory);  // the first period holds the start
  Memory::Trial spread;
  spread.kind = Memory::Trial::Kind::Spread;
  spread.ordered = memory.round;
  spread.baseline = 500.0 * 128;
  spread.baselineSamples = 1000;
  spread.groups = {1};
  memory.trial = spread;
  for (std::uint32_t k = 0; k <= kJudgePeriods; ++k) plan(chatter(1, 600), 2, 1e8, options, memory);
  ASSERT_EQ(memory.kept, 1u);
  EXPECT_GE(memory.lessons[1].gatherBarredUntil, memory.round + kRetryPeriods - 1);
  for (std::uint64_t p = 0; p + 2 < kRetryPeriods; ++p) {
    EXPECT_TRUE(plan(chatter(1, 600), 2, 1e8, options, memory).empty()) << "period " << p;
  }
}

TEST(BalancerPlan, TheFirstPeriodHoldsTheStartAndOrdersNothing) {
  Simulation s = ring(8, 2);
  EXPECT_TRUE(s.period().empty());
  EXPECT_FALSE(s.period().empty());
}

TEST(BalancerPlan, NoSamplesNoMoves) {
  Memory memory;
  BalancerOptions options;
  EXPECT_TRUE(plan({}, 4, 1e8, options, memory).empty());
  EXPECT_TRUE(plan({Report{0, {}, 0}, Report{1, {}, 0}}, 2, 1e8, options, memory).empty());
  EXPECT_EQ(memory.round, 2u);
}

TEST(BalancerPlan, AMeasuredBusyTimeShowsWorkNoSampleSees) {
  // Two isolates whose handlers take the same time, the first busier by
  // what no sample times (crossings taken from its rings, say): with the
  // busy times measured, the plan spreads from it; reckoned from the
  // samples alone, the two look even and nothing moves.
  const auto reports = [](bool measured) {
    std::vector<Report> r{Report{0, {}, 0}, Report{1, {}, 0}};
    for (std::uint64_t i = 0; i < 800; ++i) {
      r[0].samples.push_back(Sample{1 + i % 8, Sample::kNobody, 1'000, 64});
      r[1].samples.push_back(Sample{11 + i % 8, Sample::kNobody, 1'000, 64});
    }
    if (measured) {
      r[0].busyNanos = 0.95e8;
      r[1].busyNanos = 0.55e8;
    }
    return r;
  };
  for (const bool measured : {false, true}) {
    Memory memory;
    BalancerOptions options;
    std::vector<double> busy;
    plan(reports(measured), 2, 1e8, options, memory);  // the first period holds the start
    const std::vector<Move> moves = plan(reports(measured), 2, 1e8, options, memory, &busy);
    if (!measured) {
      EXPECT_TRUE(moves.empty()) << "the samples alone show no imbalance";
      continue;
    }
    EXPECT_NEAR(busy[0], 0.95, 1e-9);
    EXPECT_NEAR(busy[1], 0.55, 1e-9);
    ASSERT_FALSE(moves.empty()) << "the busier isolate was not relieved";
    for (const Move& m : moves) {
      EXPECT_LE(m.actor, 8u) << "moved an actor of the idler isolate";
      EXPECT_EQ(m.to, 1u);
    }
    EXPECT_LE(moves.size(), 3u) << "moved more than the gap";
  }
}

TEST(BalancerPlan, AMeasuredIsolateWorksForItsBusyTimeEvenWhenItsHandlersClockMore) {
  // A handler's clock runs on through the turns it starts in place, so
  // sampled handler times can add up past the time the isolate was busy:
  // the isolate's work is what was measured, shared by its actors.
  Report r{0, {}, 0};
  for (std::uint64_t i = 0; i < 1000; ++i) r.samples.push_back(Sample{1 + i % 4, 2, 1'250, 64});
  r.busyNanos = 0.4e8;  // the handlers clocked 0.8e8
  Memory memory;
  BalancerOptions options;
  std::vector<double> busy;
  plan({r, Report{1, {}, 0}}, 2, 1e8, options, memory, &busy);
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_NEAR(busy[0], 0.4, 1e-9);
}

TEST(BalancerPlan, ASpreadNeverSplitsAPairWhosePartnerMayNotMoveYet) {
  // Two pairs on isolate 0, none on isolate 1. Actor 2 was just moved (its
  // cooldown runs): its partner 1 stays with it, and the pair 3-4 goes.
  // Then 4 was just moved too: nothing goes (a pair split across the two
  // would cross on every message).
  Report busy{0, {}, 0};
  for (std::uint64_t i = 0; i < 400; ++i) {
    busy.samples.push_back(Sample{1, 2, 10'000, 64});
    busy.samples.push_back(Sample{2, 1, 10'000, 64});
    busy.samples.push_back(Sample{3, 4, 10'000, 64});
    busy.samples.push_back(Sample{4, 3, 10'000, 64});
  }
  busy.busyNanos = 0.95e8;
  Report idle{1, {}, 0};
  idle.busyNanos = 0;
  Memory memory;
  BalancerOptions options;
  plan({busy, idle}, 2, 1e8, options, memory);  // the first period holds the start
  memory.actors[2] = Memory::Actor{memory.round, 1};
  const std::vector<Move> moves = plan({busy, idle}, 2, 1e8, options, memory);
  std::vector<std::uint64_t> moved;
  for (const Move& m : moves) moved.push_back(m.actor);
  std::sort(moved.begin(), moved.end());
  EXPECT_EQ(moved, (std::vector<std::uint64_t>{3, 4}));

  Memory later;
  plan({busy, idle}, 2, 1e8, options, later);
  later.actors[2] = Memory::Actor{later.round, 1};
  later.actors[4] = Memory::Actor{later.round, 1};
  EXPECT_TRUE(plan({busy, idle}, 2, 1e8, options, later).empty());
}

TEST(BalancerPlan, ASampleNotClockedCountsAsItsActorsOrItsIsolatesClockedOnes) {
  // An isolate clocks one sample in four. Actor 1's clocked samples say
  // 50 us a message and actor 3's 10 us: their other samples count as
  // much. Actor 2 was never clocked this period (its turns fell between),
  // yet works: it counts at the isolate's clocked mean, 30 us, not as
  // free. 40 samples each, one in 4 messages, of a 100 ms period.
  Report r{0, {}, 0};
  for (std::uint64_t i = 0; i < 40; ++i) {
    const bool clocked = i % 4 == 0;
    r.samples.push_back(Sample{1, Sample::kNobody, clocked ? 50'000u : 0u, 4, clocked});
    r.samples.push_back(Sample{2, Sample::kNobody, 0, 4, false});
    r.samples.push_back(Sample{3, Sample::kNobody, clocked ? 10'000u : 0u, 4, clocked});
  }
  Memory memory;
  BalancerOptions options;
  std::vector<double> busy;
  plan({r, Report{1, {}, 0}}, 2, 1e8, options, memory, &busy);
  ASSERT_EQ(busy.size(), 2u);
  // No busy time measured: each message reckoned at its handler's time and
  // kMessageNanos.
  const double messages = 40 * 4;
  const double work = messages * (50'000 + 30'000 + 10'000 + 3 * kMessageNanos);
  EXPECT_NEAR(busy[0], work / 1e8, 1e-9);
}

TEST(BalancerPlan, ASampleCountsForTheMessagesItStandsFor) {
  // Two isolates doing the same work: one sampled one in 64 messages (the
  // options' default), the other, busier in messages, one in 256 with a
  // quarter of the samples. Their estimated busy shares agree.
  BalancerOptions options;
  options.sampleEvery = 64;
  Report thick{0, {}, 0};
  Report thin{1, {}, 0};
  for (std::uint64_t i = 0; i < 400; ++i) thick.samples.push_back(Sample{1 + i % 4, 5, 1000, 0});
  for (std::uint64_t i = 0; i < 100; ++i) thin.samples.push_back(Sample{11 + i % 4, 15, 1000, 256});
  Memory memory;
  std::vector<double> busy;
  plan({thick, thin}, 2, 1e8, options, memory, &busy);
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_GT(busy[0], 0.0);
  EXPECT_DOUBLE_EQ(busy[0], busy[1]);
}

}  // namespace
}  // namespace coreactor::detail::balance
