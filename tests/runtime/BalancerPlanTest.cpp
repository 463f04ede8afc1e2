// The balancer's decision (runtime/balance/Plan.hpp) on made-up traffic, at
// 2, 4, 16 and 64 isolates: a workload is a graph of who talks to whom and
// what each message costs; each period's samples come from the graph and
// the current placement, the plan's moves are applied, and after some
// periods the placement must have converged: a ring gathered, pairs
// together, a skew spread, without an actor pulled back and forth. Nothing
// here runs a loop or reads a clock, but the cost of a plan (reported, not
// asserted).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <vector>

#include "runtime/balance/Plan.hpp"

namespace coreactor::detail::balance {
namespace {

// A workload: actors 1..n (ids), who sends to whom, the cost of a handler.
struct Workload {
  std::size_t actors = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>>
      edges;                 // sender -> receiver, one message a period each
  std::vector<double> cost;  // ns per message, by actor id
  std::uint32_t messagesPerEdge = 64;
};

struct Simulation {
  Workload w;
  std::size_t isolates;
  std::vector<std::uint32_t> where;  // by actor id
  BalancerOptions options;
  Memory memory;
  double capacity = 1e8;  // a 100 ms period
  std::map<std::uint64_t, std::uint32_t> movesOf;
  std::size_t totalMoves = 0;
  double planNanos = 0;

  // One period: the samples the isolates would take (every message is
  // sampled: sampleEvery 1), the plan, its moves applied.
  std::vector<Move> period() {
    std::vector<Report> reports(isolates);
    for (std::uint32_t i = 0; i < isolates; ++i) reports[i].isolate = i;
    for (const auto& [from, to] : w.edges) {
      for (std::uint32_t m = 0; m < w.messagesPerEdge; ++m) {
        reports[where[to]].samples.push_back(
            Sample{to, from, static_cast<std::uint64_t>(w.cost[to])});
      }
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<Move> moves = plan(reports, isolates, capacity, options, memory);
    planNanos = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - start)
                                        .count());
    for (const Move& m : moves) {
      where[m.actor] = m.to;
      ++movesOf[m.actor];
      ++totalMoves;
    }
    return moves;
  }
  // Runs periods until cooldown + 1 in a row order no move (or `most`
  // ran); returns the period of the last move.
  int converge(int most) {
    int quiet = 0;
    int last = 0;
    for (int p = 1; p <= most; ++p) {
      if (!period().empty()) {
        last = p;
        quiet = 0;
      } else if (++quiet > static_cast<int>(options.cooldownPeriods)) {
        return last;
      }
    }
    return most + 1;
  }
  std::size_t cut() const {
    std::size_t n = 0;
    for (const auto& [from, to] : w.edges) n += where[from] != where[to] ? 1 : 0;
    return n;
  }
  std::vector<double> loads() const {
    std::vector<double> l(isolates, 0.0);
    for (const auto& [from, to] : w.edges) l[where[to]] += w.cost[to] * w.messagesPerEdge;
    return l;
  }
  std::uint32_t mostMovesOfOneActor() const {
    std::uint32_t most = 0;
    for (const auto& [actor, n] : movesOf) most = std::max(most, n);
    return most;
  }
};

Simulation make(Workload w, std::size_t isolates) {
  Simulation s;
  s.w = std::move(w);
  s.isolates = isolates;
  s.options.sampleEvery = 1;
  s.where.assign(s.w.actors + 1, 0);
  return s;
}

// A ring of `n` actors, each placed on actor % isolates (the worst placement:
// every hop crosses), cheap messages.
Simulation ring(std::size_t n, std::size_t isolates) {
  Workload w;
  w.actors = n;
  w.cost.assign(n + 1, 100.0);
  for (std::uint64_t a = 1; a <= n; ++a) w.edges.emplace_back(a, a % n + 1);
  Simulation s = make(std::move(w), isolates);
  for (std::uint64_t a = 1; a <= n; ++a) s.where[a] = static_cast<std::uint32_t>(a % isolates);
  return s;
}

// Pairs that ping-pong, each split between two isolates, round-robin.
Simulation pairs(std::size_t count, std::size_t isolates, double cost) {
  Workload w;
  w.actors = 2 * count;
  w.cost.assign(w.actors + 1, cost);
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

// Busy actors that talk with no one but a driver, all on isolate 0.
Simulation skew(std::size_t busy, std::size_t isolates, double cost) {
  Workload w;
  w.actors = busy + 1;  // actor busy + 1 is the driver
  w.cost.assign(w.actors + 1, cost);
  w.cost[busy + 1] = 100.0;
  w.messagesPerEdge = 16;
  for (std::uint64_t a = 1; a <= busy; ++a) w.edges.emplace_back(busy + 1, a);
  Simulation s = make(std::move(w), isolates);
  return s;  // everyone on isolate 0
}

// Every actor sends to every other, cheap messages, round-robin placement.
Simulation allToAll(std::size_t n, std::size_t isolates) {
  Workload w;
  w.actors = n;
  w.cost.assign(n + 1, 100.0);
  w.messagesPerEdge = 4;
  for (std::uint64_t a = 1; a <= n; ++a) {
    for (std::uint64_t b = 1; b <= n; ++b) {
      if (a != b) w.edges.emplace_back(a, b);
    }
  }
  Simulation s = make(std::move(w), isolates);
  for (std::uint64_t a = 1; a <= n; ++a) s.where[a] = static_cast<std::uint32_t>(a % isolates);
  return s;
}

class AtIsolates : public ::testing::TestWithParam<std::size_t> {};

TEST_P(AtIsolates, ARingSpreadTheWorstWayGathersWithoutAnActorMovingTwice) {
  Simulation s = ring(64, GetParam());
  ASSERT_EQ(s.cut(), 64u);
  const int periods = s.converge(20);
  EXPECT_LE(periods, 20);
  // Light work: the whole ring ends on few isolates, most hops local.
  EXPECT_LE(s.cut(), GetParam()) << "hops that still cross";
  EXPECT_LE(s.mostMovesOfOneActor(), 2u);
  std::printf("[ring %zu isolates] periods %d, moves %zu, cut 64 -> %zu, plan %.0f us\n",
              GetParam(), periods, s.totalMoves, s.cut(), s.planNanos / 1000);
}

TEST_P(AtIsolates, SplitPairsComeTogetherAndTheWorkStaysSpread) {
  const std::size_t n = GetParam();
  // Each pair is busy: 4 pairs per isolate, each pair ~10% of an isolate.
  Simulation s = pairs(4 * n, n, 0.1 * 1e8 / (2 * 64));
  const int periods = s.converge(20);
  EXPECT_LE(periods, 20);
  EXPECT_EQ(s.cut(), 0u) << "pairs still split";
  const std::vector<double> l = s.loads();
  const auto [lo, hi] = std::minmax_element(l.begin(), l.end());
  EXPECT_LE(*hi - *lo, 0.35 * s.capacity) << "the pairs piled up";
  EXPECT_LE(s.mostMovesOfOneActor(), 2u);
  std::printf("[pairs %zu isolates] periods %d, moves %zu, plan %.0f us\n", n, periods,
              s.totalMoves, s.planNanos / 1000);
}

TEST_P(AtIsolates, BusyActorsAllSpawnedOnOneIsolateSpreadOverAll) {
  const std::size_t n = GetParam();
  // 4 busy actors per isolate, together 4 isolates' worth of work: all on isolate 0.
  Simulation s = skew(4 * n, n, 0.25 * 1e8 / 16 * 0.9);
  const int periods = s.converge(40);
  EXPECT_LE(periods, 40);
  const std::vector<double> l = s.loads();
  const auto [lo, hi] = std::minmax_element(l.begin(), l.end());
  EXPECT_LE(*hi - *lo, 0.35 * s.capacity) << "still skewed: " << *hi << " vs " << *lo;
  EXPECT_LE(s.mostMovesOfOneActor(), 2u);
  std::printf(
      "[skew %zu isolates] periods %d, moves %zu, busiest %.2f, idlest %.2f, plan %.0f us\n", n,
      periods, s.totalMoves, *hi / s.capacity, *lo / s.capacity, s.planNanos / 1000);
}

TEST_P(AtIsolates, AllToAllSettlesAndNoActorIsMovedPastItsBound) {
  const std::size_t n = GetParam();
  Simulation s = allToAll(32, n);
  const std::size_t before = s.cut();
  const int periods = s.converge(60);
  EXPECT_LE(periods, 60) << "still moving actors after 60 periods";
  EXPECT_LE(s.cut(), before);
  EXPECT_LE(s.mostMovesOfOneActor(), s.options.maxMovesPerActor);
  std::printf("[all-to-all %zu isolates] periods %d, moves %zu, cut %zu -> %zu, plan %.0f us\n", n,
              periods, s.totalMoves, before, s.cut(), s.planNanos / 1000);
}

INSTANTIATE_TEST_SUITE_P(BalancerPlan, AtIsolates, ::testing::Values(2, 4, 16, 64),
                         [](const auto& info) { return std::to_string(info.param) + "isolates"; });

TEST(BalancerPlan, AnActorThatCannotMoveIsNeverOrderedAgain) {
  Simulation s = ring(8, 2);
  std::vector<Move> first = s.period();
  ASSERT_FALSE(first.empty());
  // The first one it ordered failed for good (pinned): it stays out of every plan.
  const std::uint64_t pinned = first.front().actor;
  s.memory.unmovable.insert(pinned);
  s.where[pinned] = pinned % 2;  // it did not move
  for (int p = 0; p < 10; ++p) {
    for (const Move& m : s.period()) EXPECT_NE(m.actor, pinned);
  }
}

TEST(BalancerPlan, NoSamplesNoMoves) {
  Memory memory;
  BalancerOptions options;
  EXPECT_TRUE(plan({}, 4, 1e8, options, memory).empty());
  EXPECT_TRUE(plan({Report{0, {}}, Report{1, {}}}, 2, 1e8, options, memory).empty());
  EXPECT_EQ(memory.round, 2u);
}

}  // namespace
}  // namespace coreactor::detail::balance
