// bench/harness/ParallelTallies.hpp — what the actors of each parallel
// workload (parallel/<workload>/<n>, bench/harness/Workloads.hpp) count in
// a round, and the one check of a round against those counts, for both
// arms: ours (bench/parallel/) and CAF's (bench/caf/). What the actors hold
// of one another differs (an ActorRef, a caf::actor), so the state that
// holds handles is a template on the arm's handle; the counting and the
// checks are the same code in both arms. Like bench/harness/BenchSupport.hpp,
// it includes neither coreactor's runtime headers nor CAF's.
//
// Each check returns the ops that ran (what the row's figure counts) and
// sets `wrong` when a message was lost, duplicated or misrouted, or a sum is
// not the one computed off the clock (bench/harness/ParallelRound.hpp fails
// the row on it). Every actor counts on a cache line of its own: actors on
// different threads never write the same line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/Workloads.hpp"

namespace coreactor::bench::workloads {

/// A counter of one actor's, on a cache line of its own.
struct alignas(64) Counter {
  std::int64_t value = 0;
};

/// "3 replies, 4 expected": a count that is off, for `wrong`.
inline std::string counted(const char* what, std::int64_t expected, std::int64_t got) {
  return std::to_string(got) + " " + what + ", " + std::to_string(expected) + " expected";
}

// ---- parallel/pairs/<n> -------------------------------------------------------------

/// What one pair counts, on a line of its own (pairs run on different threads).
struct alignas(64) PairCounts {
  std::int64_t pings = 0;    // handled by the responder
  std::int64_t pongs = 0;    // handled by the requester
  std::int64_t inOrder = 0;  // pongs that answered the ping the requester expected
};

/// The kPairs pairs' counts.
struct PairsTally {
  std::vector<PairCounts> counts = std::vector<PairCounts>(static_cast<std::size_t>(kPairs));

  void reset() {
    for (PairCounts& c : counts) c = PairCounts{};
  }
  /// The round trips that came back in order; every ping answered once.
  std::int64_t done(std::string& wrong) const {
    std::int64_t ran = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const PairCounts& c = counts[k];
      if (c.pings != c.pongs || c.inOrder != c.pongs) {
        wrong = "pair " + std::to_string(k) + ": " + std::to_string(c.pings) + " pings, " +
                std::to_string(c.pongs) + " pongs, " + std::to_string(c.inOrder) + " in order";
      }
      ran += c.inOrder;
    }
    return ran;
  }
};

// ---- parallel/forkjoin/<n> ----------------------------------------------------------

template <class Handle>
struct ForkJoinShared {
  std::vector<Handle> workers;
  std::vector<Counter> handled = std::vector<Counter>(static_cast<std::size_t>(kForkJoinWorkers));
  // The producer's.
  std::int64_t answers = 0;
  std::uint64_t sum = 0;

  void reset() {
    for (Counter& worker : handled) worker.value = 0;
    answers = 0;
    sum = 0;
  }
  /// The answers gathered; every item handled once, and the sum the one of
  /// the items' results (`expected`: forkJoinExpectedSum()).
  std::int64_t done(std::uint64_t expected, std::string& wrong) const {
    std::int64_t items = 0;
    for (const Counter& worker : handled) items += worker.value;
    if (items != answers) wrong = counted("items handled", answers, items);
    if (sum != expected) wrong = "the gathered sum is not the sum of the items' results";
    return answers;
  }
};

// ---- parallel/ring-one/<n>, parallel/ring-many/<n> -------------------------------------

template <class Handle>
struct RingShared {
  /// A ring carrying `tokens` tokens at once, kRingHops / tokens hops each.
  explicit RingShared(std::int64_t tokens)
      : hops(static_cast<std::size_t>(kRingActors)),
        hopsPerToken(kRingHops / tokens),
        finishes(static_cast<std::size_t>(tokens)) {}

  std::vector<Handle> members;
  std::vector<Counter> hops;  // handled, per member
  std::int64_t hopsPerToken = 0;
  /// Where each token ended, and how often (once): written by the member
  /// that ends it.
  struct alignas(64) Finish {
    std::int64_t at = -1;
    std::int64_t times = 0;
  };
  std::vector<Finish> finishes;

  /// The member token `t` enters the ring at: the tokens start evenly spaced.
  std::size_t entry(std::size_t t) const {
    return t * static_cast<std::size_t>(kRingActors / static_cast<std::int64_t>(finishes.size()));
  }
  void reset() {
    for (Counter& member : hops) member.value = 0;
    for (Finish& finish : finishes) finish = Finish{};
  }
  /// The hops made; every token ended once, at the member its hops lead to.
  std::int64_t done(std::string& wrong) const {
    std::int64_t ran = 0;
    for (const Counter& member : hops) ran += member.value;
    for (std::size_t t = 0; t < finishes.size(); ++t) {
      const Finish& finish = finishes[t];
      const auto first = static_cast<std::int64_t>(entry(t));
      const std::int64_t last = (first + hopsPerToken - 1) % kRingActors;
      if (finish.times != 1 || finish.at != last) {
        wrong = "token " + std::to_string(t) + " ended " + std::to_string(finish.times) +
                " times, at member " + std::to_string(finish.at) + " (expected once, at " +
                std::to_string(last) + ")";
      }
    }
    return ran;
  }
};

// ---- parallel/all-to-all/<n> ----------------------------------------------------------

/// What one peer counts, on a line of its own.
struct alignas(64) PeerCounts {
  std::int64_t requests = 0;  // handled (and answered)
  std::int64_t replies = 0;   // received
  std::uint64_t sent = 0;     // the sum of the numbers it sent
  std::uint64_t echoed = 0;   // the sum of the numbers its replies carried
};

template <class Handle>
struct AllToAllShared {
  std::vector<Handle> peers;
  std::vector<PeerCounts> counts =
      std::vector<PeerCounts>(static_cast<std::size_t>(kAllToAllActors));

  void reset() {
    for (PeerCounts& c : counts) c = PeerCounts{};
  }
  /// The replies received; every peer got all its replies, each carrying
  /// the number of its request, and every request was handled once.
  std::int64_t done(std::string& wrong) const {
    std::int64_t requests = 0;
    std::int64_t replies = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      const PeerCounts& c = counts[i];
      requests += c.requests;
      replies += c.replies;
      if (c.replies != kAllToAllMessages || c.echoed != c.sent) {
        wrong = "peer " + std::to_string(i) + ": " +
                counted("replies", kAllToAllMessages, c.replies) +
                (c.echoed != c.sent ? ", carrying other numbers than it sent" : "");
      }
    }
    if (requests != replies) wrong = counted("requests handled", replies, requests);
    return replies;
  }
};

// ---- parallel/pipeline/<n> --------------------------------------------------------------

template <class Handle>
struct PipelineShared {
  std::vector<Handle> stages;
  std::vector<Counter> handled = std::vector<Counter>(static_cast<std::size_t>(kPipelineStages));
  /// The last stage's tallies, written with every message, on a line of
  /// their own: the line of the vectors above is read by every stage,
  /// on every thread, with every message.
  struct alignas(64) Tally {
    std::int64_t arrived = 0;
    std::uint64_t sum = 0;
  };
  Tally last;

  void reset() {
    for (Counter& stage : handled) stage.value = 0;
    last.arrived = 0;
    last.sum = 0;
  }
  /// The messages through every stage; each stage handled each once, and
  /// the last one's sum is the pipeline's (`expected`: pipelineExpectedSum()).
  std::int64_t done(std::uint64_t expected, std::string& wrong) const {
    for (std::size_t s = 0; s < handled.size(); ++s) {
      if (handled[s].value != last.arrived) {
        wrong = "stage " + std::to_string(s) + ": " +
                counted("messages", last.arrived, handled[s].value);
      }
    }
    if (last.sum != expected) wrong = "the last stage's sum is not the pipeline's";
    return last.arrived;
  }
};

}  // namespace coreactor::bench::workloads
