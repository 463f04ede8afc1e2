// The balancer of a system: see Balancer.hpp; the decision is Plan.cpp.
#include "runtime/balance/Balancer.hpp"

#include <algorithm>

#include "runtime/SystemCore.hpp"

namespace coreactor::detail {

Balancer::Balancer(SystemCore& core, BalancerOptions options) : core_(core), options_(options) {}

void Balancer::start() {
  if (core_.isolateCount() < 2) return;  // nowhere to move: no samples, no periods
  reports_.resize(core_.isolateCount());
  in_.assign(core_.isolateCount(), false);
  const Clock::time_point now = core_.clock().now();
  if (!core_.clock().isManual()) census_ = std::make_unique<SleepCensus>(core_.isolateCount());
  for (std::size_t i = 0; i < core_.isolateCount(); ++i) {
    IsolateRuntime& rt = core_.runtime(i);
    auto sampling = std::make_unique<Sampling>();
    sampling->every = options_.sampleEvery;
    sampling->seed += i * 0x632BE59BD9B4E019ull;
    rt.counts.untilSample = sampling->nextGap();
    sampling->since = now;
    // The isolate's busy time is its period less the time its loop waited
    // for work: measured on a real clock only (a manual clock's period is
    // no time the loop spent).
    sampling->measured = !core_.clock().isManual();
    if (sampling->measured) {
      IsolateHooks::measureIdle(*rt.isolate, true);
      IsolateHooks::countSleeps(*rt.isolate, census_.get());
    }
    rt.sampling = std::move(sampling);
    arm(rt);
  }
}

void Balancer::arm(IsolateRuntime& rt) {
  // Unreferenced: the balancer keeps no loop running (a manual system's
  // runUntilIdle returns; its clock moves the periods on).
  rt.isolate->setTimeout(
      std::chrono::duration_cast<Clock::duration>(options_.period), [this, &rt] { tick(rt); },
      TimerOptions{.referenced = false});
}

void Balancer::tick(IsolateRuntime& rt) {
  Sampling& sampling = *rt.sampling;
  const Clock::time_point now = core_.clock().now();
  balance::Report report;
  report.isolate = rt.index;
  report.samples.swap(sampling.taken);
  report.spanNanos = static_cast<double>((now - sampling.since).count());
  const std::uint64_t detoured = rt.counts.detoured.load(std::memory_order_relaxed);
  report.detoured = static_cast<double>(detoured - sampling.detouredSeen);
  sampling.detouredSeen = detoured;
  sampling.since = now;
  // Over the time the samples cover (a timer that ran late covers more).
  const double span =
      report.spanNanos > 0 ? report.spanNanos : static_cast<double>(options_.period.count());
  // The messages the samples stand for, and the mean time of the clocked ones.
  std::uint64_t messages = 0;
  double clocked = 0;
  double clockedCount = 0;
  for (const balance::Sample& s : report.samples) {
    messages += s.every;
    if (!s.timed) continue;
    clocked += static_cast<double>(s.nanos);
    clockedCount += 1;
  }
  // The time the isolate was busy: measured, or its handlers' time.
  double busy = 0;
  if (sampling.measured) {
    const std::uint64_t idle = IsolateHooks::idleNanos(*rt.isolate);
    const double waited = static_cast<double>(idle - sampling.idleSeen);
    sampling.idleSeen = idle;
    report.busyNanos = std::clamp(span - waited, 0.0, span);
    busy = report.busyNanos;
  } else if (clockedCount > 0) {
    busy = clocked / clockedCount * static_cast<double>(messages);
  }
  const double share = busy / span;
  sampling.every = Sampling::nextEvery(sampling.every, report.samples.size(), messages);
  rt.counts.busyPermille.store(static_cast<std::uint64_t>(std::min(1.0, share) * 1000.0),
                               std::memory_order_relaxed);
  std::vector<balance::Report> complete;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    balance::Report& mine = reports_[rt.index];
    if (in_[rt.index]) {
      // A second period of this isolate before the others' first (its timer
      // ran ahead): one longer report.
      mine.samples.insert(mine.samples.end(), report.samples.begin(), report.samples.end());
      mine.spanNanos += report.spanNanos;
      mine.detoured += report.detoured;
      if (mine.busyNanos >= 0 && report.busyNanos >= 0) mine.busyNanos += report.busyNanos;
    } else {
      mine = std::move(report);
      in_[rt.index] = true;
      ++reported_;
    }
    if (reported_ == reports_.size()) {
      complete.swap(reports_);
      reports_.resize(complete.size());
      in_.assign(complete.size(), false);
      reported_ = 0;
    }
  }
  if (!complete.empty()) decide(std::move(complete));
  arm(rt);
}

void Balancer::decide(std::vector<balance::Report> reports) {
  std::vector<std::uint64_t> failed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    failed.swap(unmovable_);
  }
  std::vector<balance::Move> moves;
  {
    std::lock_guard<std::mutex> lock(planning_);
    for (const std::uint64_t actor : failed) memory_.unmovable.insert(actor);
    // The time since the last plan that no isolate had any work.
    double paused = 0;
    if (census_ != nullptr) {
      const std::uint64_t asleep = census_->allAsleepNanos();
      paused = static_cast<double>(asleep - pausedSeen_);
      pausedSeen_ = asleep;
    }
    moves =
        balance::plan(reports, core_.isolateCount(), static_cast<double>(options_.period.count()),
                      options_, memory_, nullptr, paused);
    // What it keeps of an actor lasts long past its cooldown, then goes.
    memory_.forgetOlderThan(std::uint64_t{100} * (options_.cooldownPeriods + 1));
    undone_.store(memory_.undone, std::memory_order_relaxed);
    if (!moves.empty()) {
      const char* step = !memory_.trial                                                ? "none"
                         : memory_.trial->kind == balance::Memory::Trial::Kind::Undo   ? "undo"
                         : memory_.trial->kind == balance::Memory::Trial::Kind::Gather ? "gather"
                                                                                       : "spread";
      core_.log().debug("balancer period {}: {} moves ({}), {} steps kept, {} undone",
                        memory_.round, moves.size(), step, memory_.kept, memory_.undone);
    }
  }
  rounds_.fetch_add(1, std::memory_order_relaxed);
  for (const balance::Move& m : moves) {
    try {
      core_.moves().move(core_.makeRef(m.actor), m.to, [this, m](std::error_code error) {
        if (!error) {
          moves_.fetch_add(1, std::memory_order_relaxed);
          core_.runtime(m.to).counts.balancerMoves.fetch_add(1, std::memory_order_relaxed);
        } else if (error == Error::ErrNotMovable || error == Error::ErrDead) {
          std::lock_guard<std::mutex> lock(mutex_);
          unmovable_.push_back(m.actor);
        }
      });
    } catch (const std::system_error&) {
      return;  // the system is stopping
    }
  }
}

}  // namespace coreactor::detail
