// The balancer's decision (docs/isolates.md, "The balancer"): from one
// period's samples of every isolate, which actors move where. A pure
// function of its inputs and of what it remembers of past periods, so that
// it is tested on made-up traffic at any number of isolates
// (tests/runtime/BalancerPlanTest.cpp); runtime/balance/Balancer.cpp feeds
// it from the isolates and carries its moves out.
//
// It learns by trying. The samples say who talks with whom (the actors
// fall into groups: the connected parts of that graph) and roughly what
// each actor costs, but not whether a group gains from a second core: a
// ring with one token does not, the same ring with many tokens may, a
// pipeline does. So each step is a trial, judged by the throughput it
// brings (messages handled per period, all isolates together):
//   1. Gather. Each group spread over several isolates goes whole to one,
//      the one that keeps the isolates' work most even.
//   2. Spread. While the busiest isolate is ahead of the idlest by more
//      than kImbalance of its work, the unit of the busiest whose move cuts
//      the fewest conversations per unit of work goes to the idlest (a unit
//      is an actor and those of its peers that talk mostly with it, so a
//      pair stays a pair and a chain is cut in one place; a unit one of
//      whose members may not move yet is not moved at all, nor a group a
//      step just moved members of).
// One step at a time: its moves land in the next period, the first
// kJudgePeriods after that in which the senders' routes have settled (few
// messages go through the entries the movers left) are measured against as
// many before it, and a step that
// lowered the throughput (messages per working time: a pause of the whole
// system does not count) is undone (a gathering only if by more than the
// noise). What was undone is not tried again on those groups for
// kRetryPeriods, twice as long after each failure, so a ring with one token
// stays on one isolate and a pipeline stays cut, and nothing is moved back
// and forth; a spreading that was kept bars gathering its groups the same
// way (it showed that they gain from being spread). An actor a kept step moved stays for
// cooldownPeriods, and is moved at most maxMovesPerActor times in its life (undoing is free).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "coreactor/ActorSystemOptions.hpp"

namespace coreactor::detail::balance {

/// One sampled message: who got it, who sent it (kNobody: no actor of the
/// system), how long its handler ran (if `timed`), and how many messages it
/// stands for.
struct Sample {
  static constexpr std::uint64_t kNobody = ~std::uint64_t{0};
  std::uint64_t actor = 0;
  std::uint64_t sender = kNobody;
  std::uint64_t nanos = 0;
  /// It was one in `every` messages of its isolate (0: the options'
  /// sampleEvery). An isolate samples more thinly when it handles many.
  std::uint64_t every = 0;
  /// Its handler was clocked (`nanos`). An isolate clocks only some of its
  /// samples; the others count as their actor's clocked ones do on average
  /// (or, for an actor none of whose samples was clocked in the period, as
  /// the isolate's do).
  bool timed = true;
};

/// What one isolate sampled over one period.
struct Report {
  std::uint32_t isolate = 0;
  std::vector<Sample> samples;
  /// The time the samples were taken over, ns (0: exactly one period).
  double spanNanos = 0;
  /// The time the isolate was busy over that span, measured (its loop's
  /// time less its waits for work), ns; negative: not measured, and each
  /// message is reckoned at its handler's time plus kMessageNanos.
  double busyNanos = -1;
  /// Messages that came to the isolate's Forwards (entries moved actors
  /// left) by a way around and were sent on, over the span: until the
  /// senders' routes lead to the new homes, each takes an extra hop.
  double detoured = 0;
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

  /// The step being judged, if any.
  struct Trial {
    enum class Kind : std::uint8_t { Gather, Spread, Undo };
    Kind kind = Kind::Gather;
    std::uint64_t ordered = 0;          // the round that ordered it
    double baseline = 0;                // messages per period before it (kJudgePeriods' mean)
    double baselineSamples = 0;         // samples that figure rests on
    std::vector<Move> undo;             // each moved actor back where it was
    std::vector<std::uint64_t> groups;  // the groups it moved, by their least actor
    double judgedRate = 0;              // the sum of the rates of the periods measured so far
    double judgedSamples = 0;           // and of their samples
    std::uint32_t judged = 0;           // periods measured since its routes settled
  };
  std::optional<Trial> trial;
  /// What the trials taught, per group (by its least actor): until which
  /// round each kind of step is not tried on it, and how often it failed.
  struct Lesson {
    std::uint64_t gatherBarredUntil = 0;
    std::uint64_t spreadBarredUntil = 0;
    std::uint32_t gatherFailures = 0;
    std::uint32_t spreadFailures = 0;
  };
  std::unordered_map<std::uint64_t, Lesson> lessons;
  /// The last period with no step under way (none landing or judged), and
  /// its throughput: with the period a step is ordered in, its baseline.
  std::uint64_t quietRound = 0;
  double quietRate = 0;
  double quietSamples = 0;
  /// Steps kept and steps undone so far.
  std::uint64_t kept = 0;
  std::uint64_t undone = 0;

  /// Forgets what it keeps of actors not moved for `rounds`, and lessons
  /// long expired (the maps stay bounded).
  void forgetOlderThan(std::uint64_t rounds);
};

/// The moves for one period. `isolates`: how many the system has;
/// `capacityNanos`: one isolate's time in a period (the period's length);
/// `busy` (out, optional): each isolate's estimated busy share, 0..1;
/// `pausedNanos`: the time in the period that every isolate slept at once
/// (SleepCensus), which the throughput a step is judged by leaves out.
std::vector<Move> plan(const std::vector<Report>& reports, std::size_t isolates,
                       double capacityNanos, const BalancerOptions& options, Memory& memory,
                       std::vector<double>* busy = nullptr, double pausedNanos = 0);

/// The spread step acts while the busiest isolate's estimated work is at
/// least this share of a period (below it the system is idle enough that
/// where its actors run does not matter)...
inline constexpr double kActive = 0.25;
/// ...and it is ahead of the idlest by more than this share of its work.
inline constexpr double kImbalance = 0.15;
/// A spreading step is undone when the throughput after it is lower at
/// all; a gathering one when it is lower by more than this share, or by
/// more than the samples' noise (2 / sqrt(samples)).
inline constexpr double kWorse = 0.05;
/// Periods a step that was undone is not tried again on the same group,
/// doubled after each further failure (up to 2^kMaxBackoff times).
inline constexpr std::uint64_t kRetryPeriods = 32;
inline constexpr std::uint32_t kMaxBackoff = 5;
/// A step is judged on the first period after its moves landed in which
/// at most this share of the messages took a way around (Report::detoured:
/// the senders' routes have settled, and a placement is judged as it will
/// run)...
inline constexpr double kSettled = 0.01;
/// ...or, if the routes take longer, this many periods after it.
inline constexpr std::uint64_t kMostSettlePeriods = 8;
/// A step is judged on the mean throughput of this many periods once its
/// routes settled, against the mean of as many before it: a period's figure
/// swings by a quarter or more on a shared machine (a driver's pauses, the
/// other tenants), one period against one would judge by that.
inline constexpr std::uint32_t kJudgePeriods = 2;
/// A period counts as working at least this share of its time (a period
/// almost all paused would make its few messages a figure of any size).
inline constexpr double kLeastWorking = 0.1;
/// What a message costs its isolate besides its handler (the mailbox, the
/// turn, the dispatch), added to each sample's measured time when the
/// isolate's busy time is not measured. When it is, that cost is the busy
/// time the handlers leave, shared over the isolate's messages: it holds
/// what no handler's clock sees (taking messages from the rings, turns,
/// the loop's own work).
inline constexpr double kMessageNanos = 50.0;

}  // namespace coreactor::detail::balance
