// bench/harness/Charts.cpp — see the header.
#include "harness/Charts.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>

#include "dispatch/DispatchBench.hpp"
#include "harness/ChildProcess.hpp"
#include "harness/Workloads.hpp"
#include "isolates/IsolatesBench.hpp"

namespace coreactor::bench {
namespace {

/// A string as a gnuplot string literal (double quotes, escaped).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string number(std::optional<double> value) {
  if (!value) return "-";  // `set datafile missing "-"`
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", *value);
  return text;
}

std::string script(const Chart& chart, const std::filesystem::path& png) {
  std::ostringstream gp;
  gp << "# Drawn by coreactor-bench (bench/harness/Charts.cpp); run `gnuplot " << chart.name
     << ".gp` to redraw.\n";
  gp << "set terminal pngcairo size 1100,620 noenhanced font \"sans,10\"\n";
  gp << "set output " << quoted(png.string()) << "\n";
  gp << "set title " << quoted(chart.title) << "\n";
  gp << "set xlabel " << quoted(chart.xLabel) << "\n";
  gp << "set ylabel " << quoted(chart.yLabel) << "\n";
  gp << "set datafile missing \"-\"\n";
  gp << "set grid ytics\n";
  gp << (chart.keyOutside ? "set key outside right top\n" : "set key top left\n");
  if (chart.logX) gp << "set logscale x\n";
  if (chart.logY) gp << "set logscale y\n";
  if (chart.integerX) {
    double lowest = 0;
    double highest = 0;
    for (const Chart::Row& row : chart.rows) {
      if (&row == &chart.rows.front() || row.x < lowest) lowest = row.x;
      if (&row == &chart.rows.front() || row.x > highest) highest = row.x;
    }
    // A tick per integer while they fit; half a unit of room on each side.
    if (highest - lowest <= 16) gp << "set xtics 1\n";
    gp << "set xrange [" << number(lowest - 0.5) << ":" << number(highest + 0.5) << "]\n";
  }
  if (chart.yFromZero) gp << "set yrange [0:*]\n";

  std::vector<Chart::Row> rows = chart.rows;
  if (chart.kind == Chart::Kind::kLines) {
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  }
  // Columns: 1 label, 2 x, then one per series.
  gp << "$data << EOD\n";
  for (const Chart::Row& row : rows) {
    gp << quoted(row.label) << " " << number(row.x);
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
      gp << " " << number(i < row.values.size() ? row.values[i] : std::nullopt);
    }
    gp << "\n";
  }
  gp << "EOD\n";

  switch (chart.kind) {
    case Chart::Kind::kGroupedBars:
      gp << "set style data histogram\n"
            "set style histogram clustered gap 1\n"
            "set style fill solid 0.85 border -1\n"
            "set boxwidth 0.9\n"
            "set xtics rotate by -25 nomirror\n"
            "set bmargin 7\n";
      // A linear axis starts at 0, with room above the tallest bar for its
      // value (a log axis ends on the decade above it anyway).
      if (!chart.logY) gp << "set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n";
      gp << "plot ";
      for (std::size_t i = 0; i < chart.series.size(); ++i) {
        gp << (i == 0 ? "$data" : ", ''") << " using " << i + 3 << (i == 0 ? ":xtic(1)" : "")
           << " title " << quoted(chart.series[i]);
      }
      // The value above each bar.
      for (std::size_t i = 0; i < chart.series.size(); ++i) {
        const double shift = (static_cast<double>(i) - (chart.series.size() - 1) / 2.0) /
                             (chart.series.size() + 1.0);
        const std::size_t column = i + 3;
        gp << ", '' using ($0 + " << shift << "):" << column << ":($" << column
           << " >= 100 ? sprintf(\"%.0f\", $" << column << ") : sprintf(\"%.3g\", $" << column
           << ")) with labels offset 0,0.7 font \",8\" notitle";
      }
      gp << "\n";
      break;
    case Chart::Kind::kLabelledPoints:
      gp << "set offsets graph 0.1, graph 0.25, graph 0.1, graph 0.1\n";
      if (chart.series.size() == 1) gp << "unset key\n";
      gp << "plot ";
      for (std::size_t i = 0; i < chart.series.size(); ++i) {
        gp << (i == 0 ? "" : ", ") << "$data using 2:" << i + 3
           << " with points pointtype 7 pointsize 1.6 title " << quoted(chart.series[i])
           << ", '' using 2:" << i + 3 << ":1 with labels offset 1.2,0.8 left notitle";
      }
      gp << "\n";
      break;
    case Chart::Kind::kLines:
      gp << "plot ";
      for (std::size_t i = 0; i < chart.series.size(); ++i) {
        const bool styled = i < chart.styles.size();
        const bool dashed = styled ? chart.styles[i].dashed : chart.referenceLines && i > 0;
        gp << (i == 0 ? "" : ", ") << "$data using 2:" << i + 3
           << (dashed ? " with lines dashtype 2 linewidth 1.5" : " with linespoints pointtype 7");
        if (styled && chart.styles[i].colour > 0) gp << " linecolor " << chart.styles[i].colour;
        gp << " title " << quoted(chart.series[i]);
      }
      // The first series' value beside each of its points.
      if (chart.referenceLines) {
        gp << ", '' using 2:3:(sprintf(\"%.3g\", $3)) with labels offset 0,1 notitle";
      }
      gp << "\n";
      break;
  }
  return gp.str();
}

void removeStale(const std::filesystem::path& dir, const std::string& name) {
  std::error_code ignored;
  std::filesystem::remove(dir / (name + ".png"), ignored);
  std::filesystem::remove(dir / (name + ".gp"), ignored);
}

// ---- the run's charts ------------------------------------------------------------------

constexpr const char* kDispatchers[] = {"microtask", "immediate", "hybrid", "throughput"};

/// (a) Each dispatcher's volley cost against its timer's lateness under that
/// volley: down and to the left is better; a dispatcher cannot be both.
std::optional<Chart> volleyAgainstLateness(const RunResults& results) {
  Chart chart;
  chart.name = "volley-vs-lateness";
  chart.kind = Chart::Kind::kLabelledPoints;
  chart.title =
      "Dispatchers: volley round trip (volley/*) against a 100 us timer's lateness during it "
      "(lateness/*)";
  chart.xLabel = "volley round trip, ns (lower is faster)";
  chart.yLabel = "timer lateness under the volley, us (median; log scale)";
  chart.logY = true;
  chart.series = {"dispatcher"};
  for (const char* dispatcher : kDispatchers) {
    std::string why;
    const std::optional<double> volley =
        medianOf(results.ours, std::string("volley/") + dispatcher, why);
    const std::optional<double> late =
        medianOf(results.ours, std::string("lateness/") + dispatcher, why);
    if (!volley || !late) continue;
    // A probe that fired once a pass was starved: it fired after the capped volley.
    const Figure* lateness = results.ours.find(std::string("lateness/") + dispatcher);
    const std::optional<double> fires = lateness->extraMedian(kProbeFiresPerPassCounter);
    const bool starved = fires && *fires < 2;
    chart.rows.push_back(
        {std::string(dispatcher) + (starved ? " (starved until the volley ends)" : ""),
         *volley,
         {late}});
  }
  if (chart.rows.empty()) return std::nullopt;
  return chart;
}

/// (b) coreactor against CAF on each shared row, in one unit per chart.
std::optional<Chart> armsChart(const RunResults& results, const char* unit, const char* name,
                               const char* yLabel, bool logY) {
  Chart chart;
  chart.name = name;
  chart.kind = Chart::Kind::kGroupedBars;
  chart.title = "coreactor against CAF 0.17, the same workloads (bench/harness/Workloads.hpp), " +
                std::string(unit) + "; lower is better";
  chart.xLabel = "";
  chart.yLabel = yLabel;
  chart.logY = logY;
  chart.series = {"coreactor", "CAF 0.17 (one scheduler thread)"};
  for (const SharedRow& row : sharedRows(results)) {
    if (std::string(row.unit) != unit || (!row.ours && !row.caf)) continue;
    // One thread against one isolate here; the parallel rows have their own chart.
    if (row.name.starts_with(workloads::kParallelFamily)) continue;
    std::string label = row.name.starts_with("actor/") ? row.name.substr(6) : row.name;
    chart.rows.push_back({label, 0, {row.ours, row.caf}});
  }
  if (chart.rows.empty()) return std::nullopt;
  return chart;
}

/// (c) Aggregate throughput against the number of isolates, each running its
/// own ping-pong pair (isolates/scaling/<n>), beside linear scaling from one
/// isolate and the target (0.9 of linear).
std::optional<Chart> scalingChart(const RunResults& results) {
  Chart chart;
  chart.name = "isolate-scaling";
  chart.kind = Chart::Kind::kLines;
  chart.title =
      "Isolates: aggregate ping-pong throughput, one same-isolate pair per isolate "
      "(isolates/scaling/<n>); higher is better";
  chart.xLabel = crossThreadsPinned() ? "isolates (each pinned to its own CPU)"
                                      : "isolates (unpinned: this process has one CPU)";
  chart.yLabel = "round trips per second, millions (all pairs together)";
  chart.integerX = true;
  chart.yFromZero = true;
  chart.referenceLines = true;
  chart.series = {"measured", "linear: n x one isolate", "target: 0.9 x linear"};
  std::string why;
  const std::optional<double> one = medianOf(results.ours, scalingRow(1), why);
  const double millionsAtOne = one ? 1e3 / *one : 0;  // round trips per second at 1
  const std::string_view family = kScalingFamily;
  for (const std::string& name : results.ours.order()) {
    if (!name.starts_with(family)) continue;
    const double n = std::stod(name.substr(family.size()));
    const std::optional<double> ns = medianOf(results.ours, name, why);
    std::optional<double> linear;
    std::optional<double> target;
    if (millionsAtOne > 0) {
      linear = n * millionsAtOne;
      target = 0.9 * n * millionsAtOne;
    }
    chart.rows.push_back({name.substr(family.size()),
                          n,
                          {ns ? std::optional<double>(1e3 / *ns) : std::nullopt, linear, target}});
  }
  if (chart.rows.size() < 2) return std::nullopt;
  return chart;
}

/// (d) Each parallel workload's aggregate throughput against the number of
/// isolates (parallel/<workload>/<n>): ours solid, CAF's (n scheduler
/// threads) dashed in the same colour. Log scale: the same rise is the same
/// speedup, whatever the workload's throughput.
std::optional<Chart> parallelChart(const RunResults& results) {
  Chart chart;
  chart.name = "parallel-speedup";
  chart.kind = Chart::Kind::kLines;
  chart.title =
      "Parallel workloads (parallel/<workload>/<n>): aggregate throughput against isolates "
      "(CAF: scheduler threads); higher is better";
  chart.xLabel = "isolates (CAF: scheduler threads); the same work at every n";
  chart.yLabel = "ops per second, millions, all isolates together (log scale)";
  chart.integerX = true;
  chart.logY = true;
  chart.keyOutside = true;
  std::vector<std::size_t> counts;
  std::vector<std::vector<ParallelPoint>> perWorkload;
  int colour = 0;
  for (const char* workload : workloads::kParallelWorkloads) {
    ++colour;
    std::vector<ParallelPoint> points = parallelPoints(results, workload);
    if (points.empty()) continue;
    chart.series.push_back(std::string(workload) + " (coreactor)");
    chart.styles.push_back({false, colour});
    chart.series.push_back(std::string(workload) + " (CAF)");
    chart.styles.push_back({true, colour});
    for (const ParallelPoint& point : points) {
      if (std::find(counts.begin(), counts.end(), point.isolates) == counts.end()) {
        counts.push_back(point.isolates);
      }
    }
    perWorkload.push_back(std::move(points));
  }
  const auto mops = [](const std::optional<double>& ns) {
    return ns ? std::optional<double>(1e3 / *ns) : std::nullopt;
  };
  for (const std::size_t n : counts) {
    Chart::Row row{std::to_string(n), static_cast<double>(n), {}};
    for (const std::vector<ParallelPoint>& points : perWorkload) {
      const auto at = std::find_if(points.begin(), points.end(),
                                   [&](const ParallelPoint& p) { return p.isolates == n; });
      row.values.push_back(at == points.end() ? std::nullopt : mops(at->ours));
      row.values.push_back(at == points.end() ? std::nullopt : mops(at->caf));
    }
    chart.rows.push_back(std::move(row));
  }
  if (chart.rows.size() < 2) return std::nullopt;
  return chart;
}

}  // namespace

PlotOutcome plotChart(const Chart& chart, const std::filesystem::path& dir) {
  PlotOutcome outcome;
  outcome.png = dir / (chart.name + ".png");
  const std::filesystem::path gpFile = dir / (chart.name + ".gp");
  {
    std::ofstream out(gpFile);
    out << script(chart, outcome.png);
    if (!out) {
      outcome.error = "cannot write " + gpFile.string();
      return outcome;
    }
  }
  const ChildResult child = runChild({"gnuplot", gpFile.string()});
  if (!child.started) {
    outcome.gnuplotMissing = child.notFound;
    outcome.error = child.error;
    return outcome;
  }
  if (child.exitCode != 0) {
    outcome.error = "gnuplot failed on " + gpFile.string() + " (its stderr above says why)";
    return outcome;
  }
  outcome.drawn = true;
  return outcome;
}

RunCharts writeRunCharts(const RunResults& results, const std::filesystem::path& dir) {
  struct Planned {
    const char* name;
    std::optional<Chart> chart;
    const char* whyNot;
  };
  const Planned planned[] = {
      {"volley-vs-lateness", volleyAgainstLateness(results), "no volley/* with lateness/* rows"},
      {"coreactor-vs-caf",
       armsChart(results, "ns/op", "coreactor-vs-caf", "ns per op (log scale)", true),
       "no CAF figure of a one-thread row in this run"},
      {"coreactor-vs-caf-memory",
       armsChart(results, "B/actor", "coreactor-vs-caf-memory", "bytes per idle actor (RSS)",
                 false),
       "no CAF memory figure in this run"},
      {"isolate-scaling", scalingChart(results), "fewer than two isolates/scaling/<n> rows"},
      {"parallel-speedup", parallelChart(results), "fewer than two parallel/<workload>/<n> rows"},
  };
  RunCharts charts;
  bool gnuplotMissing = false;
  for (const Planned& plan : planned) {
    if (!plan.chart || gnuplotMissing) {
      removeStale(dir, plan.name);
      if (!plan.chart)
        charts.notes.push_back(std::string("chart ") + plan.name + " skipped: " + plan.whyNot);
      continue;
    }
    const PlotOutcome outcome = plotChart(*plan.chart, dir);
    if (outcome.gnuplotMissing) {
      gnuplotMissing = true;
      removeStale(dir, plan.name);
      charts.notes.push_back(
          "charts skipped: gnuplot not found (scripts/bench installs gnuplot-nox)");
    } else if (!outcome.drawn) {
      charts.failed = true;
      charts.notes.push_back(std::string("chart ") + plan.name + " FAILED: " + outcome.error);
    } else {
      charts.drawn.push_back(outcome.png);
    }
  }
  return charts;
}

}  // namespace coreactor::bench
