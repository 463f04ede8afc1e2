// bench/harness/Workloads.hpp — the one definition of the actor workloads that
// both arms run: coreactor's (bench/actor/, bench/parallel/, in
// coreactor-bench) and CAF's (bench/caf/, in coreactor-bench-caf). A number
// changed here changes both arms, so a ratio coreactor/CAF always compares
// the same work.
//
// Header-only and free of coreactor's and CAF's headers: each arm includes it
// and nothing of the other.
#pragma once

#include <sched.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace coreactor::bench::workloads {

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
/// An ask from an actor to an actor on another isolate (CAF: another actor
/// of a system with two worker threads), one at a time, each timed from the
/// ask to its continuation: p50 is the figure, p99 beside it.
inline constexpr const char* kCrossAskRow = "isolates/ask/cross";
/// Asks per round of kCrossAskRow.
inline constexpr std::int64_t kCrossAsks = 2'000;
/// An ask from the benchmark's own thread (ours: no isolate, blocking on
/// the AskFuture; CAF: a scoped_actor's request(...).receive(...)) to an
/// actor, one at a time, each timed from the call to the reply in hand:
/// p50 is the figure, p99 beside it. What every program that calls actors
/// from its own threads pays per call.
inline constexpr const char* kForeignAskRow = "isolates/ask/foreign";
/// Asks per round of kForeignAskRow.
inline constexpr std::int64_t kForeignAsks = 200;
inline std::string spawnRow(std::int64_t actors) {
  return "actor/spawn/" + std::to_string(actors);
}
inline constexpr const char* kMemoryRow = "actor/memory";

// ---- the parallel workloads: parallel/<workload>/<n> ---------------------------------
//
// Threaded systems of n isolates (ours: ActorSystemOptions::withIsolates(n))
// against CAF with n scheduler threads (scheduler.max-threads = n), n = 1 ..
// N (parallelCounts()). The total work of a round is the same at every n, so
// the figure at n over the figure at 1 (of the same arm, the same run) is the
// speedup. One op is one unit of the workload (a round trip, an item, a hop,
// a request answered, a message through the whole pipeline); the figure is
// ns per op over all isolates together (aggregate), and ops per second
// beside it (Google Benchmark's items_per_second).

/// parallel/pairs/<n>: kPairs independent pairs, each playing kPairRoundTrips
/// round trips (ping -> pong), all at once. Ours puts pair k (both actors) on
/// isolate k mod n; CAF's scheduler places its actors itself.
inline constexpr std::int64_t kPairs = 8;
inline constexpr std::int64_t kPairRoundTrips = 10'000;

/// One item's work (parallel/forkjoin) and one stage's (parallel/pipeline):
/// kWorkSteps rounds of xorshift and multiply, a dependent chain the
/// compiler can neither fold nor vectorise (~56 ns on this machine kind),
/// so that the work is not free next to the messages that carry it.
inline constexpr int kWorkSteps = 32;
inline constexpr std::uint64_t work(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < kWorkSteps; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x *= 0x2545F4914F6CDD1DULL;
  }
  return x;
}

/// parallel/forkjoin/<n>: a producer hands kForkJoinItems items (the item
/// is its index i) round-robin to kForkJoinWorkers workers, all at once;
/// each worker answers work(i); the producer sums the answers and checks the
/// sum against forkJoinExpectedSum(), computed off the clock.
inline constexpr std::int64_t kForkJoinWorkers = 64;
inline constexpr std::int64_t kForkJoinItems = 50'000;
inline std::uint64_t forkJoinExpectedSum() {
  std::uint64_t sum = 0;
  for (std::int64_t i = 0; i < kForkJoinItems; ++i) sum += work(static_cast<std::uint64_t>(i));
  return sum;
}

/// parallel/ring-one/<n> and parallel/ring-many/<n>: kRingActors actors in a
/// ring, each passing a token to the next. ring-one: one token, kRingHops
/// hops. ring-many: kRingTokens tokens at once, started at evenly spaced
/// actors, kRingHops / kRingTokens hops each: the same hops in total.
inline constexpr std::int64_t kRingActors = 64;
inline constexpr std::int64_t kRingHops = 64'000;
inline constexpr std::int64_t kRingTokens = 32;
static_assert(kRingHops % kRingTokens == 0 && kRingActors % kRingTokens == 0);

/// parallel/all-to-all/<n>: kAllToAllActors actors; each sends
/// kAllToAllMessages requests at once to pseudo-random peers
/// (allToAllPeer), every request is answered, and each actor counts its
/// replies.
inline constexpr std::int64_t kAllToAllActors = 64;
inline constexpr std::int64_t kAllToAllMessages = 1'000;
/// The generator of actor `self`'s peers: xorshift64 from a fixed seed per
/// actor, so that both arms send the same requests to the same peers.
inline constexpr std::uint64_t allToAllSeed(std::int64_t self) {
  return 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(self + 1);
}
/// The next peer of `self` (never `self`), advancing `state`.
inline constexpr std::int64_t allToAllPeer(std::uint64_t& state, std::int64_t self) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  const auto others = static_cast<std::uint64_t>(kAllToAllActors - 1);
  return (self + 1 + static_cast<std::int64_t>(state % others)) % kAllToAllActors;
}

/// parallel/pipeline/<n>: a source sends kPipelineMessages messages (the
/// k-th carries k) at once into the first of kPipelineStages stages; stage s
/// turns v into pipelineStep(v, s) and passes it on; the last one counts the
/// messages and sums their values, checked against pipelineExpectedSum().
inline constexpr std::int64_t kPipelineStages = 8;
inline constexpr std::int64_t kPipelineMessages = 10'000;
inline constexpr std::uint64_t pipelineStep(std::uint64_t v, std::int64_t stage) {
  return work(v + static_cast<std::uint64_t>(stage));
}
inline std::uint64_t pipelineExpectedSum() {
  std::uint64_t sum = 0;
  for (std::int64_t k = 0; k < kPipelineMessages; ++k) {
    std::uint64_t v = static_cast<std::uint64_t>(k);
    for (std::int64_t s = 0; s < kPipelineStages; ++s) v = pipelineStep(v, s);
    sum += v;
  }
  return sum;
}

/// parallel/skew/<n> (ours only): kSkewActors actors, all spawned on
/// isolate 0, each handling kSkewJobs jobs a round told from the
/// benchmark's thread; a job is kSkewChain calls of work() in a row, a few
/// microseconds.
inline constexpr std::int64_t kSkewActors = 16;
inline constexpr std::int64_t kSkewJobs = 200;
inline constexpr int kSkewChain = 50;

/// The workloads, in the order the rows run and the table lists them. The
/// last, skew (busy actors all spawned on isolate 0: bench/parallel/Skew.cpp),
/// is ours only: the CAF arm has no placement to skew.
inline constexpr const char* kParallelWorkloads[] = {
    "pairs", "forkjoin", "ring-one", "ring-many", "all-to-all", "pipeline", "skew"};
inline constexpr const char* kParallelFamily = "parallel/";
inline std::string parallelRow(std::string_view workload, std::size_t isolates) {
  return std::string(kParallelFamily) + std::string(workload) + "/" + std::to_string(isolates);
}

/// placement/<workload>/run-<k> (ours only): the workload on N isolates with
/// every actor, the pairs' too, placed by the system's default rule, top-level
/// actors `k` at a time (ActorSystemOptions::withPlacementRun). The runs
/// measured; the rows compare them to choose the default.
inline constexpr std::size_t kPlacementRuns[] = {1, 2, 4, 8, 16, 64};
inline constexpr const char* kPlacementFamily = "placement/";
inline std::string placementRow(std::string_view workload, std::size_t run) {
  return std::string(kPlacementFamily) + std::string(workload) + "/run-" + std::to_string(run);
}

/// balanced/<workload>/<n> (ours only): the workload on n isolates with the
/// balancer on (ActorSystemOptions::withBalancer), timed once it has had
/// time to move the actors (bench/parallel/ParallelRow.hpp). Beside them,
/// balanced/pairs-rr/<n> (the pairs placed round-robin) and
/// balanced/converge/ring (bench/parallel/Converge.cpp).
inline constexpr const char* kBalancedFamily = "balanced/";
inline std::string balancedRow(std::string_view workload, std::size_t isolates) {
  return std::string(kBalancedFamily) + std::string(workload) + "/" + std::to_string(isolates);
}

// ---- routers: router/<logic> and pool/cpu/<n> ---------------------------------------------

/// router/<logic>: one actor tells kRoutedMessages one-int messages at once
/// to kRoutees actors on its own isolate (CAF: its one thread), all handled:
/// picking them in turn itself (router/direct, the floor of a routed tell),
/// or through a pool of kRoutees routees of the row's logic (ours:
/// coreactor/Router.hpp; CAF: caf::actor_pool). router/broadcast sends each
/// message to every routee.
inline constexpr std::int64_t kRoutedMessages = 10'000;
inline constexpr std::int64_t kRoutees = 4;
static_assert(kRoutedMessages % kRoutees == 0, "router/direct gives each actor the same share");
inline constexpr const char* kRouterFamily = "router/";
inline std::string routerRow(std::string_view logic) {
  return std::string(kRouterFamily) + std::string(logic);
}

/// pool/cpu/<n>: an actor hands kPoolCpuJobs jobs at once to a round-robin
/// pool of one routee per isolate (CAF: n routees on n threads), n of
/// kPoolCpuIsolates; a job is a fork-join item (job i: work(i)), each
/// routee sums its results, and the sum is checked against
/// poolCpuExpectedSum(), computed off the clock.
inline constexpr std::int64_t kPoolCpuJobs = kForkJoinItems;
inline constexpr std::size_t kPoolCpuIsolates[] = {1, 2};
inline std::uint64_t poolCpuExpectedSum() {
  return forkJoinExpectedSum();  // the same items
}
inline constexpr const char* kPoolCpuFamily = "pool/cpu/";
inline std::string poolCpuRow(std::size_t isolates) {
  return std::string(kPoolCpuFamily) + std::to_string(isolates);
}
/// pool/cpu-floor/<n>: the pool's jobs computed by n plain threads, each
/// a contiguous share, with no actor, message or queue: how much faster two
/// threads do this work than one on this machine in this run, the ceiling
/// of pool/cpu's speedup (n of kPoolCpuIsolates).
inline constexpr const char* kCpuFloorFamily = "pool/cpu-floor/";
inline std::string cpuFloorRow(std::size_t threads) {
  return std::string(kCpuFloorFamily) + std::to_string(threads);
}

/// The isolate (CAF: thread) counts of the parallel rows: 1 .. N, N the CPUs
/// this process may run on (its affinity mask; at least 2, so that there is
/// a speedup to read; past 8, powers of two and N). Both arms call it, in
/// processes with the same mask, and so register the same rows.
inline std::vector<std::size_t> parallelCounts() {
  std::size_t cpus = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = static_cast<std::size_t>(CPU_COUNT(&set));
  const std::size_t most = cpus < 2 ? 2 : cpus;
  std::vector<std::size_t> counts;
  for (std::size_t n = 1; n <= most; n = n < 8 ? n + 1 : 2 * n) counts.push_back(n);
  if (counts.back() != most) counts.push_back(most);
  return counts;
}

/// The row of ours that a CAF row is set beside: the same name, but for
/// kAskNoDeadlineRow.
inline std::string ourCounterpart(const std::string& cafRow) {
  return cafRow == kAskNoDeadlineRow ? std::string(kAskOneAtATimeRow) : cafRow;
}

}  // namespace coreactor::bench::workloads
