// bench/harness/Results.hpp — what one run of coreactor-bench found, as the table,
// the JSON file and the charts read it: each row's figure in each arm (ours,
// and CAF's for the shared actor rows), the targets checked against them, and
// the run's context.
//
// A figure is the median, over the repetitions, of the benchmark's own
// counter: ns_per_op (time over ops that actually ran), bytes_per_op (memory
// per idle actor) or latency_us (a timer's lateness). Ratios are only ever
// taken between two medians of the same run.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coreactor::bench {

/// The median of `samples` (which must not be empty).
double medianOfSamples(std::vector<double> samples);

/// The unit of a row whose figure is `counter` ("ns/op", "B/actor", "us"), or
/// nullptr if `counter` is a side counter.
const char* unitOfCounter(std::string_view counter);

/// What the harness knows of one row of one arm once it has run.
struct Figure {
  std::vector<double> samples;           // the figure (ns_per_op, ...) of each repetition
  std::optional<double> reportedMedian;  // Google Benchmark's, with aggregates only
  std::string error;                     // the first error a repetition reported
  const char* unit = "ns/op";
  // The row's other counters, per repetition (actor/memory's side figures).
  std::map<std::string, std::vector<double>> extras;

  /// Adds one repetition's counters: the figure's own to `samples` (setting
  /// `unit`), the others to `extras`.
  void addRepetition(const std::map<std::string, double>& counters);

  bool failed() const { return !error.empty(); }
  std::optional<double> median() const;
  std::optional<double> extraMedian(const std::string& counter) const;
  /// (max - min) / median over the repetitions, in percent: how far to trust
  /// the median (and a ratio built on it) on this machine, this run.
  std::optional<double> spreadPercent() const;
  /// How many repetitions the median is over, or "-" when only Google
  /// Benchmark's own median was reported (--benchmark_display_aggregates_only).
  std::string repetitions() const;
};

/// The rows of one arm, in the order they ran.
class ArmFigures {
 public:
  const Figure* find(const std::string& name) const;
  /// The row's figure, added (last in order) if it is new.
  Figure& figureFor(const std::string& name);
  const std::vector<std::string>& order() const { return order_; }
  bool anyFailed() const;

 private:
  std::map<std::string, Figure> figures_;
  std::vector<std::string> order_;
};

/// The CAF arm's part of the run (bench/harness/CafArm.hpp runs it).
struct CafArmRun {
  enum class Status {
    kNotBuilt,  ///< libcaf-dev was not found at build time
    kMissing,   ///< built with CAF, but the executable is not next to ours
    kOff,       ///< --no-caf
    kNoMatch,   ///< ran, but no shared row matched the filter
    kRan,       ///< ran; a row may still have failed (its Figure says so)
    kFailed,    ///< could not run, or ended badly (a crash, a lost round)
  };
  Status status = Status::kOff;
  std::string message;  ///< one line for the table: what happened, why
  std::vector<std::pair<std::string, std::string>> config;  ///< how CAF was set up
  ArmFigures figures;

  bool ran() const { return status == Status::kRan; }
  /// True when the run must end with exit status 1 (a failed row, a failed arm).
  bool failed() const { return status == Status::kFailed || figures.anyFailed(); }
};

/// One run: both arms and the context the figures were taken in.
struct RunResults {
  ArmFigures ours;
  CafArmRun caf;
  bool quick = false;
  int cpus = 0;
  std::optional<double> loadAverage;  ///< 1-minute load average when the run began
  bool optimisedBuild = false;        ///< coreactor-bench built with NDEBUG
};

/// What one op is in row `name`, for the table and the JSON file.
std::string describeOp(std::string_view name);

/// The median of `name` in `arm`, or why there is none (in `why`).
std::optional<double> medianOf(const ArmFigures& arm, const std::string& name, std::string& why);

/// A target: a ratio of two figures of this run (`denominator` set), or an
/// absolute bound on one figure, in `unit` (`denominator` null).
/// With `timesLargest`, `numerator` names a family of rows ("isolates/scaling/"
/// + n): the row of the largest n that ran is the numerator, the ratio is
/// multiplied by that n, and "{n}" in `label` stands for it.
struct Target {
  const char* label;
  const char* numerator;
  const char* denominator;
  double atMost;
  const char* unit = "";
  bool timesLargest = false;
  /// A counter of the numerator's row that holds the ratio measured in
  /// paired rounds (kPairedFloorRatioCounter); read instead of the ratio of
  /// the two medians when the row has it.
  const char* pairedCounter = nullptr;
  /// As timesLargest (the row of the largest n of the family is the
  /// numerator), but the ratio is not multiplied by n: "at N isolates at
  /// least as fast as at one".
  bool largest = false;
};

/// A target checked against this run: `value` is the ratio or the figure, or
/// empty with `why` set. `label` and `numerator` are the target's, resolved
/// (a family's largest row, its n in the label).
struct TargetResult {
  const Target* target;
  std::string label;
  std::string numerator;
  std::optional<double> value;
  std::string why;
  double times = 1;     ///< what the ratio was multiplied by (timesLargest: the n)
  bool paired = false;  ///< value came from paired rounds (Target::pairedCounter)

  bool met() const { return value && *value <= target->atMost; }
};

/// Every target of the design, checked against our arm's figures.
std::vector<TargetResult> evaluateTargets(const ArmFigures& ours);

/// A row both arms ran: our median, CAF's, and ours / CAF's (below 1: we are
/// faster, or smaller). A figure that failed or is missing stays empty. A CAF
/// row with no namesake of ours (its ask without a deadline) is set beside
/// its counterpart's figure (workloads::ourCounterpart).
struct SharedRow {
  std::string name;
  const char* unit;
  std::optional<double> ours;
  std::optional<double> caf;
  std::optional<double> ratio;
};

/// The rows CAF's arm ran, in our order, with our figure beside each.
std::vector<SharedRow> sharedRows(const RunResults& results);

// ---- isolates/move/<queued> -------------------------------------------------------------

/// Sets kP99OverAskCounter (bench/isolates/IsolatesBench.hpp) on every
/// isolates/move/<queued> row of `arm` when isolates/ask/cross ran too:
/// the row's p99 over the ask's, the medians over the repetitions of this run.
void addMoveRatios(ArmFigures& arm);

// ---- parallel/<workload>/<n> ------------------------------------------------------------

/// Beside a parallel row's figure, added after the run (addSpeedups): its
/// throughput over the same arm's 1-isolate (1-thread) row's, from the two
/// medians of this run.
inline constexpr const char* kSpeedupCounter = "speedup";

/// Beside a balanced/<workload>/<n> row's figure (ours only), added after the
/// run: its throughput over balanced/<workload>/1's. Its kSpeedupCounter is
/// over parallel/<workload>/1, as a placement row's.
inline constexpr const char* kBalancedSpeedupCounter = "speedup_vs_balanced_1";

/// Sets kSpeedupCounter on every parallel/<workload>/<n>,
/// placement/<workload>/* and balanced/<workload>/<n> row of `arm` whose
/// parallel/<workload>/1 has a figure: median(<workload>/1) / median(row);
/// and kBalancedSpeedupCounter on the balanced rows (balanced/pairs-rr/<n>
/// counts as a pairs row) when balanced/<workload>/1 has one; and
/// kSpeedupCounter on pool/cpu/<n>, over pool/cpu/1.
void addSpeedups(ArmFigures& arm);

/// One isolate count of a parallel workload, in both arms: ns per op (the
/// median), its speedup over 1, ours / CAF; empty where a row did not run
/// or failed.
struct ParallelPoint {
  std::size_t isolates = 0;
  std::string row;
  std::optional<double> ours;
  std::optional<double> oursSpeedup;
  std::optional<double> crossings;  ///< ours: messages that crossed isolates per op
  std::optional<double> caf;
  std::optional<double> cafSpeedup;
  std::optional<double> ratio;
};

/// The points of parallel/<workload>/<n> that either arm ran, by n.
std::vector<ParallelPoint> parallelPoints(const RunResults& results, std::string_view workload);

}  // namespace coreactor::bench
