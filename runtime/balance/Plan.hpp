// The balancer's decision (docs/isolates.md, "The balancer"): from one
// period's samples of every isolate, which actors move where. A pure
// function of its inputs and of what it remembers of past moves, so that it
// is tested on made-up traffic at any number of isolates
// (tests/runtime/BalancerPlanTest.cpp); runtime/balance/Balancer.cpp feeds
// it from the isolates and carries its moves out.
//
// How it decides, in two passes over the period's picture (where each
// sampled actor lives, whom it talks with, what its messages cost):
//   1. Together. An actor that talks more with the actors of another
//      isolate than with those of its own, by a clear margin, goes there,
//      if that isolate has room (it stays below kBusy of the period, or the
//      move leaves the two no further apart than they were). The picture is
//      updated after each move, so a group gathers on one side instead of
//      its halves swapping. While the whole system's work is light
//      (kLight), an even split is enough: the actor goes to the lower
//      isolate, so a ring spread in blocks collapses onto one.
//   2. Spread. While the busiest isolate is over kSpreadAbove busy and
//      ahead of the idlest by more than kImbalance, the actor of the
//      busiest whose move cuts the fewest conversations per unit of work
//      goes to the idlest.
// An actor moves at most once a period, then not again for
// cooldownPeriods, and at most maxMovesPerActor times in its life: a tug
// between the passes cannot move it back and forth for ever.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "coreactor/ActorSystemOptions.hpp"

namespace coreactor::detail::balance {

/// One sampled message: who got it, who sent it (kNobody: no actor of the
/// system), and how long its handler ran.
struct Sample {
  static constexpr std::uint64_t kNobody = ~std::uint64_t{0};
  std::uint64_t actor = 0;
  std::uint64_t sender = kNobody;
  std::uint64_t nanos = 0;
};

/// What one isolate sampled in one period.
struct Report {
  std::uint32_t isolate = 0;
  std::vector<Sample> samples;
};

/// One move the plan orders.
struct Move {
  std::uint64_t actor;
  std::uint32_t to;
};

/// What the planner keeps between periods.
class Memory {
 public:
  /// The period number of the plan being made (1 for the first).
  std::uint64_t round = 0;
  struct Actor {
    std::uint64_t lastMove = 0;  // the round it last moved in
    std::uint32_t moves = 0;     // moves ordered for it so far
  };
  std::unordered_map<std::uint64_t, Actor> actors;
  /// Actors a move of failed for good (pinned, bound, gone): never again.
  std::unordered_set<std::uint64_t> unmovable;
  /// Forgets what it keeps of actors not seen for a while (the map stays bounded).
  void forgetOlderThan(std::uint64_t rounds);
};

/// The moves for one period. `isolates`: how many the system has;
/// `capacityNanos`: one isolate's time in a period (the period's length);
/// `busy` (out, optional): each isolate's estimated busy share, 0..1.
std::vector<Move> plan(const std::vector<Report>& reports, std::size_t isolates,
                       double capacityNanos, const BalancerOptions& options, Memory& memory,
                       std::vector<double>* busy = nullptr);

/// The spread pass acts while the busiest isolate is over this share...
inline constexpr double kSpreadAbove = 0.6;
/// ...and an isolate this busy has no room for a group's move: the same
/// share, so that what one pass does the other does not undo.
inline constexpr double kBusy = kSpreadAbove;
/// Below this share of one isolate for the whole system, the work is
/// light (it all fits on one isolate): a group gathers on the lowest
/// isolate it touches even when its conversations are split evenly (a
/// chain's ends, a ring's blocks).
inline constexpr double kLight = 0.9;
/// ...and ahead of the idlest by more than this.
inline constexpr double kImbalance = 0.25;
/// A group's move needs this share of the actor's conversations more on
/// the other side than on its own.
inline constexpr double kMargin = 0.25;
/// What a message costs its isolate besides its handler (the mailbox, the
/// turn, the dispatch), added to each sample's measured time.
inline constexpr double kMessageNanos = 50.0;

}  // namespace coreactor::detail::balance
