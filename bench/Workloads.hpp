// bench/Workloads.hpp — the one definition of the actor workloads that both
// arms run: coreactor's (bench/ActorBench.cpp, in coreactor-bench) and CAF's
// (bench/caf/CafBench.cpp, in coreactor-bench-caf). A number changed here
// changes both arms, so a ratio coreactor/CAF always compares the same work.
//
// Header-only and free of coreactor's and CAF's headers: each arm includes it
// and nothing of the other.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace coreactor::bench::workloads {

// ---- how long each row runs (both arms, both executables) ----------------------

/// Repetitions of each row, and the measured (and warm-up) time of each
/// repetition, in seconds, as Google Benchmark flags. Full run: 5 of at least
/// 0.2 s after a 0.05 s warm-up (the first row would otherwise pay for a cold
/// CPU). Quick: 3 of 0.05 s; short repetitions are noisier, so trust the full
/// run's ratios.
struct RunDefaults {
  int repetitions;
  const char* minTime;
  const char* warmUpTime;
};
inline constexpr RunDefaults kFull = {5, "0.2", "0.05"};
inline constexpr RunDefaults kQuick = {3, "0.05", "0.01"};

// ---- the workloads ---------------------------------------------------------------

/// actor/tell/<N>: N tells of a one-int struct into one actor, all handled.
/// A burst that fits the caches, and one ten times larger (our mailbox grows
/// to 16k slots).
inline constexpr std::int64_t kTellBatches[] = {1'000, 10'000};
/// actor/pingpong/<N>: N round trips (ping -> pong) between two actors,
/// started by a single message. The seeds' volley size.
inline constexpr std::int64_t kRoundTrips = 10'000;
/// actor/ask/from-actor: one actor asks another this many times at once
/// (so this many deadlines are armed, and this many answers awaited, at
/// once), then the answers come back. actor/ask/one-at-a-time: as many asks,
/// each sent by the previous one's continuation (one in flight at a time).
inline constexpr std::int64_t kAsks = 10'000;
/// The deadline of every ask, in both arms. Long enough never to fire on a
/// loaded machine; a timeout would show up as a failed ask (and the run would
/// wait for it), never as a fast one.
inline constexpr std::chrono::seconds kAskTimeout{10};
/// actor/spawn/<N>, the whole life: N actors spawned, started and stopped.
inline constexpr std::int64_t kLifecycleActors = 100;
/// actor/spawn/<N>, populations: N actors spawned and started at once (their
/// stop is checked off the clock). The ratio of the two is the O(1) claim.
inline constexpr std::int64_t kPopulations[] = {10'000, 100'000};
/// actor/memory: resident bytes per idle actor, over this many actors, each
/// started and given one message, in a fresh process.
inline constexpr std::int64_t kIdleActors = 100'000;

// ---- the names of the shared rows --------------------------------------------------

inline std::string tellRow(std::int64_t batch) {
  return "actor/tell/" + std::to_string(batch);
}
inline std::string pingPongRow() {
  return "actor/pingpong/" + std::to_string(kRoundTrips);
}
inline constexpr const char* kAskRow = "actor/ask/from-actor";
inline constexpr const char* kAskOneAtATimeRow = "actor/ask/one-at-a-time";
/// CAF only: actor/ask/one-at-a-time without a deadline (CAF's `infinite`).
/// Every ask of ours has a deadline, so this row stands beside our
/// one-at-a-time row as the comparison most favourable to CAF: in CAF 0.17
/// each deadline is armed and cancelled through its timer thread.
inline constexpr const char* kAskNoDeadlineRow = "actor/ask/one-at-a-time/no-deadline";
inline std::string spawnRow(std::int64_t actors) {
  return "actor/spawn/" + std::to_string(actors);
}
inline constexpr const char* kMemoryRow = "actor/memory";

/// The row of ours that a CAF row is set beside: the same name, but for
/// kAskNoDeadlineRow.
inline std::string ourCounterpart(const std::string& cafRow) {
  return cafRow == kAskNoDeadlineRow ? std::string(kAskOneAtATimeRow) : cafRow;
}

}  // namespace coreactor::bench::workloads
