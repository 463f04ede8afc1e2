// bench/harness/Results.cpp — see the header.
#include "harness/Results.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <system_error>

#include "harness/BenchSupport.hpp"
#include "harness/RouterTallies.hpp"
#include "harness/Workloads.hpp"
#include "isolates/IsolatesBench.hpp"
#include "parallel/ParallelBench.hpp"
#include "schedule/ScheduleBench.hpp"

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
  if (counter == kCpuPercentCounter) return "% cpu";
  if (counter == kP50NsCounter) return "ns p50";
  if (counter == "bytes_per_isolate") return "B/isol";
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

namespace {

/// What one op of a cross-isolate row is (bench/isolates/), or "".
std::string describeCrossOp(std::string_view name) {
  if (name == "floor/spsc-bulk") {
    return "one 8-byte item, boost spsc_queue(1024), thread to thread, popped 256 at once";
  }
  if (name == "floor/busy-poll-rtt") {
    return "one round trip of an atomic word, both threads spinning";
  }
  if (name == "floor/eventfd-rtt") return "one round trip through two eventfds, blocking reads";
  if (name == "isolates/transport/8B") {
    return "one 8-byte item, our SpscRing(1024), thread to thread, consumed 256 at once";
  }
  if (name == "isolates/transport/word") {
    return "the same, one word crossing (id, type, value: half a line) in the runtime's ring";
  }
  if (name == "isolates/transport/64B") {
    return "the same, one 64-byte crossing (an id and a Message: a line) in the runtime's ring";
  }
  if (name == "floor/moodycamel-bulk") {
    return "one letter's bytes, moodycamel bulk enqueue (token) and dequeue, thread to thread";
  }
  if (name == "isolates/foreign/tell") {
    return "one tell of 10000 from a foreign thread, one by one, handled";
  }
  if (name == "isolates/foreign/feeder") {
    return "one tell of 10000 from a foreign thread, through a Feeder, handled";
  }
  if (name == "isolates/tell/cross") {
    return "one tell of a burst of 100000, isolate 0 -> 1, handled";
  }
  if (name == "isolates/tell/same") {
    return "one tell of a burst of 100000, isolate 0 -> 0, handled";
  }
  if (name == "isolates/pingpong/busy") {
    return "one round trip, isolate 0 <-> 1, both awake (in their idle poll window)";
  }
  if (name == "isolates/pingpong/wide") {
    return "one round trip of 24-byte messages (no words), isolate 0 <-> 1, both awake";
  }
  if (name == "isolates/pingpong/loaded") {
    return "one round trip, isolate 0 <-> 1, both kept busy by a self-telling actor";
  }
  if (name == "isolates/pingpong/idle") {
    return "one round trip, isolate 0 <-> 1, each asleep between messages (no poll window)";
  }
  if (name.starts_with(kScalingFamily)) {
    return "one round trip, aggregate over " +
           std::string(name.substr(std::string_view(kScalingFamily).size())) +
           " isolates, one pair on each";
  }
  if (name == "isolates/ask/foreign") {
    return "p50 of one ask from the benchmark's thread to an isolate, one at a time";
  }
  if (name.starts_with(kMoveFamily)) {
    const std::string_view queued = name.substr(std::string_view(kMoveFamily).size());
    return "p50 of one move, isolate 0 <-> 1, from the call to its arrival, " +
           (queued == "0" ? std::string("empty mailbox") : std::string(queued) + " queued");
  }
  return "";
}

/// What one op of a parallel row is (bench/parallel/).
std::string describeParallelOp(std::string_view name) {
  using namespace workloads;
  const std::string_view rest = name.substr(std::string_view(kParallelFamily).size());
  const std::size_t slash = rest.rfind('/');
  if (slash == std::string_view::npos) return "";
  const std::string_view workload = rest.substr(0, slash);
  const std::string n(rest.substr(slash + 1));
  const std::string over =
      ", all of " + n + (n == "1" ? " isolate (CAF: thread)" : " isolates (CAF: threads)");
  const auto count = [](std::int64_t value) {
    std::string text = std::to_string(value);
    for (int at = static_cast<int>(text.size()) - 3; at > 0; at -= 3) {
      text.insert(static_cast<std::size_t>(at), ",");
    }
    return text;
  };
  if (workload == "pairs") {
    return "one round trip of " + count(kPairs) + " pairs x " + count(kPairRoundTrips) + over;
  }
  if (workload == "forkjoin") {
    return "one item of " + count(kForkJoinItems) + " to " + count(kForkJoinWorkers) +
           " workers, computed, summed" + over;
  }
  if (workload == "ring-one") {
    return "one hop of one token, ring of " + count(kRingActors) + over;
  }
  if (workload == "ring-many") {
    return "one hop of " + count(kRingTokens) + " tokens, ring of " + count(kRingActors) + over;
  }
  if (workload == "all-to-all") {
    return "one request answered, " + count(kAllToAllActors) + " actors x " +
           count(kAllToAllMessages) + " to random peers" + over;
  }
  if (workload == "pipeline") {
    return "one message through " + count(kPipelineStages) + " working stages" + over;
  }
  if (workload == "skew") {
    return "one job (" + count(kSkewChain) + " items' work) of " + count(kSkewActors) + " x " +
           count(kSkewJobs) + ", all actors on isolate 0, of " + n + " isolates";
  }
  return "";
}

/// What one op of a router/*, pool/cpu/* or pool/cpu-floor/* row is
/// (bench/actor/Router.cpp, bench/parallel/Pool.cpp), or "".
std::string describeRouterOp(std::string_view name) {
  if (name.starts_with(workloads::kCpuFloorFamily)) {
    const std::string n(name.substr(std::string_view(workloads::kCpuFloorFamily).size()));
    return "one of pool/cpu's 50,000 items computed by " + n +
           (n == "1" ? " plain thread" : " plain threads, a share each") + " (no actors)";
  }
  if (name.starts_with(workloads::kPoolCpuFamily)) {
    const std::string n(name.substr(std::string_view(workloads::kPoolCpuFamily).size()));
    return "one fork-join item of 50,000 through a round-robin pool, a routee per isolate, of " +
           n + (n == "1" ? " isolate (CAF: thread)" : " isolates (CAF: threads)");
  }
  if (!name.starts_with(workloads::kRouterFamily)) return "";
  const std::string_view logic = name.substr(std::string_view(workloads::kRouterFamily).size());
  if (logic == "direct") return "one of 10000 tells from an actor to 4 actors in turn, handled";
  if (logic == "broadcast") {
    return "one of 10000 tells to a broadcast pool of 4 on the isolate (4 deliveries)";
  }
  return "one of 10000 tells through a " + std::string(logic) + " pool of 4 on the isolate";
}

/// What one op of a balanced row is (bench/parallel/ParallelRow.hpp).
std::string describeBalancedOp(std::string_view name) {
  if (name == kConvergeRow) {
    return "one hop, ring-many's ring placed the worst way over the isolates, for 2 s";
  }
  std::string rest(name.substr(std::string_view(workloads::kBalancedFamily).size()));
  std::string how = "; balancer on";
  if (rest.starts_with("pairs-rr/")) {
    rest = "pairs/" + rest.substr(9);
    how = "; round-robin, balancer on";
  }
  const std::string op = describeParallelOp(workloads::kParallelFamily + rest);
  return op.empty() ? op : op + how;
}

}  // namespace

std::string describeOp(std::string_view name) {
  if (name == "isolates/idle-cpu") {
    return "CPU of an idle system of one isolate per CPU, % of one core";
  }
  if (name.starts_with("isolates/memory/")) {
    return "malloc'd bytes per idle isolate of " + std::string(name.substr(16)) +
           " (threads); per talking pair apart";
  }
  if (std::string cross = describeCrossOp(name); !cross.empty()) {
    // On one CPU the two sides time-share it: say so beside the figure.
    return crossThreadsPinned() ? cross : cross + " (unpinned: 1 CPU)";
  }
  if (name == "floor/ring") return "ring push + pop + indirect call, 16-byte entry";
  if (name == "floor/asio-post") return "asio::post hop, io_context(1)";
  if (name.starts_with("hop/")) return "one turn: a Task re-executing via Dispatcher&";
  if (name.starts_with("volley/")) return "one request/response round trip (2 hops)";
  if (const std::size_t at = name.find("/backlog/"); at != std::string_view::npos) {
    return "one unit of " + std::string(name.substr(at + 9)) + " executed at once";
  }
  if (name.starts_with("iolatency/")) {
    return "a pipe read's latency (write to handler) while a volley runs (median)";
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
  if (name.starts_with(workloads::kParallelFamily)) return describeParallelOp(name);
  if (std::string routed = describeRouterOp(name); !routed.empty()) return routed;
  if (name.starts_with(workloads::kBalancedFamily)) return describeBalancedOp(name);
  if (name.starts_with("schedule/add+cancel/")) {
    return "one scheduleOnce or cancel by " + std::string(name.substr(20)) + ", 1M live";
  }
  if (name == "schedule/fire/1M") return "one due one-shot fired and handled, 1M due at once";
  if (name == "schedule/memory") return "RSS per live schedule: 1M unnamed, 8-byte message";
  if (name == "schedule/memory/named") return "RSS per live schedule: 1M named";
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
    // The same bounds read in floors: they are stated for a machine whose
    // ring floor is ~2.5 ns. Each round of these rows is paired with a
    // round of the floor on the same thread right after it
    // (bench/harness/RingFloor.hpp), so a slow CPU slows both.
    {"tell (1k) / ring floor: 10 ns on 2.5", "actor/tell/1000", "floor/ring", 4.0, "", false,
     kPairedFloorRatioCounter},
    {"tell (10k) / ring floor: 10 ns on 2.5", "actor/tell/10000", "floor/ring", 4.0, "", false,
     kPairedFloorRatioCounter},
    {"ping-pong / ring floor: 30 ns on 2.5", "actor/pingpong/10000", "floor/ring", 12.0, "", false,
     kPairedFloorRatioCounter},
    {"ask / ring floor: 100 ns on 2.5", "actor/ask/from-actor", "floor/ring", 40.0, "", false,
     kPairedFloorRatioCounter},
    {"spawn+stop / ring floor: 300 ns on 2.5", "actor/spawn/100", "floor/ring", 120.0, "", false,
     kPairedFloorRatioCounter},
    {"schedule or cancel, 1M live, by handle", "schedule/add+cancel/handle", nullptr, 100, "ns"},
    {"schedule or cancel, 1M live, by reference", "schedule/add+cancel/reference", nullptr, 300,
     "ns"},
    {"memory per live schedule", "schedule/memory", nullptr, 128, "B"},
    // Across isolates (bench/isolates/), against floors of the same run.
    {"spsc transport 8B / boost spsc floor", "isolates/transport/8B", "floor/spsc-bulk", 2.0, "",
     false, kPairedFloorRatioCounter},
    {"spsc transport word / boost spsc floor", "isolates/transport/word", "floor/spsc-bulk", 2.0,
     "", false, kPairedFloorRatioCounter},
    {"spsc transport 64B / boost spsc floor", "isolates/transport/64B", "floor/spsc-bulk", 2.0, "",
     false, kPairedFloorRatioCounter},
    // Throughput across at least 0.7 of throughput on one isolate; with two
    // CPUs, paired round by round with the same burst on the receiver's CPU.
    {"tell across isolates / on one isolate", "isolates/tell/cross", "isolates/tell/same", 1 / 0.7,
     "", false, kPairedFloorRatioCounter},
    {"ping-pong across, busy / busy-poll floor", "isolates/pingpong/busy", "floor/busy-poll-rtt",
     1.5, "", false, kPairedFloorRatioCounter},
    {"ping-pong across, idle / eventfd floor", "isolates/pingpong/idle", "floor/eventfd-rtt", 1.2,
     "", false, kPairedFloorRatioCounter},
    // Aggregate throughput at N isolates at least 0.9 x N x throughput at 1:
    // ns(N) x N / ns(1) <= 1 / 0.9, N the most isolates that ran. With two
    // CPUs or more, each round of the N pairs together is paired with each
    // pair alone on its CPU, and the ratio is (the pairs' rates alone,
    // summed) / (their rate together): N x one isolate when the CPUs run
    // at one speed, and still fair when they do not (bench/isolates/Scaling.cpp).
    {"scaling: {n} pairs alone / together", kScalingFamily, "isolates/scaling/1", 1 / 0.9, "", true,
     kPairedFloorRatioCounter},
    // An ask from an actor to an actor on the other isolate, one at a time,
    // each round's p50 and p99 over the busy-poll round trip right after it.
    {"ask across, p50 / busy-poll floor", workloads::kCrossAskRow, "floor/busy-poll-rtt", 3.0, "",
     false, kP50PairedCounter},
    {"ask across, p99 / busy-poll floor", workloads::kCrossAskRow, "floor/busy-poll-rtt", 10.0, "",
     false, kP99PairedCounter},
    {"idle system, CPU", "isolates/idle-cpu", nullptr, 1, "% cpu"},
    // A flood of tells while a thread scrapes the metrics endpoint every
    // 10 ms, batch for batch against a system nobody reads.
    {"tell while scraped / plain", "metrics/tell/scraped", "metrics/tell/plain", 1.05, "", false,
     kPairedFloorRatioCounter},
    // A foreign thread feeds an actor: a Feeder's batch of 10k,
    // to the end of the handling, against moving as many letters' bytes
    // through moodycamel in bulk, thread to thread.
    {"foreign tells via a Feeder / moodycamel bulk floor", "isolates/foreign/feeder",
     "floor/moodycamel-bulk", 4.0},
    // The parallel workloads (bench/parallel/), N the most isolates
    // that ran. Where the work divides (pairs, fork-join, pipeline): the
    // aggregate throughput at N at least 0.8 x N x at one isolate, i.e.
    // ns(N) x N / ns(1) <= 1 / 0.8. Where every message may cross (the
    // rings, all-to-all): at N at least as fast as at one, ns(N) / ns(1) <= 1.
    {"pairs: {n} x 1 isolate / {n} isolates", "parallel/pairs/", "parallel/pairs/1", 1 / 0.8, "",
     true},
    {"forkjoin: {n} x 1 isolate / {n} isolates", "parallel/forkjoin/", "parallel/forkjoin/1",
     1 / 0.8, "", true},
    {"ring-one: 1 isolate / {n} isolates", "parallel/ring-one/", "parallel/ring-one/1", 1.0, "",
     false, nullptr, true},
    {"ring-many: 1 isolate / {n} isolates", "parallel/ring-many/", "parallel/ring-many/1", 1.0, "",
     false, nullptr, true},
    {"all-to-all: 1 isolate / {n} isolates", "parallel/all-to-all/", "parallel/all-to-all/1", 1.0,
     "", false, nullptr, true},
    {"pipeline: {n} x 1 isolate / {n} isolates", "parallel/pipeline/", "parallel/pipeline/1",
     1 / 0.8, "", true},
    // Routers (bench/actor/Router.cpp): a routed tell against the sender
    // picking its 4 actors in turn itself, each round paired with one of
    // router/direct right after it (vs_direct).
    {"round-robin pool tell / direct tell", "router/round-robin", "router/direct", 1.3, "", false,
     kVsDirectCounter},
    {"random pool tell / direct tell", "router/random", "router/direct", 1.3, "", false,
     kVsDirectCounter},
    {"consistent-hash pool tell / direct tell", "router/consistent-hash", "router/direct", 1.3, "",
     false, kVsDirectCounter},
    {"consistent-hash (member key) / direct tell", "router/consistent-hash/member", "router/direct",
     1.3, "", false, kVsDirectCounter},
    {"smallest-mailbox pool tell / direct tell", "router/smallest-mailbox", "router/direct", 2.0,
     "", false, kVsDirectCounter},
    // A CPU-bound round-robin pool, a routee per isolate: a speedup of at
    // least 1.7 on two isolates, i.e. ns(2) / ns(1) <= 1 / 1.7.
    {"cpu pool: 2 isolates / 1 (speedup >= 1.7x)", "pool/cpu/2", "pool/cpu/1", 1 / 1.7},
    // The same jobs on two plain threads against one: whether this machine
    // itself gave this work 1.7x in this run (the pool's ceiling).
    {"cpu floor, raw threads: 2 / 1 (the pool's ceiling)", "pool/cpu-floor/2", "pool/cpu-floor/1",
     1 / 1.7},
};

/// The largest n of the rows `family`<n> that ran, or 0.
std::size_t largestOfFamily(const ArmFigures& ours, std::string_view family) {
  std::size_t largest = 0;
  for (const std::string& name : ours.order()) {
    if (!name.starts_with(family)) continue;
    std::size_t n = 0;
    const char* first = name.data() + family.size();
    const char* last = name.data() + name.size();
    const auto [end, error] = std::from_chars(first, last, n);
    if (error == std::errc() && end == last) largest = std::max(largest, n);
  }
  return largest;
}

/// `text` with every "{n}" replaced by `value`.
std::string withN(std::string text, const std::string& value) {
  for (std::size_t at = text.find("{n}"); at != std::string::npos; at = text.find("{n}", at)) {
    text.replace(at, 3, value);
    at += value.size();
  }
  return text;
}

}  // namespace

std::vector<TargetResult> evaluateTargets(const ArmFigures& ours) {
  std::vector<TargetResult> results;
  for (const Target& target : kTargets) {
    TargetResult result{&target, target.label, target.numerator, std::nullopt, {}};
    if (target.timesLargest || target.largest) {
      const std::size_t n = largestOfFamily(ours, target.numerator);
      if (n < 2) {
        result.label = withN(target.label, "N");
        result.why = "n/a: no " + std::string(target.numerator) + "<n> row with n >= 2 ran";
        results.push_back(std::move(result));
        continue;
      }
      result.label = withN(target.label, std::to_string(n));
      result.numerator += std::to_string(n);
      if (target.timesLargest) result.times = static_cast<double>(n);
    }
    if (target.pairedCounter != nullptr) {
      if (const Figure* row = ours.find(result.numerator); row != nullptr && !row->failed()) {
        if (const std::optional<double> ratio = row->extraMedian(target.pairedCounter)) {
          result.value = *ratio;
          result.paired = true;
          results.push_back(std::move(result));
          continue;
        }
      }
    }
    const std::optional<double> num = medianOf(ours, result.numerator, result.why);
    std::optional<double> den = 1.0;
    if (num && target.denominator != nullptr) den = medianOf(ours, target.denominator, result.why);
    if (num && den) result.value = *num / *den * result.times;
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

// ---- parallel/<workload>/<n> ------------------------------------------------------------

namespace {

/// The n of parallel/<workload>/<n>, or 0 for a row of another family.
std::size_t parallelIsolates(const std::string& name, std::string_view workload) {
  const std::string prefix = workloads::parallelRow(workload, 0);  // ".../0"
  const std::string_view stem = std::string_view(prefix).substr(0, prefix.size() - 1);
  if (!name.starts_with(stem)) return 0;
  std::size_t n = 0;
  const char* first = name.data() + stem.size();
  const char* last = name.data() + name.size();
  const auto [end, error] = std::from_chars(first, last, n);
  return error == std::errc() && end == last ? n : 0;
}

/// The n of balanced/<workload>/<n> or of a variant of it,
/// balanced/<workload>-<how>/<n>, or 0 for another row.
std::size_t balancedIsolates(const std::string& name, std::string_view workload) {
  const std::string stem = workloads::kBalancedFamily + std::string(workload);
  if (!name.starts_with(stem) || name.size() == stem.size()) return 0;
  const char next = name[stem.size()];
  const std::size_t slash = name.rfind('/');
  if ((next != '/' && next != '-') || slash < stem.size()) return 0;
  std::size_t n = 0;
  const char* first = name.data() + slash + 1;
  const char* last = name.data() + name.size();
  const auto [end, error] = std::from_chars(first, last, n);
  return error == std::errc() && end == last ? n : 0;
}

}  // namespace

void addSpeedups(ArmFigures& arm) {
  // pool/cpu/<n> over pool/cpu/1.
  std::string absent;
  if (const std::optional<double> one = medianOf(arm, workloads::poolCpuRow(1), absent)) {
    for (const std::size_t n : workloads::kPoolCpuIsolates) {
      const std::string name = workloads::poolCpuRow(n);
      if (const std::optional<double> at = medianOf(arm, name, absent)) {
        arm.figureFor(name).extras[kSpeedupCounter] = {*one / *at};
      }
    }
  }
  for (const char* workload : workloads::kParallelWorkloads) {
    std::string why;
    const std::optional<double> one = medianOf(arm, workloads::parallelRow(workload, 1), why);
    const std::optional<double> balancedOne =
        medianOf(arm, workloads::balancedRow(workload, 1), why);
    const std::vector<std::string> names = arm.order();
    const std::string placed = workloads::placementRow(workload, 0);  // ".../run-0"
    const std::string_view placedStem = std::string_view(placed).substr(0, placed.size() - 1);
    for (const std::string& name : names) {
      const bool balanced = balancedIsolates(name, workload) != 0;
      if (!balanced && parallelIsolates(name, workload) == 0 && !name.starts_with(placedStem)) {
        continue;
      }
      const std::optional<double> at = medianOf(arm, name, why);
      if (!at) continue;
      Figure& figure = arm.figureFor(name);
      if (one) figure.extras[kSpeedupCounter] = {*one / *at};
      if (balanced && balancedOne) figure.extras[kBalancedSpeedupCounter] = {*balancedOne / *at};
    }
  }
}

// ---- isolates/move/<queued> -------------------------------------------------------------

void addMoveRatios(ArmFigures& arm) {
  const Figure* ask = arm.find(workloads::kCrossAskRow);
  const std::optional<double> askP99 =
      ask == nullptr ? std::nullopt : ask->extraMedian(kP99NsCounter);
  if (!askP99 || *askP99 <= 0) return;
  const std::vector<std::string> names = arm.order();
  for (const std::string& name : names) {
    if (!name.starts_with(kMoveFamily)) continue;
    Figure& figure = arm.figureFor(name);
    if (const std::optional<double> p99 = figure.extraMedian(kP99NsCounter)) {
      figure.extras[kP99OverAskCounter] = {*p99 / *askP99};
    }
  }
}

std::vector<ParallelPoint> parallelPoints(const RunResults& results, std::string_view workload) {
  std::vector<ParallelPoint> points;
  const auto pointFor = [&](const std::string& name) -> ParallelPoint* {
    const std::size_t n = parallelIsolates(name, workload);
    if (n == 0) return nullptr;
    for (ParallelPoint& point : points) {
      if (point.isolates == n) return &point;
    }
    points.push_back(ParallelPoint{n, name, {}, {}, {}, {}, {}, {}});
    return &points.back();
  };
  std::string why;
  for (const std::string& name : results.ours.order()) {
    if (ParallelPoint* point = pointFor(name)) {
      point->ours = medianOf(results.ours, name, why);
      if (point->ours) {
        const Figure& figure = *results.ours.find(name);
        point->oursSpeedup = figure.extraMedian(kSpeedupCounter);
        point->crossings = figure.extraMedian(kCrossingsPerOpCounter);
      }
    }
  }
  if (results.caf.ran()) {
    for (const std::string& name : results.caf.figures.order()) {
      if (ParallelPoint* point = pointFor(name)) {
        const Figure& figure = *results.caf.figures.find(name);
        point->caf = medianOf(results.caf.figures, name, why);
        if (point->caf) point->cafSpeedup = figure.extraMedian(kSpeedupCounter);
      }
    }
  }
  for (ParallelPoint& point : points) {
    if (point.ours && point.caf) point.ratio = *point.ours / *point.caf;
  }
  std::sort(points.begin(), points.end(),
            [](const ParallelPoint& a, const ParallelPoint& b) { return a.isolates < b.isolates; });
  return points;
}

}  // namespace coreactor::bench
