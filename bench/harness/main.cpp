// Over 600 lines on purpose: one program, whose command line, run and
// tables read the same results and share their formatting.
// bench/harness/main.cpp — coreactor-bench, coreactor's "main job": runs every
// dispatch benchmark (bench/dispatch/), every actor benchmark (bench/actor/),
// the scheduler's (bench/schedule/), the cross-isolate ones with their floors
// (bench/isolates/), the parallel workloads on 1 .. N isolates
// (bench/parallel/) and the metrics' (bench/metrics/), then the CAF arm
// (coreactor-bench-caf, a process of its own: bench/harness/CafArm.hpp) on the
// actor and parallel rows both arms share (bench/harness/Workloads.hpp), and
// prints what one op costs, coreactor against CAF, and whether the design's
// targets hold, all from the same run. Every row goes to a JSON file too, and the charts are
// drawn next to it.
//
// Reading the output. While it runs, stderr gets the machine context and one
// line per benchmark as it completes (the CAF arm's lines start "[caf]"). At
// the end stdout gets one table:
//   - each figure: the median, over the repetitions, of the benchmark's own
//     counter: ns per op (time over ops that actually ran); bytes per idle
//     actor for actor/memory; microseconds of lateness for lateness/*; the
//     median ns of one ask for isolates/ask/foreign; % of one core for
//     isolates/idle-cpu;
//   - coreactor against CAF: each shared row's two medians and their ratio,
//     coreactor / CAF (below 1: we are faster);
//   - the parallel workloads: for each, the figure at each isolate count in
//     both arms, the speedup over one isolate (one CAF thread) and the
//     workload's target;
//   - the balanced rows (ours only: bench/harness/BalancedTable.hpp): each
//     workload with the balancer on, its speedups and the balancer's moves;
//   - the targets, each marked "met" or "MISSED by X%" (how far above the
//     target the figure is). A ratio is computed from two medians of this same
//     run (never against a figure from another run or machine); an absolute
//     bound (the actor targets, in ns or bytes) is stated for this kind of
//     machine only, so those are listed apart;
//   - the TypeScript seeds' published figures beside ours, and the peers'
//     figures measured earlier on this kind of machine (quoted, not re-run);
//   - where the JSON file and the charts were written.
// A ratio is only as good as the run: on a busy machine (a parallel build) the
// benchmarks, run one after the other, catch different shares of the noise.
// Rerun on a quiet machine before trusting a miss, or pass
// --benchmark_enable_random_interleaving=true to shuffle the repetitions of
// all benchmarks so that they share it (progress lines then bunch up at the end).
//
// Exit status: 0 when every benchmark completed, targets missed or not (a miss
// is a finding, not a broken run), with or without the CAF arm; 1 when a
// benchmark of either arm failed its completion check or threw, the CAF arm
// could not run to its end, or the JSON file could not be written; 2 for a bad
// command line (an unknown flag, a filter that matches no workload,
// --require-caf without the CAF arm).
// Its length is the summary: every target and table the run prints.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "actor/ActorBench.hpp"
#include "dispatch/DispatchBench.hpp"
#include "harness/BalancedTable.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/CafArm.hpp"
#include "harness/Charts.hpp"
#include "harness/ChildProcess.hpp"
#include "harness/JsonReport.hpp"
#include "harness/MemoryProbe.hpp"
#include "harness/Results.hpp"
#include "harness/RunDefaults.hpp"
#include "harness/Workloads.hpp"
#include "isolates/IsolatesBench.hpp"
#include "metrics/MetricsBench.hpp"
#include "parallel/ParallelBench.hpp"
#include "schedule/ScheduleBench.hpp"

namespace coreactor::bench {
namespace {

constexpr const char* kProgram = "coreactor-bench";
/// The JSON file's name when --json is not given: next to this executable.
constexpr const char* kDefaultJson = "bench-results.json";

void printUsage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: %s [--quick] [--filter <regex>] [--json <file>] [--no-caf | --require-caf]\n"
      "       %*s [--malloc-defaults] [--benchmark_<flag>=<value> ...]\n"
      "\n"
      "Runs coreactor's dispatch benchmarks (floor/*, hop/*, volley/*, */backlog/*,\n"
      "lateness/*), actor benchmarks (actor/tell/*, actor/pingpong/*, actor/ask/*,\n"
      "actor/spawn/*, actor/memory, router/*), scheduler benchmarks (schedule/*) and\n"
      "cross-isolate benchmarks with their two-thread floors (isolates/*, floor/spsc-bulk,\n"
      "floor/busy-poll-rtt, floor/eventfd-rtt) and parallel workloads on 1..N isolates\n"
      "(parallel/*, pool/cpu/*), then the same actor, router and parallel rows on CAF 0.17\n"
      "(%s, next to this program, in its own process), and prints on stdout each\n"
      "figure (median over repetitions: ns per op, bytes per idle actor, us of timer\n"
      "lateness, ns of a median ask, %% of a core), coreactor against CAF with their\n"
      "ratio, and the targets. Progress goes to stderr.\n"
      "\n"
      "  --quick            %d repetitions of --benchmark_min_time=%s (about 22 s, and\n"
      "                     about 20 s more for the CAF arm) instead of %d of %s\n"
      "                     (about two minutes, and three quarters of a minute more for CAF)\n"
      "  --filter <regex>   run only the rows whose name matches (both arms): say\n"
      "                     --filter 'actor/', --filter 'volley|lateness' or\n"
      "                     --filter 'actor/tell/1000$'; a filter that matches no row\n"
      "                     is an error (exit 2)\n"
      "  --json <file>      where every row goes as JSON (default: %s next to\n"
      "                     this program); the charts are drawn next to it:\n"
      "                     volley-vs-lateness.png, coreactor-vs-caf.png,\n"
      "                     coreactor-vs-caf-memory.png, isolate-scaling.png,\n"
      "                     parallel-speedup.png\n"
      "                     (gnuplot; skipped without it)\n"
      "  --no-caf           do not run the CAF arm\n"
      "  --require-caf      fail (exit 2), before running anything, unless the CAF arm\n"
      "                     is there (built: libcaf-dev found at build time); by default\n"
      "                     a build without it runs our arm and says \"CAF arm skipped\"\n"
      "  --malloc-defaults  keep glibc's start-up malloc thresholds in both arms (by\n"
      "                     default both pin them, so that no row depends on which\n"
      "                     rows ran before it): what a program that never calls\n"
      "                     mallopt gets\n"
      "  --help, -h         this text\n"
      "  --benchmark_*      passed to Google Benchmark in both arms, after (so over) the\n"
      "                     defaults: --benchmark_repetitions=<n>  --benchmark_min_time=<s>\n"
      "                     --benchmark_min_warmup_time=<s>  --benchmark_list_tests=true\n"
      "                     --benchmark_enable_random_interleaving=true (on a busy machine,\n"
      "                     spreads its noise over all benchmarks: fairer ratios)\n"
      "                     Ours only: --benchmark_out=<file> --benchmark_out_format=...\n"
      "                     (--benchmark_format is ignored: the table is this program's)\n"
      "\n"
      "Exit status: 0 every benchmark completed (missed targets included, CAF arm\n"
      "skipped included), 1 a benchmark failed its completion check or the CAF arm\n"
      "failed, 2 bad command line (unknown flag, no row matching --filter,\n"
      "--require-caf without the CAF arm).\n",
      kProgram, static_cast<int>(std::string_view(kProgram).size()), "", kCafProgram,
      kQuick.repetitions, kQuick.minTime, kFull.repetitions, kFull.minTime, kDefaultJson);
}

/// A bad command line: the reason, then the usage, on stderr. Returns 2.
int badCommandLine(const std::string& reason) {
  std::fprintf(stderr, "%s: %s\n\n", kProgram, reason.c_str());
  printUsage(stderr);
  return 2;
}

// ---- collecting our arm's figures -----------------------------------------------

/// Collects each benchmark's figure counter over its repetitions into
/// `results`, and shows one progress line per benchmark on stderr.
class MedianReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit MedianReporter(RunResults& results) : results_(&results) {}

  bool ReportContext(const Context& context) override {
    PrintBasicContext(&GetErrorStream(), context);
    results_->cpus = context.cpu_info.num_cpus;
    if (!context.cpu_info.load_avg.empty()) {
      results_->loadAverage = context.cpu_info.load_avg.front();
    }
    return true;
  }

  // Called once with a benchmark's repetitions and once more with their
  // aggregates (mean, median, ...): only the repetitions are used, unless
  // --benchmark_display_aggregates_only left nothing else.
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<std::string> touched;
    for (const Run& run : runs) {
      const std::string name = nameOf(run);
      Figure& figure = results_->ours.figureFor(name);
      if (std::find(touched.begin(), touched.end(), name) == touched.end()) {
        touched.push_back(name);
      }
      if (run.error_occurred) {
        if (figure.error.empty()) figure.error = run.error_message;
        continue;
      }
      std::map<std::string, double> counters;
      for (const auto& [counter, value] : run.counters) counters[counter] = value.value;
      if (run.run_type == Run::RT_Iteration) {
        figure.addRepetition(counters);
      } else if (run.aggregate_name == "median") {
        for (const auto& [counter, value] : counters) {
          if (const char* unit = unitOfCounter(counter)) {
            figure.unit = unit;
            figure.reportedMedian = value;
          }
        }
      }
    }
    for (const std::string& name : touched) progress(name);
  }

 private:
  static std::string nameOf(const Run& run) {
    // The function name is the one we registered ("hop/hybrid"); the rest of
    // Google Benchmark's name ("/manual_time", "/repeats:5") is not ours.
    return run.run_name.args.empty() ? run.run_name.function_name
                                     : run.run_name.function_name + "/" + run.run_name.args;
  }

  void progress(const std::string& name) {
    const Figure& figure = *results_->ours.find(name);
    if (std::find(shown_.begin(), shown_.end(), name) != shown_.end()) return;
    char line[256];
    if (figure.failed()) {
      std::snprintf(line, sizeof line, "[%2zu] %-24s FAILED: %s\n", shown_.size() + 1, name.c_str(),
                    figure.error.c_str());
    } else if (const std::optional<double> median = figure.median()) {
      if (figure.samples.empty()) {
        std::snprintf(line, sizeof line, "[%2zu] %-24s %9.2f %s  (reported median)\n",
                      shown_.size() + 1, name.c_str(), *median, figure.unit);
      } else {
        const auto [low, high] = std::minmax_element(figure.samples.begin(), figure.samples.end());
        std::snprintf(line, sizeof line,
                      "[%2zu] %-24s %9.2f %s  (median of %zu, range %.2f .. %.2f)\n",
                      shown_.size() + 1, name.c_str(), *median, figure.unit, figure.samples.size(),
                      *low, *high);
      }
    } else {
      return;  // nothing usable yet: wait for the aggregates
    }
    shown_.push_back(name);
    GetErrorStream() << line << std::flush;
  }

  RunResults* results_;
  std::vector<std::string> shown_;  // progress lines printed
};

// ---- the table ------------------------------------------------------------------

// This file is compiled with the library's build type: a proxy for how the
// library under test was built. (Google Benchmark's own "Library was built as
// DEBUG" warning on stderr is about Debian's libbenchmark, not coreactor.)
#ifdef NDEBUG
constexpr bool kOptimisedBuild = true;
#else
constexpr bool kOptimisedBuild = false;
#endif

/// Peers' figures, measured earlier on this kind of machine and quoted here,
/// beside the figure of ours that does the same work.
struct PeerRow {
  const char* label;
  const char* caf;         // CAF 0.17, single-threaded scheduler
  const char* typeScript;  // the TypeScript original
  const char* ours;        // our benchmark doing that work
  const char* note;
};
constexpr PeerRow kPeers[] = {
    {"tell, per message", "~130-160 ns", "~126 ns", "actor/tell/10000", ""},
    {"ping-pong, per exchange", "~800 ns", "~720 ns", "actor/pingpong/10000", ""},
    {"ask, per round trip", "~780 ns", "~2.5 us", "actor/ask/from-actor", ""},
    {"spawn, per actor", "~4 us", "~14 us", "actor/spawn/100", " (incl. start and stop)"},
    {"idle actor, memory", "~1.2 KB", "~2.4 KB", "actor/memory", " (RSS)"},
};

/// "12.34 ns", "300 ns", "1.30x": a figure or a bound with its unit.
std::string withUnit(double value, const char* unit) {
  char text[32];
  if (unit[0] == '\0') {
    std::snprintf(text, sizeof text, "%.2fx", value);
  } else if (value >= 100) {
    std::snprintf(text, sizeof text, "%.0f %s", value, unit);
  } else {
    std::snprintf(text, sizeof text, "%.2f %s", value, unit);
  }
  return text;
}

void printTargets(const std::vector<TargetResult>& targets, bool ratios) {
  if (ratios) {
    std::printf("\n  %-40s %10s  %10s  %s\n", "target (ratio of this run's medians)", "ratio",
                "target", "result");
  } else {
    std::printf("\n  %-40s %10s  %10s  %s\n", "target (absolute, this machine kind)", "figure",
                "target", "result");
  }
  for (const TargetResult& result : targets) {
    const Target& target = *result.target;
    if ((target.denominator != nullptr) != ratios) continue;
    char bound[32];
    if (ratios) {
      // 3.0x, 1.5x; 1.43x (1 / 0.7), 1.11x (1 / 0.9)
      const bool tenths = std::abs(target.atMost * 10 - std::round(target.atMost * 10)) < 1e-9;
      std::snprintf(bound, sizeof bound, tenths ? "<= %.1fx" : "<= %.2fx", target.atMost);
    } else {
      std::snprintf(bound, sizeof bound, "<= %g %s", target.atMost, target.unit);
    }
    if (!result.value) {
      std::printf("  %-40s %10s  %10s  %s\n", result.label.c_str(), "-", bound, result.why.c_str());
      continue;
    }
    char verdict[80];
    const char* how = result.paired ? " (paired rounds)" : "";
    if (result.met()) {
      std::snprintf(verdict, sizeof verdict, "met%s", how);
    } else {
      std::snprintf(verdict, sizeof verdict, "MISSED by %.0f%%%s",
                    (*result.value / target.atMost - 1) * 100, how);
    }
    std::printf("  %-40s %10s  %10s  %s\n", result.label.c_str(),
                withUnit(*result.value, target.unit).c_str(), bound, verdict);
  }
}

/// coreactor against CAF on each shared row, or why there is no CAF column.
void printArms(const RunResults& results) {
  const CafArmRun& caf = results.caf;
  std::printf("\n  coreactor against CAF, measured in this run (each arm in its own process)\n");
  if (!caf.ran()) {
    std::printf("  %s\n", caf.message.c_str());
    return;
  }
  // How CAF was set up, as it reported it, wrapped to the table's width.
  std::string line = "  CAF:";
  for (const auto& [key, value] : caf.config) {
    const std::string shown =
        key == "scheduler.max-throughput" && value == "18446744073709551615" ? "unbounded" : value;
    const std::string item = " " + key + " " + shown + ",";
    if (line.size() + item.size() > 92) {
      std::printf("%s\n", line.c_str());
      line = "      ";
    }
    line += item;
  }
  line.pop_back();  // the last comma
  std::printf("%s\n\n", line.c_str());
  std::printf("  %-36s %11s %11s  %13s  %s\n", "row", "coreactor", "CAF", "coreactor/CAF",
              "spread ours / CAF");
  bool anyParallel = false;
  for (const SharedRow& row : sharedRows(results)) {
    // One CAF thread against one isolate here; the parallel rows, n against
    // n, have a table of their own (printParallel).
    if (row.name.starts_with(workloads::kParallelFamily)) {
      anyParallel = true;
      continue;
    }
    const char* unit = std::string_view(row.unit) == "B/actor" ? "B" : "ns";
    const auto figure = [&](const std::optional<double>& value, const ArmFigures& arm,
                            const std::string& name) {
      if (value) return withUnit(*value, unit);
      const Figure* f = arm.find(name);
      return std::string(f == nullptr ? "did not run" : f->failed() ? "FAILED" : "n/a");
    };
    const auto spread = [&](const ArmFigures& arm, const std::string& name) {
      const Figure* f = arm.find(name);
      const std::optional<double> percent = f == nullptr ? std::nullopt : f->spreadPercent();
      char text[16] = "-";
      if (percent) std::snprintf(text, sizeof text, "%.0f%%", *percent);
      return std::string(text);
    };
    char ratio[32] = "-";
    if (row.ratio) std::snprintf(ratio, sizeof ratio, "%.3fx", *row.ratio);
    const std::string ours = workloads::ourCounterpart(row.name);
    std::printf("  %-36s %11s %11s  %13s  %s / %s\n", row.name.c_str(),
                figure(row.ours, results.ours, ours).c_str(),
                figure(row.caf, caf.figures, row.name).c_str(), ratio,
                spread(results.ours, ours).c_str(), spread(caf.figures, row.name).c_str());
  }
  std::printf(
      "  (a ratio below 1: coreactor is faster, or smaller; CAF with one scheduler thread\n"
      "   against one isolate: docs/benchmarks.md says how each arm is set up. CAF arms each\n"
      "   ask's deadline on its timer thread; .../no-deadline is CAF without one, beside our\n"
      "   ask, which always has one)\n");
  if (anyParallel) std::printf("  (parallel/*, n CAF threads against n isolates: below)\n");
  if (results.caf.figures.find(workloads::poolCpuRow(1)) != nullptr) {
    std::printf("  (pool/cpu/<n>: n CAF threads and an actor_pool of n against n isolates)\n");
  }
  for (const std::string& name : caf.figures.order()) {
    const Figure& figure = *caf.figures.find(name);
    if (figure.failed()) std::printf("  CAF %s FAILED: %s\n", name.c_str(), figure.error.c_str());
  }
}

/// The parallel workloads: each one's figure at each isolate count, in both
/// arms, the speedups over one isolate (one CAF thread), ours / CAF, and the
/// workload's target read as a speedup.
void printParallel(const RunResults& results, const std::vector<TargetResult>& targets) {
  bool any = false;
  for (const std::string& name : results.ours.order()) {
    any |= name.starts_with(workloads::kParallelFamily);
  }
  if (!any) return;
  std::printf(
      "\n  parallel workloads: threaded systems of n isolates (CAF: n scheduler threads), the\n"
      "  same work at every n; ns per op over all isolates together, Mops/s, the speedup\n"
      "  (throughput at n / at 1 in the same arm, this run) and, for ours, the messages that\n"
      "  crossed between isolates per op\n\n");
  std::printf("  %-11s %3s %10s %7s %8s %9s  %10s %8s  %13s\n", "workload", "n", "coreactor",
              "Mops/s", "speedup", "crossings", "CAF", "speedup", "coreactor/CAF");
  const auto figure = [](const std::optional<double>& ns, const ArmFigures& arm,
                         const std::string& row) {
    if (ns) return withUnit(*ns, "ns");
    const Figure* f = arm.find(row);
    return std::string(f == nullptr ? "-" : f->failed() ? "FAILED" : "n/a");
  };
  const auto times = [](const std::optional<double>& value, const char* format) {
    char text[32] = "-";
    if (value) std::snprintf(text, sizeof text, format, *value);
    return std::string(text);
  };
  for (const char* workload : workloads::kParallelWorkloads) {
    const std::vector<ParallelPoint> points = parallelPoints(results, workload);
    if (points.empty()) continue;
    bool first = true;
    for (const ParallelPoint& point : points) {
      char mops[16] = "-";
      if (point.ours) std::snprintf(mops, sizeof mops, "%.2f", 1e3 / *point.ours);
      std::printf("  %-11s %3zu %10s %7s %8s %9s  %10s %8s  %13s\n", first ? workload : "",
                  point.isolates, figure(point.ours, results.ours, point.row).c_str(), mops,
                  times(point.oursSpeedup, "%.2fx").c_str(), times(point.crossings, "%.2f").c_str(),
                  figure(point.caf, results.caf.figures, point.row).c_str(),
                  times(point.cafSpeedup, "%.2fx").c_str(), times(point.ratio, "%.3fx").c_str());
      first = false;
    }
    // The target, read as a speedup: ratio = times / speedup.
    const std::string family = std::string(workloads::kParallelFamily) + workload + "/";
    for (const TargetResult& result : targets) {
      if (family != result.target->numerator) continue;
      const double wanted = result.times / result.target->atMost;
      char bound[64];
      if (result.target->timesLargest) {
        std::snprintf(bound, sizeof bound, "speedup >= 0.8 x %.0f = %.2fx", result.times, wanted);
      } else {
        std::snprintf(bound, sizeof bound, "speedup >= %.2fx", wanted);
      }
      std::string verdict;
      if (!result.value) {
        verdict = result.why;
      } else {
        char text[64];
        const double speedup = result.times / *result.value;
        if (result.met()) {
          std::snprintf(text, sizeof text, "%.2fx: met", speedup);
        } else {
          std::snprintf(text, sizeof text, "%.2fx: MISSED by %.0f%%", speedup,
                        (*result.value / result.target->atMost - 1) * 100);
        }
        verdict = text;
      }
      const std::string at = result.numerator.substr(family.size());
      std::printf("  %-11s target at %s isolates: %s; %s\n", "", at.empty() ? "N" : at.c_str(),
                  bound, verdict.c_str());
    }
  }
  std::printf(
      "  (coreactor/CAF below 1: coreactor is faster; our actors are placed as a user's are,\n"
      "   by the default spread over the isolates, but for the pairs, pair k on isolate k mod "
      "n)\n");
}

void printTable(const RunResults& results, const std::vector<TargetResult>& targets) {
  std::printf("\ncoreactor benchmarks: medians over repetitions, ns per op (bytes for memory)\n");
  // A busy machine (a parallel build) skews the ratios: say how busy it was.
  std::printf(
      "  %d CPUs, load average %.2f when the run began; coreactor built %s\n", results.cpus,
      results.loadAverage.value_or(0.0),
      kOptimisedBuild ? "with NDEBUG (release)" : "WITHOUT NDEBUG: figures are not representative");
  std::printf(
      "  malloc thresholds pinned: mmap %d MiB, trim %d MiB "
      "(bench/harness/BenchSupport.hpp says why)\n\n",
      kMmapThreshold >> 20, kTrimThreshold >> 20);
  std::printf("  %-24s %10s %-7s %4s  %6s  %s\n", "benchmark", "figure", "", "reps", "spread",
              "one op is");
  for (const std::string& name : results.ours.order()) {
    const Figure& figure = *results.ours.find(name);
    if (figure.failed()) {
      std::printf("  %-24s %10s %-7s %4s  %6s  %s\n", name.c_str(), "FAILED", "", "", "",
                  figure.error.c_str());
    } else if (const std::optional<double> median = figure.median()) {
      char spread[16] = "-";
      if (const std::optional<double> percent = figure.spreadPercent()) {
        std::snprintf(spread, sizeof spread, "%.0f%%", *percent);
      }
      std::printf("  %-24s %10.2f %-7s %4s  %6s  %s\n", name.c_str(), *median, figure.unit,
                  figure.repetitions().c_str(), spread, describeOp(name).c_str());
    } else {
      std::printf("  %-24s %10s %-7s %4s  %6s  %s\n", name.c_str(), "n/a", "", "", "",
                  describeOp(name).c_str());
    }
  }
  std::printf("  (spread: (max - min) / median over the repetitions)\n");
  if (const Figure* memory = results.ours.find("actor/memory"); memory != nullptr) {
    const std::optional<double> system = memory->extraMedian(kSystemBytesCounter);
    const std::optional<double> systemHeap = memory->extraMedian(kSystemHeapBytesCounter);
    const std::optional<double> heap = memory->extraMedian(kHeapBytesPerOpCounter);
    if (system && systemHeap && heap) {
      std::printf(
          "  actor/memory, apart: the empty system itself %.0f KiB RSS after create (%.0f KiB\n"
          "  of it malloc'd, the rest code paged in); malloc's bytes in use per idle actor\n"
          "  %.0f B (a cross-check that counts no pages)\n",
          *system / 1024, *systemHeap / 1024, *heap);
    }
  }
  for (const char* name : {"schedule/lateness/idle", "schedule/lateness/volley"}) {
    const Figure* late = results.ours.find(name);
    if (late == nullptr) continue;
    const std::optional<double> p50 = late->median();
    const std::optional<double> p99 = late->extraMedian(kLateUsP99Counter);
    const std::optional<double> u50 = late->extraMedian(kLateUnitsP50Counter);
    const std::optional<double> u99 = late->extraMedian(kLateUnitsP99Counter);
    if (p50 && p99 && u50 && u99) {
      std::printf(
          "  %s, apart: p50 %.3f ms, p99 %.3f ms; in dispatcher units of the volley\n"
          "  between due and fire: p50 %.0f, p99 %.0f (lateness x the volley's unit rate)\n",
          name, *p50 / 1000, *p99 / 1000, *u50, *u99);
    }
  }
  if (results.ours.find("actor/ask/from-driver") != nullptr) {
    std::printf(
        "  (*) ActorSystem::ask with a callback from the driving thread, the loop thread in\n"
        "      manual mode: the same-isolate path (reply slot, timer, tell, reply) without the\n"
        "      continuation hop back into an asking actor. The ask target is stated for\n"
        "      actor/ask/from-actor.\n");
  }
  bool anyLateness = false;
  for (const std::string& name : results.ours.order()) anyLateness |= name.starts_with("lateness/");
  if (anyLateness) {
    std::printf(
        "  lateness/*: how late a 100 us repeating timer fires while a volley keeps the isolate\n"
        "      busy; a dispatcher that never yields (microtask) lets it fire only after the\n"
        "      whole volley, capped at 1M round trips (bench/dispatch/Lateness.cpp)\n");
  }

  if (const Figure* ask = results.ours.find("isolates/ask/foreign"); ask != nullptr) {
    const std::optional<double> p50 = ask->median();
    const std::optional<double> p99 = ask->extraMedian(kP99NsCounter);
    if (p50 && p99) {
      std::printf("  isolates/ask/foreign, apart: p50 %.1f us, p99 %.1f us of one ask\n",
                  *p50 / 1000, *p99 / 1000);
    }
  }
  for (const std::string& name : results.ours.order()) {
    if (!name.starts_with(kMoveFamily)) continue;
    const Figure& move = *results.ours.find(name);
    const std::optional<double> p50 = move.median();
    const std::optional<double> p99 = move.extraMedian(kP99NsCounter);
    const std::optional<double> back50 = move.extraMedian(kReturnP50Counter);
    const std::optional<double> back99 = move.extraMedian(kReturnP99Counter);
    if (!p50 || !p99 || !back50 || !back99) continue;
    std::printf("  %s, apart: p50 %.1f us, p99 %.1f us of one move", name.c_str(), *p50 / 1000,
                *p99 / 1000);
    if (const std::optional<double> ratio = move.extraMedian(kP99OverAskCounter)) {
      std::printf(", p99 / p99 of %s %.2fx", workloads::kCrossAskRow, *ratio);
    }
    std::printf(
        "\n      (the moves back, called from the isolate it moves to: p50 %.1f us, p99 %.1f us)\n",
        *back50 / 1000, *back99 / 1000);
    if (const std::optional<double> after = move.extraMedian(kProbesAfterMoveCounter)) {
      std::printf("      a message told right after the call handled behind the move: %.0f%%",
                  *after);
      if (const std::optional<double> moved = move.extraMedian(kQueuedMovedCounter)) {
        std::printf("; queued messages that went with it: %.0f%%", *moved);
      }
      std::printf("\n");
    }
  }
  if (const Figure* busy = results.ours.find("isolates/pingpong/loaded"); busy != nullptr) {
    if (const std::optional<double> load = busy->extraMedian(kLoadPerRoundTripCounter)) {
      std::printf(
          "  isolates/pingpong/loaded, apart: each isolate's load handled %.0f messages per round\n"
          "      trip (a loop looks at its rings between units: docs/isolates.md)\n",
          *load);
    }
  }
  bool anyCross = false;
  for (const std::string& name : results.ours.order()) {
    anyCross |= name.starts_with("isolates/") || name == "floor/spsc-bulk" ||
                name == "floor/busy-poll-rtt" || name == "floor/eventfd-rtt";
  }
  if (anyCross) {
    std::printf("  isolates/* and their floors: %s\n",
                crossThreadsPinned()
                    ? "each side (thread or isolate) pinned to its own CPU"
                    : "NOT pinned: one CPU for this process, the two sides time-share it");
  }

  printArms(results);
  printParallel(results, targets);
  printBalanced(results);
  printTargets(targets, /*ratios=*/true);
  printTargets(targets, /*ratios=*/false);

  // The seeds' dispatchers page (the TypeScript original): "setImmediate
  // costs about 2.4 µs", a volley round trip "8.1 µs" under Immediate, and
  // microtasks made "the same volley ... almost four times faster".
  std::printf("\n  %-40s %14s  %14s\n", "the seeds' claim beside ours", "TypeScript", "coreactor");
  std::string why;
  if (const std::optional<double> hop = medianOf(results.ours, "hop/immediate", why)) {
    std::printf("  %-40s %14s  %11.1f ns  (%.0fx cheaper)\n", "macrotask hop (setImmediate)",
                "~2400 ns", *hop, 2400.0 / *hop);
  } else {
    std::printf("  %-40s %14s  %s\n", "macrotask hop (setImmediate)", "~2400 ns", why.c_str());
  }
  if (const std::optional<double> trip = medianOf(results.ours, "volley/immediate", why)) {
    std::printf("  %-40s %14s  %11.1f ns  (%.0fx cheaper)\n", "immediate volley round trip",
                "~8100 ns", *trip, 8100.0 / *trip);
  } else {
    std::printf("  %-40s %14s  %s\n", "immediate volley round trip", "~8100 ns", why.c_str());
  }
  const std::optional<double> slow = medianOf(results.ours, "volley/immediate", why);
  const std::optional<double> fast =
      slow ? medianOf(results.ours, "volley/microtask", why) : std::nullopt;
  if (slow && fast) {
    std::printf("  %-40s %14s  %13.2fx\n", "immediate volley / microtask volley", "~4x",
                *slow / *fast);
  } else {
    std::printf("  %-40s %14s  %s\n", "immediate volley / microtask volley", "~4x", why.c_str());
  }

  // Measured earlier on this kind of machine (CAF 0.17 with its
  // single-threaded scheduler; the TypeScript original on Node), not re-run
  // here: compare orders of magnitude, not percentages. CAF's figures of this
  // run are in the table above.
  std::printf("\n  %-40s %14s  %14s  %s\n", "peers (quoted, not measured in this run)", "CAF 0.17",
              "TypeScript", "coreactor (this run)");
  for (const PeerRow& row : kPeers) {
    std::string ours;
    if (const std::optional<double> median = medianOf(results.ours, row.ours, why)) {
      const bool bytes = std::string_view(row.ours) == "actor/memory";
      ours = withUnit(*median, bytes ? "B" : "ns") + "  " + row.ours + row.note;
    } else {
      ours = why;
    }
    std::printf("  %-40s %14s  %14s  %s\n", row.label, row.caf, row.typeScript, ours.c_str());
  }
}

// ---- the command line -------------------------------------------------------------

struct Options {
  bool quick = false;
  std::optional<std::string> filter;
  std::optional<std::string> json;
  bool noCaf = false;
  bool requireCaf = false;
  bool mallocDefaults = false;
  std::vector<std::string> passThrough;  // --benchmark_* flags
};

/// Parses argv into `options`; returns the reason for a bad command line, or
/// "" (and sets `help` for --help).
std::string parseOptions(int argc, char** argv, Options& options, bool& help) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    // --name value or --name=value
    const auto valueOf = [&](std::string_view flag, std::optional<std::string>& into) -> int {
      if (arg == flag) {
        if (i + 1 >= argc) return -1;
        into = argv[++i];
        return 1;
      }
      if (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=') {
        into = std::string(arg.substr(flag.size() + 1));
        return 1;
      }
      return 0;
    };
    int taken = 0;
    if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--help" || arg == "-h") {
      help = true;
    } else if (arg == "--no-caf") {
      options.noCaf = true;
    } else if (arg == "--require-caf") {
      options.requireCaf = true;
    } else if (arg == "--malloc-defaults") {
      options.mallocDefaults = true;
    } else if ((taken = valueOf("--filter", options.filter)) != 0) {
      if (taken < 0 || options.filter->empty()) return "--filter needs a regular expression";
    } else if ((taken = valueOf("--json", options.json)) != 0) {
      if (taken < 0 || options.json->empty()) return "--json needs a file name";
    } else if (arg.starts_with("--benchmark_")) {
      options.passThrough.emplace_back(arg);
    } else {
      return "unknown flag '" + std::string(arg) + "'";
    }
  }
  if (options.noCaf && options.requireCaf)
    return "--no-caf and --require-caf contradict each other";
  return "";
}

/// --filter <regex> as --benchmark_filter: Google Benchmark matches the name
/// with its own suffixes ("actor/tell/1000/manual_time"), so a trailing `$`,
/// meant for the row's name, may be followed by them.
std::string benchmarkFilter(const std::string& filter) {
  if (!filter.ends_with('$') || filter.ends_with("\\$")) return "--benchmark_filter=" + filter;
  return "--benchmark_filter=" + filter.substr(0, filter.size() - 1) +
         "(/(manual_time|iterations:[0-9]+|repeats:[0-9]+|threads:[0-9]+))*$";
}

/// The flags the CAF arm gets: --quick, the filter, and the --benchmark_*
/// flags that make sense in a second process (not the output file: both arms
/// would write it; not the listing: it is ours).
std::vector<std::string> cafArguments(const Options& options) {
  std::vector<std::string> args;
  if (options.quick) args.emplace_back("--quick");
  if (options.mallocDefaults) args.emplace_back("--malloc-defaults");
  for (const std::string& flag : options.passThrough) {
    if (flag.starts_with("--benchmark_out") || flag.starts_with("--benchmark_list_tests") ||
        flag.starts_with("--benchmark_format")) {
      continue;
    }
    args.push_back(flag);
  }
  if (options.filter) args.push_back(benchmarkFilter(*options.filter));
  return args;
}

std::filesystem::path jsonPath(const Options& options) {
  if (options.json) return *options.json;
  const std::string self = ownExecutablePath();
  return self.empty() ? std::filesystem::path(kDefaultJson)
                      : std::filesystem::path(self).parent_path() / kDefaultJson;
}

int run(int argc, char** argv) {
  // actor/memory runs this program again as its child process.
  // It keeps glibc's start-up malloc settings: a fresh process is its point.
  if (argc == 2 && std::string_view(argv[1]) == kMemoryProbeFlag) return runActorMemoryProbe();
  Options options;
  bool help = false;
  if (const std::string bad = parseOptions(argc, argv, options, help); !bad.empty()) {
    return badCommandLine(bad);
  }
  if (!options.mallocDefaults) pinMallocThresholds();
  if (help) {
    printUsage(stdout);
    return 0;
  }
  if (options.requireCaf) {
    if (const CafArmRun arm = cafArmAvailability(); arm.status != CafArmRun::Status::kRan) {
      return badCommandLine("--require-caf: " + arm.message);
    }
  }

  // Our defaults first, so that a --benchmark_* flag given by the user, parsed
  // later, overrides them; --filter last, over a --benchmark_filter.
  std::vector<std::string> args =
      benchmarkArguments(argv[0], options.quick ? kQuick : kFull, options.passThrough);
  if (options.filter) args.push_back(benchmarkFilter(*options.filter));
  if (!initializeBenchmark(args)) {
    std::fprintf(stderr, "\n");
    printUsage(stderr);
    return 2;
  }

  registerDispatchBenchmarks();
  registerActorBenchmarks();
  registerScheduleBenchmarks();
  registerIsolatesBenchmarks(options.quick);
  registerParallelBenchmarks();
  registerMetricsBenchmarks();
  RunResults results;
  results.quick = options.quick;
  results.optimisedBuild = kOptimisedBuild;
  MedianReporter reporter(results);
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  if (ran == 0) {
    return badCommandLine("no workload matches the filter" +
                          (options.filter ? " '" + *options.filter + "'" : std::string()) +
                          "; --benchmark_list_tests=true lists the names");
  }
  if (results.ours.order().empty()) return 0;  // --benchmark_list_tests: nothing ran

  if (options.noCaf) {
    results.caf.status = CafArmRun::Status::kOff;
    results.caf.message = "CAF arm skipped: --no-caf";
  } else {
    results.caf = runCafArm(cafArguments(options));
  }
  if (!results.caf.ran()) std::fprintf(stderr, "%s\n", results.caf.message.c_str());
  // The parallel rows' speedups: each arm's throughput at n over its own at 1.
  addSpeedups(results.ours);
  addSpeedups(results.caf.figures);
  // The moves' p99 over the cross ask's, both of this run.
  addMoveRatios(results.ours);

  const std::vector<TargetResult> targets = evaluateTargets(results.ours);
  printTable(results, targets);

  const std::filesystem::path json = jsonPath(options);
  const std::filesystem::path dir =
      json.has_parent_path() ? json.parent_path() : std::filesystem::path(".");
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  const RunCharts charts = writeRunCharts(results, dir);
  std::string jsonError;
  const bool jsonWritten = writeJsonReport(results, targets, charts.drawn, json, jsonError);

  std::printf("\n  files\n");
  if (jsonWritten) {
    std::printf("  every row as JSON: %s\n", json.c_str());
  } else {
    std::printf("  JSON FAILED: %s\n", jsonError.c_str());
  }
  for (const std::filesystem::path& png : charts.drawn) std::printf("  chart: %s\n", png.c_str());
  for (const std::string& note : charts.notes) std::printf("  %s\n", note.c_str());

  const bool failed = results.ours.anyFailed() || results.caf.failed() || !jsonWritten;
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace coreactor::bench

int main(int argc, char** argv) {
  return coreactor::bench::run(argc, argv);
}
