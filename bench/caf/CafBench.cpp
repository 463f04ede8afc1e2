// bench/caf/CafBench.cpp — coreactor-bench-caf, the CAF arm: the actor and
// parallel rows of coreactor-bench, and its ask rows across threads, run on
// CAF 0.17 (Debian's libcaf-dev), with the same sizes
// (bench/harness/Workloads.hpp), the same completion checks
// (bench/harness/BenchSupport.hpp, ParallelTallies.hpp, MemoryProbe.hpp) and
// the same repetitions (bench/harness/RunDefaults.hpp), in a process of its
// own. coreactor-bench runs it as a child and reads its stdout; run alone,
// it prints the same lines:
//   config <key> <value>           how CAF was set up, once at the start
//   sample <row> <counter> <value> one repetition's counter (ns_per_op, ...)
//   failed <row> <reason>          the row failed its completion check or threw
//   rows <n>                       how many rows ran, at the end
// Progress goes to stderr. Exit status: 0 every row completed, 1 a row
// failed, 2 bad command line.
//
// The rows, a file each, named as our arm's (bench/actor/, bench/isolates/,
// bench/parallel/), in the order they run:
//   actor/tell/<N>                        Tell.cpp
//   actor/pingpong/<N>                    PingPong.cpp
//   actor/ask/*, isolates/ask/*           Ask.cpp
//   actor/spawn/<N>                       Spawn.cpp (the spawner: Spawner.hpp)
//   actor/memory                          Memory.cpp
//   router/direct, router/<logic>         Router.cpp (caf::actor_pool)
//   parallel/<workload>/<n>               Pairs.cpp, ForkJoin.cpp, Ring.cpp,
//                                         AllToAll.cpp, Pipeline.cpp
//                                         (ParallelRow.hpp)
//   pool/cpu/<n>                          Pool.cpp (caf::actor_pool)
// The system each row runs on: Arm.hpp; the messages: Messages.hpp. Every
// workload is written again against CAF's API, and the arm is built only
// where CAF is: it links CAF and no coreactor library, and shares with our
// arm only header-only pieces of bench/harness/ that include neither.
//
// How CAF is set up, and why (docs/benchmarks.md has the whole story):
//   - scheduler.max-threads = 1: one worker thread runs every actor, as one
//     isolate runs ours. CAF's default (one worker per core) would put the two
//     sides of a ping-pong on two cores and measure its cross-core hand-off
//     against our same-thread send; the per-core figure is the one to compare.
//     The policy stays CAF's default (work stealing), and so does
//     scheduler.max-throughput (unbounded: an actor drains its mailbox).
//   - logging: Debian builds CAF with CAF_LOG_LEVEL QUIET (compiled out); the
//     logger's verbosities are set to quiet besides, so no log thread runs.
//   - actors: CAF's default, event-based (scheduled) actors, spawned with no
//     options; messages are small structs of one int, as ours.
//   - ask: request(...).then(...) with the same 10 s deadline as ours (CAF
//     arms and cancels it on its timer thread). With 10,000 asks in flight
//     (actor/ask/from-actor) CAF 0.17 finds each answer's handler by a linear
//     search (its unordered_flat_map of pending responses is a vector), so
//     that row grows with the fan-out; actor/ask/one-at-a-time, one ask in
//     flight, is the per-ask cost without it. One more row, CAF only, asks
//     one at a time without a deadline (caf::infinite): every ask of ours has
//     one, so it is the comparison most favourable to CAF, and shows what its
//     deadlines cost it.
//   - time: the worker thread takes it, from the first send to the last
//     message's completion, and hands it back (OpMeter::measureTimed). Our arm
//     runs its loop on the benchmark's thread; here the benchmark's thread only
//     sends one message to start a round and waits for the round to finish, and
//     neither wake-up is in the figure.
//   - the parallel rows (parallel/<workload>/<n>: bench/harness/Workloads.hpp) give
//     CAF n scheduler threads (scheduler.max-threads = n), as ours get n
//     isolates, and leave the placement to its work-stealing scheduler. Their
//     rounds are timed and checked as ours (bench/harness/ParallelRound.hpp): from the
//     kick-off on the benchmark's thread to the end of the last part, on the
//     worker that finished it.
//   - completion: each round counts what its actors actually did (messages
//     handled, round trips, answers, starts, stops) and the benchmark thread
//     checks the counts against what was asked, as in our arm. A message that
//     is lost leaves the round unfinished: after kRoundTimeout the row fails
//     and the process exits 1.
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/RunDefaults.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

// ---- the output: lines for coreactor-bench ----------------------------------------------------

/// Prints each repetition's counters as `sample` lines on stdout, a failure
/// as a `failed` line, and one progress line per row on stderr.
class LineReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const std::string name = run.run_name.function_name;
      if (run.error_occurred) {
        if (failed_.insert(name).second) {
          std::printf("failed %s %s\n", name.c_str(), run.error_message.c_str());
          std::fprintf(stderr, "[caf] %-24s FAILED: %s\n", name.c_str(), run.error_message.c_str());
          anyFailed_ = true;
        }
        continue;
      }
      if (run.run_type != Run::RT_Iteration) continue;
      for (const auto& [counter, value] : run.counters) {
        std::printf("sample %s %s %.17g\n", name.c_str(), counter.c_str(), value.value);
      }
      auto figure = run.counters.find(kNsPerOpCounter);
      if (figure == run.counters.end()) figure = run.counters.find(kBytesPerOpCounter);
      if (figure != run.counters.end()) {
        std::fprintf(stderr, "[caf] %-24s %9.2f %s (repetition %lld)\n", name.c_str(),
                     figure->second.value, figure->first == kNsPerOpCounter ? "ns/op" : "B/actor",
                     static_cast<long long>(run.repetition_index + 1));
      }
    }
    std::fflush(stdout);
  }
  bool anyFailed() const { return anyFailed_; }

 private:
  std::set<std::string> failed_;  // rows already reported failed
  bool anyFailed_ = false;
};

void registerBenchmarks() {
  registerTellRows();
  registerPingPongRows();
  registerAskRows();
  registerSpawnRows();
  registerMemoryRows();
  registerRouterRows();
  registerPairsRows();
  registerForkJoinRows();
  registerRingRows();
  registerAllToAllRows();
  registerPipelineRows();
  registerPoolRows();
}

void printUsage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: %s [--quick] [--malloc-defaults] [--benchmark_<flag>=<value> ...]\n"
      "\n"
      "The CAF arm of coreactor-bench: the shared actor rows (bench/harness/Workloads.hpp) on\n"
      "CAF %d.%d.%d with one scheduler thread, and parallel/<workload>/<n> and\n"
      "pool/cpu/<n> with n.\n"
      "coreactor-bench runs it and reads its stdout: 'config <key> <value>',\n"
      "'sample <row> <counter> <value>' per repetition, 'failed <row> <reason>', and\n"
      "'rows <n>' at the end.\n"
      "\n"
      "  --quick        %d repetitions of %s s instead of %d of %s s\n"
      "  --malloc-defaults  keep glibc's start-up malloc thresholds\n"
      "  --help, -h     this text\n"
      "  --benchmark_*  passed to Google Benchmark (--benchmark_filter=<regex>, ...)\n"
      "\n"
      "Exit status: 0 every row completed (none matching a filter included),\n"
      "1 a row failed its completion check, 2 bad command line.\n",
      kProgram, CAF_MAJOR_VERSION, CAF_MINOR_VERSION, CAF_PATCH_VERSION, kQuick.repetitions,
      kQuick.minTime, kFull.repetitions, kFull.minTime);
}

/// How CAF is set up, read back from a system made with the benchmarks' config.
void printConfig() {
  BenchConfig config;
  caf::actor_system system{config};
  std::printf("config caf-version %d.%d.%d\n", CAF_MAJOR_VERSION, CAF_MINOR_VERSION,
              CAF_PATCH_VERSION);
  std::printf("config scheduler.policy %s\n",
              caf::to_string(caf::get_or(system.config(), "scheduler.policy",
                                         caf::defaults::scheduler::policy))
                  .c_str());
  std::printf("config scheduler.max-threads %zu\n", system.scheduler().num_workers());
  std::printf("config scheduler.max-throughput %zu\n", system.scheduler().max_throughput());
  const std::vector<std::size_t> counts = workloads::parallelCounts();
  std::printf("config parallel/*.scheduler.max-threads %zu..%zu\n", counts.front(), counts.back());
  std::printf("config logging compiled-out\n");
  std::printf("config actors event-based\n");
}

int run(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == kMemoryProbeFlag) return runMemoryProbe();
  bool quick = false;
  bool mallocDefaults = false;
  std::vector<std::string> passThrough;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--malloc-defaults") {
      mallocDefaults = true;
    } else if (arg == "--help" || arg == "-h") {
      printUsage(stdout);
      return 0;
    } else if (arg.starts_with("--benchmark_")) {
      passThrough.emplace_back(arg);
    } else {
      std::fprintf(stderr, "%s: unknown flag '%s'\n\n", kProgram, argv[i]);
      printUsage(stderr);
      return 2;
    }
  }
  if (!mallocDefaults) pinMallocThresholds();
  std::vector<std::string> args = benchmarkArguments(argv[0], quick ? kQuick : kFull, passThrough);
  if (!initializeBenchmark(args)) {
    std::fprintf(stderr, "\n");
    printUsage(stderr);
    return 2;
  }

  printConfig();
  registerBenchmarks();
  LineReporter reporter;
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::printf("rows %zu\n", ran);
  return reporter.anyFailed() ? 1 : 0;
}

}  // namespace
}  // namespace coreactor::bench::cafarm

int main(int argc, char** argv) {
  return coreactor::bench::cafarm::run(argc, argv);
}
