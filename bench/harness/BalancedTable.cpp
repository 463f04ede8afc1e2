// bench/harness/BalancedTable.cpp — see the header.
#include "harness/BalancedTable.hpp"

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "harness/Workloads.hpp"
#include "parallel/ParallelBench.hpp"

namespace coreactor::bench {
namespace {

/// "12.34 ns", "300 ns".
std::string nanos(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value >= 100 ? "%.0f ns" : "%.2f ns", value);
  return text;
}

}  // namespace

void printBalanced(const RunResults& results) {
  const ArmFigures& ours = results.ours;
  bool any = false;
  for (const std::string& name : ours.order()) any |= name.starts_with(workloads::kBalancedFamily);
  if (!any) return;
  std::printf(
      "\n  balanced workloads: the parallel workloads with the balancer on (a 20 ms period),\n"
      "  timed after 300 ms of rounds; speedups over parallel/<workload>/1 and over\n"
      "  balanced/<workload>/1 of this run, parallel/<workload>/<n>'s beside them; the\n"
      "  balancer's moves (timed: made while timed), the steps it undid, and per op the\n"
      "  messages that crossed and those an entry a moved actor left sent on (forwarded);\n"
      "  beside: the speedup over one isolate without the balancer, as many rounds of\n"
      "  it played right after the row's timed ones (the medians' ratio)\n\n");
  constexpr const char* kLine = "  %-11s %3s %10s %7s %8s %8s %8s %8s %6s %6s %6s %9s %9s\n";
  std::printf(kLine, "workload", "n", "balanced", "Mops/s", "vs par/1", "beside", "vs bal/1",
              "parallel", "moves", "timed", "undone", "crossings", "forwarded");
  const auto extra = [&](const std::string& row, const char* counter, const char* format) {
    char text[32] = "-";
    const Figure* figure = ours.find(row);
    if (figure == nullptr) return std::string(text);
    if (const std::optional<double> value = figure->extraMedian(counter)) {
      std::snprintf(text, sizeof text, format, *value);
    }
    return std::string(text);
  };
  for (const std::string& name : ours.order()) {
    if (!name.starts_with(workloads::kBalancedFamily) || name == kConvergeRow) continue;
    const std::string rest = name.substr(std::string_view(workloads::kBalancedFamily).size());
    const std::size_t slash = rest.rfind('/');
    const std::string workload = rest.substr(0, slash);
    const std::string n = rest.substr(slash + 1);
    const std::string base = workload == "pairs-rr" ? "pairs" : workload;
    std::string why;
    const std::optional<double> ns = medianOf(ours, name, why);
    char figure[16] = "FAILED";
    char mops[16] = "-";
    if (ns) {
      std::snprintf(figure, sizeof figure, "%s", nanos(*ns).c_str());
      std::snprintf(mops, sizeof mops, "%.2f", 1e3 / *ns);
    }
    std::printf(
        kLine, workload.c_str(), n.c_str(), figure, mops,
        extra(name, kSpeedupCounter, "%.2fx").c_str(),
        extra(name, kBesideSpeedupCounter, "%.2fx").c_str(),
        extra(name, kBalancedSpeedupCounter, "%.2fx").c_str(),
        extra(workloads::parallelRow(base, std::stoul(n)), kSpeedupCounter, "%.2fx").c_str(),
        extra(name, kMovesCounter, "%.0f").c_str(), extra(name, kTimedMovesCounter, "%.0f").c_str(),
        extra(name, kUndoneCounter, "%.0f").c_str(),
        extra(name, kCrossingsPerOpCounter, "%.2f").c_str(),
        extra(name, kForwardedPerOpCounter, "%.2f").c_str());
  }
  if (const Figure* converge = ours.find(kConvergeRow); converge != nullptr) {
    if (converge->failed()) {
      std::printf("  %s FAILED: %s\n", kConvergeRow, converge->error.c_str());
    } else {
      const auto perSecond = [&](const char* counter) {
        const std::optional<double> value = converge->extraMedian(counter);
        char text[32] = "-";
        if (value) std::snprintf(text, sizeof text, "%.2f M", *value / 1e6);
        return std::string(text);
      };
      std::printf(
          "\n  %s (hops per second): first tenth %s, last tenth %s, one isolate %s;\n"
          "  last / one %s, %s moves\n",
          kConvergeRow, perSecond(kFirstTenthCounter).c_str(), perSecond(kLastTenthCounter).c_str(),
          perSecond(kOneIsolateCounter).c_str(),
          extra(kConvergeRow, kLastVsOneCounter, "%.2f").c_str(),
          extra(kConvergeRow, kMovesCounter, "%.0f").c_str());
    }
  }
}

}  // namespace coreactor::bench
