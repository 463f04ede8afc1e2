/// @file
/// `coreactor/Metrics.hpp` — what each isolate counts, read as a snapshot or
/// as Prometheus text.
//
// Every isolate keeps its own counters and gauges. The one that counts is the
// isolate's thread, with plain increments on memory no other thread writes:
// no lock, no atomic read-modify-write, and no clock read on the message path.
// The loop's lag is measured where the loop reads its clock anyway (the timer
// phase). A snapshot asks each isolate for its figures on its own loop and
// gathers them:
//
//   MetricsSnapshot snapshot = system->metrics();          // from outside: waits
//   std::uint64_t handled = snapshot.total().messages;
//   system->metrics([](MetricsSnapshot s) { ... });        // anywhere: a callback
//   std::string page = snapshot.prometheusText();          // text format 0.0.4
//
// ActorSystemOptions::withMetricsEndpoint(port) serves that page at
// http://address:port/metrics from one of the system's isolates.
// docs/metrics.md lists every figure, what it counts and what it costs.
//
// Thread-safety: the snapshot is a value; read it anywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coreactor/ActorRef.hpp"

namespace coreactor {

/// One isolate's figures. Counters count since the system was made; gauges
/// (marked) are their value when the snapshot was taken.
struct IsolateMetrics {
  std::uint32_t isolate = 0;  ///< the isolate's index; the total says 0

  // The loop.
  std::uint64_t iterations = 0;           ///< loop iterations
  std::uint64_t macrotasks = 0;           ///< macrotasks run (an actor's turn is one)
  std::uint64_t microtasks = 0;           ///< microtasks run
  std::uint64_t timersFired = 0;          ///< timer callbacks run
  std::uint64_t sleeps = 0;               ///< times the loop blocked waiting for work
  std::uint64_t macrotaskQueueDepth = 0;  ///< gauge: macrotasks waiting
  std::uint64_t microtaskQueueDepth = 0;  ///< gauge: microtasks waiting
  /// Loop lag: how late timers fired after their deadlines, summed over
  /// timersFired (nanoseconds).
  std::uint64_t timerLagSumNanos = 0;
  /// The latest a timer has fired after its deadline since the start (nanoseconds).
  std::uint64_t timerLagMaxNanos = 0;

  // Actors.
  std::uint64_t turns = 0;          ///< actor turns run
  std::uint64_t messages = 0;       ///< user messages actors took from their mailboxes
  std::uint64_t hybridYields = 0;   ///< times the hybrid dispatcher yielded to the loop
  std::uint64_t liveActors = 0;     ///< gauge: actors alive (system actors included)
  std::uint64_t liveSchedules = 0;  ///< gauge: user schedules held
  std::uint64_t deadLetters = 0;    ///< messages that became dead letters on this isolate

  // Between isolates, and from other threads.
  std::uint64_t crossingsSent = 0;      ///< messages sent to other isolates
  std::uint64_t crossingsReceived = 0;  ///< messages taken from other isolates
  std::uint64_t crossingsRefused = 0;   ///< sent, refused: the overflow list was at its bound
  std::uint64_t inboxDepth = 0;         ///< gauge: letters from other threads waiting

  // Moves (ActorSystem::move, the balancer).
  std::uint64_t movesIn = 0;        ///< actors that arrived on this isolate by a move
  std::uint64_t forwarded = 0;      ///< messages an entry a moved actor left here sent on
  std::uint64_t routes = 0;         ///< gauge: routes this isolate keeps to actors that moved
  std::uint64_t balancerMoves = 0;  ///< moves of the balancer that arrived here
  /// Gauge: the share of the last balancer period this isolate's actors
  /// spent in their handlers, in thousandths (estimated from the samples).
  std::uint64_t busyPermille = 0;
  // Routers (docs/routers.md).
  std::uint64_t poolsGrown = 0;   ///< resizer decisions to grow a pool whose router's head is here
  std::uint64_t poolsShrunk = 0;  ///< resizer decisions to shrink one
};

/// The deepest an actor's mailbox has been, for an actor that opted in
/// (ActorOptions::withMailboxHighWaterMark).
struct MailboxHighWater {
  ActorRef actor;           ///< the actor
  std::string path;         ///< its path when the snapshot was taken
  std::uint64_t depth = 0;  ///< the most messages its mailbox held at the start of a turn
};

/// Every isolate's figures at one moment (each read on its own loop).
struct MetricsSnapshot {
  std::string system;                       ///< the system's name
  std::vector<IsolateMetrics> isolates;     ///< by index
  std::vector<MailboxHighWater> mailboxes;  ///< the actors that opted in, alive at the snapshot

  /// The isolates summed (the largest lag for timerLagMaxNanos).
  IsolateMetrics total() const;
  /// The Prometheus text exposition format (0.0.4): one family per figure,
  /// named coreactor_<figure>, a sample per isolate labelled
  /// system="...",isolate="i", and one per opted-in mailbox.
  std::string prometheusText() const;
};

}  // namespace coreactor
