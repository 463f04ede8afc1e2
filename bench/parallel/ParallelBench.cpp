// bench/parallel/ParallelBench.cpp — the parallel workloads on threaded systems of
// 1 .. N isolates, as a user runs them: what one op costs over all isolates
// together, and so how the throughput grows with the isolates.
//
// The workloads, a file each, in the order they run (each file says what
// one "op" is in its rows; sizes: bench/harness/Workloads.hpp, shared with
// the CAF arm, bench/caf/, which runs every parallel/* row under the same
// name with n scheduler threads, in files of the same names):
//   parallel/pairs/<n>                              Pairs.cpp
//   parallel/forkjoin/<n>                           ForkJoin.cpp
//   parallel/ring-one/<n>, parallel/ring-many/<n>   Ring.cpp
//   parallel/all-to-all/<n>                         AllToAll.cpp
//   parallel/pipeline/<n>                           Pipeline.cpp
//   parallel/skew/<n> (ours only)                   Skew.cpp
// How a workload becomes its rows: ParallelRow.hpp. Last, pool/cpu/<n>
// (Pool.cpp): fork-join items through a round-robin pool of one routee per
// isolate, on 1 and 2 isolates, timed and checked as the workloads are.
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
// balanced/<workload>/<n>, for n of 1 and N, runs each workload with the
// same placement as parallel/<workload>/<n> on a system with the balancer
// (ActorSystemOptions::withBalancer, a period of 20 ms), timed after 600 ms
// of checked rounds off the clock, when the balancer has moved what it moves
// (ParallelRow.hpp); `moves` beside it counts its moves. Beside them,
// balanced/pairs-rr/<N> (Pairs.cpp: the pairs placed round-robin, so split)
// and balanced/converge/ring (Converge.cpp: a ring placed the worst way, run
// for 2 s; its hops per second in the first and the last tenth of the run,
// against the same ring on one isolate). bench/harness/Results.cpp gives
// each balanced/<workload>/<n> its speedup over parallel/<workload>/1 and
// over balanced/<workload>/1.
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

#include "parallel/Families.hpp"

namespace coreactor::bench {

void registerParallelBenchmarks() {
  parallel::registerPairsRows();
  parallel::registerForkJoinRows();
  parallel::registerRingRows();
  parallel::registerAllToAllRows();
  parallel::registerPipelineRows();
  parallel::registerSkewRows();
  parallel::registerConvergeRow();
  parallel::registerPoolRows();
}

}  // namespace coreactor::bench
