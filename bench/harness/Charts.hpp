// bench/harness/Charts.hpp — coreactor-bench's charts: PNG files drawn by gnuplot
// (Debian's gnuplot-nox, installed by scripts/bench; the test path does not
// need it), written next to the JSON results.
//
// plotChart is the one way a chart is drawn: a caller describes the chart
// (kind, axes, one row per category or point, one value per series) and gets
// a PNG, plus the gnuplot script beside it (<name>.gp, data inline) to redraw
// or restyle it by hand. The charts of a run are built from its results by
// writeRunCharts; a new chart (throughput against the number of isolates,
// say) is one more function that turns rows into a Chart and calls plotChart.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/Results.hpp"

namespace coreactor::bench {

struct Chart {
  enum class Kind {
    kGroupedBars,     ///< one group of bars per row (labelled on x), one bar per series
    kLabelledPoints,  ///< one point per row at (x, value), labelled with the row's label
    kLines,           ///< x against each series' value, one line per series (x sorted)
  };
  struct Row {
    std::string label;
    double x = 0;                               ///< used by kLabelledPoints and kLines
    std::vector<std::optional<double>> values;  ///< one per series; empty: not measured
  };

  std::string name;  ///< the file's stem: <dir>/<name>.png and <name>.gp
  Kind kind = Kind::kGroupedBars;
  std::string title;
  std::string xLabel;
  std::string yLabel;
  bool logX = false;
  bool logY = false;
  bool integerX = false;   ///< x counts things (isolates): a tick at each integer
  bool yFromZero = false;  ///< a linear y axis starting at 0
  /// kLines: every series but the first is a reference (dashed, no points)
  bool referenceLines = false;
  /// kLines: how series i is drawn, where i < styles.size() (over
  /// referenceLines): dashed without points, or solid with them; in gnuplot
  /// colour `colour` (a linetype's colour; 0: gnuplot's own cycle).
  struct Style {
    bool dashed = false;
    int colour = 0;
  };
  std::vector<Style> styles;
  bool keyOutside = false;  ///< the key right of the plot instead of in its top left
  std::vector<std::string> series;
  std::vector<Row> rows;
};

/// What drawing a chart came to.
struct PlotOutcome {
  bool drawn = false;
  bool gnuplotMissing = false;  ///< gnuplot is not installed: skip the other charts too
  std::filesystem::path png;
  std::string error;
};

/// Writes `chart` as <dir>/<name>.gp and runs gnuplot on it to draw <dir>/<name>.png.
PlotOutcome plotChart(const Chart& chart, const std::filesystem::path& dir);

/// The charts of one run: the PNGs drawn, and a line for each one that was
/// not ("charts skipped: gnuplot not found", a chart whose rows did not run).
struct RunCharts {
  std::vector<std::filesystem::path> drawn;
  std::vector<std::string> notes;
  bool failed = false;  ///< gnuplot was there but failed on a chart
};

/// Draws the run's charts into `dir`: (a) volley-vs-lateness, each
/// dispatcher's volley cost against its timer lateness; (b) coreactor-vs-caf
/// (ns per op) and coreactor-vs-caf-memory (bytes per idle actor); (c)
/// isolate-scaling, aggregate round trips per second against the number of
/// isolates; (d) parallel-speedup, each parallel workload's aggregate
/// throughput against the number of isolates (ours solid, CAF's dashed, by
/// its thread count). A chart whose rows did not run is skipped, and an older
/// file of that name removed.
RunCharts writeRunCharts(const RunResults& results, const std::filesystem::path& dir);

}  // namespace coreactor::bench
