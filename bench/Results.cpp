// bench/Results.cpp — see the header.
#include "Results.hpp"

#include <algorithm>
#include <cstring>

#include "BenchSupport.hpp"
#include "ScheduleBench.hpp"
#include "Workloads.hpp"

namespace coreactor::bench {

double medianOfSamples(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 == 1 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
}

const char* unitOfCounter(std::string_view counter) {
  if (counter == kNsPerOpCounter) return "ns/op";
  if (counter == kBytesPerOpCounter) return "B/actor";
  if (counter == kMicrosCounter) return "us";
  if (counter == kLateUsCounter) return "us late";
  if (counter == kBytesPerScheduleCounter) return "B/sched";
  return nullptr;
}

// ---- Figure ----------------------------------------------------------------------------

void Figure::addRepetition(const std::map<std::string, double>& counters) {
  const char* own = nullptr;
  for (const auto& [name, value] : counters) {
    if (const char* figureUnit = unitOfCounter(name)) {
      own = name.c_str();
      unit = figureUnit;
      samples.push_back(value);
    }
  }
  for (const auto& [name, value] : counters) {
    if (own == nullptr || name != own) extras[name].push_back(value);
  }
}

std::optional<double> Figure::median() const {
  if (failed()) return std::nullopt;
  if (samples.empty()) return reportedMedian;
  return medianOfSamples(samples);
}

std::optional<double> Figure::extraMedian(const std::string& counter) const {
  const auto it = extras.find(counter);
  if (failed() || it == extras.end() || it->second.empty()) return std::nullopt;
  return medianOfSamples(it->second);
}

std::optional<double> Figure::spreadPercent() const {
  const std::optional<double> mid = median();
  if (samples.size() < 2 || !mid || *mid <= 0) return std::nullopt;
  const auto [low, high] = std::minmax_element(samples.begin(), samples.end());
  return (*high - *low) / *mid * 100;
}

std::string Figure::repetitions() const {
  return samples.empty() ? std::string("-") : std::to_string(samples.size());
}

// ---- ArmFigures ------------------------------------------------------------------------

const Figure* ArmFigures::find(const std::string& name) const {
  const auto it = figures_.find(name);
  return it == figures_.end() ? nullptr : &it->second;
}

Figure& ArmFigures::figureFor(const std::string& name) {
  auto [it, inserted] = figures_.try_emplace(name);
  if (inserted) order_.push_back(name);
  return it->second;
}

bool ArmFigures::anyFailed() const {
  return std::any_of(figures_.begin(), figures_.end(),
                     [](const auto& entry) { return entry.second.failed(); });
}

// ---- rows ------------------------------------------------------------------------------

std::string describeOp(std::string_view name) {
  if (name == "floor/ring") return "ring push + pop + indirect call, 16-byte entry";
  if (name == "floor/asio-post") return "asio::post hop, io_context(1)";
  if (name.starts_with("hop/")) return "one turn: a Task re-executing via Dispatcher&";
  if (name.starts_with("volley/")) return "one request/response round trip (2 hops)";
  if (const std::size_t at = name.find("/backlog/"); at != std::string_view::npos) {
    return "one unit of " + std::string(name.substr(at + 9)) + " executed at once";
  }
  if (name.starts_with("lateness/")) {
    return "a 100 us timer's lateness while a volley runs (median)";
  }
  if (name.starts_with("actor/tell/")) {
    return "one tell of a batch of " + std::string(name.substr(11)) + " into one actor, handled";
  }
  if (name.starts_with("actor/pingpong/")) return "one ping -> pong round trip of two actors";
  if (name == "actor/ask/from-actor") return "one ask of 10000 in flight from an actor, answered";
  if (name == "actor/ask/one-at-a-time") {
    return "one ask from an actor, the next sent by its continuation";
  }
  if (name == "actor/ask/one-at-a-time/no-deadline") {
    return "CAF only: the same without a deadline, beside ours (which has one)";
  }
  if (name == "actor/ask/from-driver") return "one ask from the driving thread (same isolate) (*)";
  if (name == "actor/spawn/100") return "one actor spawned, started, stopped; 100 at once";
  if (name.starts_with("actor/spawn/")) {
    return "one actor spawned and started; " + std::string(name.substr(12)) + " at once";
  }
  if (name == "actor/memory") return "RSS per idle actor: 100k, one message each";
  if (name.starts_with("schedule/add+cancel/")) {
    return "one scheduleOnce or cancel by " + std::string(name.substr(20)) + ", 1M live";
  }
  if (name == "schedule/fire/1M") return "one due one-shot fired and handled, 1M due at once";
  if (name == "schedule/memory") return "malloc'd bytes per live schedule, 8-byte message";
  if (name == "schedule/lateness/idle") return "p50 fire lateness, 200 one-shots, idle isolate";
  if (name == "schedule/lateness/volley") {
    return "p50 fire lateness, 200 one-shots, hybrid volley on the isolate";
  }
  return "";
}

std::optional<double> medianOf(const ArmFigures& arm, const std::string& name, std::string& why) {
  const Figure* figure = arm.find(name);
  if (figure == nullptr) {
    why = "n/a: " + name + " did not run";
    return std::nullopt;
  }
  if (figure->failed()) {
    why = "n/a: " + name + " FAILED";
    return std::nullopt;
  }
  const std::optional<double> median = figure->median();
  if (!median || *median <= 0) {
    why = "n/a: no figure for " + name;
    return std::nullopt;
  }
  return median;
}

// ---- targets ---------------------------------------------------------------------------

namespace {

// The design's targets. The ratios hold on any machine; the absolute bounds
// are stated for the machine kind the figures were taken on (a 2-vCPU VM), so
// a slower machine misses them without the design being at fault.
constexpr Target kTargets[] = {
    {"microtask hop / ring floor", "hop/microtask", "floor/ring", 3.0},
    {"immediate hop / raw asio hop", "hop/immediate", "floor/asio-post", 1.5},
    {"hybrid volley / microtask volley", "volley/hybrid", "volley/microtask", 1.3},
    {"hybrid unit at 100k / at 1k backlog", "hybrid/backlog/100000", "hybrid/backlog/1000", 1.3},
    {"hybrid unit at 1M / at 1k backlog", "hybrid/backlog/1000000", "hybrid/backlog/1000", 2.0},
    {"spawn per actor at 100k / at 10k", "actor/spawn/100000", "actor/spawn/10000", 1.3},
    {"tell, per message (1k batch)", "actor/tell/1000", nullptr, 10, "ns"},
    {"tell, per message (10k batch)", "actor/tell/10000", nullptr, 10, "ns"},
    {"ping-pong, per round trip", "actor/pingpong/10000", nullptr, 30, "ns"},
    {"ask from an actor, same isolate", "actor/ask/from-actor", nullptr, 100, "ns"},
    {"ask from the driving thread (*)", "actor/ask/from-driver", nullptr, 100, "ns"},
    {"spawn + start + stop, per actor", "actor/spawn/100", nullptr, 300, "ns"},
    {"memory per idle actor (RSS)", "actor/memory", nullptr, 256, "B"},
    {"schedule or cancel, 1M live, by handle", "schedule/add+cancel/handle", nullptr, 100, "ns"},
    {"schedule or cancel, 1M live, by reference", "schedule/add+cancel/reference", nullptr, 300,
     "ns"},
    {"memory per live schedule", "schedule/memory", nullptr, 128, "B"},
};

}  // namespace

std::vector<TargetResult> evaluateTargets(const ArmFigures& ours) {
  std::vector<TargetResult> results;
  for (const Target& target : kTargets) {
    TargetResult result{&target, std::nullopt, {}};
    const std::optional<double> num = medianOf(ours, target.numerator, result.why);
    std::optional<double> den = 1.0;
    if (num && target.denominator != nullptr) den = medianOf(ours, target.denominator, result.why);
    if (num && den) result.value = *num / *den;
    results.push_back(std::move(result));
  }
  return results;
}

std::vector<SharedRow> sharedRows(const RunResults& results) {
  std::vector<SharedRow> rows;
  if (!results.caf.ran()) return rows;
  // In our order, each CAF row right after its counterpart of ours.
  std::vector<std::string> names;
  for (const std::string& ours : results.ours.order()) {
    for (const std::string& caf : results.caf.figures.order()) {
      if (workloads::ourCounterpart(caf) == ours) names.push_back(caf);
    }
  }
  for (const std::string& caf : results.caf.figures.order()) {
    if (std::find(names.begin(), names.end(), caf) == names.end()) names.push_back(caf);
  }
  for (const std::string& name : names) {
    SharedRow row{name, results.caf.figures.find(name)->unit, {}, {}, {}};
    std::string why;
    row.ours = medianOf(results.ours, workloads::ourCounterpart(name), why);
    row.caf = medianOf(results.caf.figures, name, why);
    if (row.ours && row.caf) row.ratio = *row.ours / *row.caf;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace coreactor::bench
