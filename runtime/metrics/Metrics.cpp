// The system's metrics (coreactor/Metrics.hpp): each isolate's figures read
// on its own loop, gathered into one snapshot, and the Prometheus text of a
// snapshot. The HTTP endpoint that serves that text is MetricsEndpoint.cpp.
// The system's side of them is SystemMetrics (SystemMetrics.hpp), defined
// here with what else the system reports: the transport's counters and the
// errors of dispatchers.
//
// The counters are written by their isolate's thread only (IsolateRuntime::
// Counts, Isolate::Stats, the link's stats), so a snapshot reads each
// isolate's on that isolate: a task posted to every loop, the last of which
// hands the snapshot over. A manual system's driving thread owns every loop
// and reads them all at once.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <future>
#include <mutex>
#include <string>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Metrics.hpp"
#include "runtime/PostedWork.hpp"
#include "runtime/SystemCore.hpp"
#include "runtime/metrics/MetricsEndpoint.hpp"

namespace coreactor {
namespace detail {
namespace {

// The figures of one isolate, on its own loop (or the thread driving it).
void readIsolate(IsolateRuntime& rt, IsolateMetrics& m, std::vector<MailboxHighWater>& marks) {
  const Isolate::Stats& loop = rt.isolate->stats();
  m.isolate = rt.index;
  m.iterations = loop.iterations;
  m.macrotasks = loop.macrotasks;
  m.microtasks = loop.microtasks;
  m.timersFired = loop.timersFired;
  m.sleeps = loop.sleeps;
  m.macrotaskQueueDepth = rt.isolate->macrotaskQueueDepth();
  m.microtaskQueueDepth = rt.isolate->microtaskQueueDepth();
  m.timerLagSumNanos = loop.timerLagSumNanos;
  m.timerLagMaxNanos = loop.timerLagMaxNanos;
  m.turns = rt.counts.turns;
  m.messages = rt.counts.messages;
  m.hybridYields = rt.dispatcher != nullptr ? rt.dispatcher->yieldCount() : 0;
  m.liveActors = rt.counts.liveActors.load(std::memory_order_relaxed);
  m.liveSchedules = rt.scheduler->live();
  m.deadLetters = rt.counts.deadLetters.load(std::memory_order_relaxed);
  const auto& link = rt.link->stats();
  m.crossingsSent = link.sent.load(std::memory_order_relaxed);
  m.crossingsReceived = link.received.load(std::memory_order_relaxed);
  m.crossingsRefused = link.refused.load(std::memory_order_relaxed);
  m.inboxDepth = rt.foreign->sizeApprox();
  m.movesIn = rt.counts.movesIn.load(std::memory_order_relaxed);
  m.forwarded = rt.counts.forwarded.load(std::memory_order_relaxed);
  m.routes = rt.counts.routes.load(std::memory_order_relaxed);
  m.balancerMoves = rt.counts.balancerMoves.load(std::memory_order_relaxed);
  m.poolsGrown = rt.counts.poolsGrown.load(std::memory_order_relaxed);
  m.poolsShrunk = rt.counts.poolsShrunk.load(std::memory_order_relaxed);
  m.busyPermille = rt.counts.busyPermille.load(std::memory_order_relaxed);
  for (const ActorCell* cell : rt.watchedMailboxes) {
    marks.push_back(
        MailboxHighWater{cell->self(), std::string(cell->path()), CellTurn::depthMark(*cell)});
  }
}

// One snapshot being gathered: each isolate puts its part; the last one
// hands the whole over.
struct Gathering {
  std::mutex mutex;
  MetricsSnapshot snapshot;
  std::size_t left = 0;
  std::function<void(MetricsSnapshot)> done;

  void put(const IsolateMetrics& m, std::vector<MailboxHighWater>&& marks) {
    std::unique_lock<std::mutex> lock(mutex);
    snapshot.isolates[m.isolate] = m;
    for (MailboxHighWater& mark : marks) snapshot.mailboxes.push_back(std::move(mark));
    if (--left != 0) return;
    lock.unlock();
    std::sort(snapshot.mailboxes.begin(), snapshot.mailboxes.end(),
              [](const MailboxHighWater& a, const MailboxHighWater& b) { return a.path < b.path; });
    done(std::move(snapshot));
  }
};

// Reads one isolate on its loop. An isolate that stopped before it ran
// reports its index and zeros: its counters are no longer read anywhere.
struct ReadIsolate {
  std::shared_ptr<Gathering> gathering;
  IsolateRuntime* rt;
  void run() {
    IsolateMetrics m;
    std::vector<MailboxHighWater> marks;
    readIsolate(*rt, m, marks);
    gathering->put(m, std::move(marks));
  }
  void discard() noexcept {
    try {
      IsolateMetrics m;
      m.isolate = rt->index;
      gathering->put(m, {});
    } catch (...) {
      // The callback threw or memory ran out: nothing else to tell.
    }
  }
};

}  // namespace

void SystemMetrics::collectMetrics(std::function<void(MetricsSnapshot)> done) {
  auto gathering = std::make_shared<Gathering>();
  gathering->snapshot.system = core_.name();
  gathering->snapshot.isolates.resize(core_.isolates_.size());
  gathering->left = core_.isolates_.size();
  gathering->done = std::move(done);
  if (core_.drivenHere()) {
    for (auto& rt : core_.isolates_) ReadIsolate{gathering, rt.get()}.run();
    return;
  }
  for (auto& rt : core_.isolates_) postOrDiscard(*rt->isolate, ReadIsolate{gathering, rt.get()});
}

std::uint16_t SystemMetrics::metricsEndpointPort() const noexcept {
  return endpoint_ != nullptr ? endpoint_->port() : 0;
}

void SystemMetrics::openEndpoint() {
  const ActorSystemOptions& options = core_.options();
  if (const auto& port = options.metricsPort()) {
    endpoint_ = std::make_shared<MetricsEndpoint>(core_, *core_.isolates_.front()->isolate,
                                                  options.metricsAddress(), *port);
  }
}

void SystemMetrics::closeEndpoint() noexcept {
  endpoint_.reset();
}

// ---- the transport's counters ------------------------------------------------------

TransportStats SystemMetrics::transportStats() const noexcept {
  TransportStats stats;
  for (const auto& rt : core_.isolates_) {
    const Link::Stats& c = rt->link->stats();
    stats.crossings += c.sent.load(std::memory_order_relaxed);
    stats.overflowed += c.overflowed.load(std::memory_order_relaxed);
    stats.refused += c.refused.load(std::memory_order_relaxed);
    stats.ringsGrown += c.grown.load(std::memory_order_relaxed);
    stats.ringsShrunk += c.shrunk.load(std::memory_order_relaxed);
  }
  for (const auto& rt : core_.isolates_) {
    stats.moves += rt->counts.movesIn.load(std::memory_order_relaxed);
    stats.forwarded += rt->counts.forwarded.load(std::memory_order_relaxed);
    stats.routes += rt->counts.routes.load(std::memory_order_relaxed);
  }
  if (core_.balancer_ != nullptr) {
    stats.balancerRounds = core_.balancer_->rounds();
    stats.balancerMoves = core_.balancer_->moves();
    stats.balancerUndone = core_.balancer_->undone();
  }
  stats.foreignBlocked = core_.delivery().foreignBlockedCount();
  return stats;
}

// ---- the errors of dispatchers -----------------------------------------------------

ErrorSink SystemMetrics::dispatcherSink() {
  return [this](std::exception_ptr error, std::string_view dispatcherId) {
    reportDispatcherError(dispatcherId, std::move(error), ActorRef());
  };
}

void SystemMetrics::reportDispatcherError(std::string_view dispatcherId, std::exception_ptr cause,
                                          const ActorRef& actor) noexcept {
  try {
    core_.log().error("dispatcher '{}' lost a unit of work{}: {}", dispatcherId,
                      actor ? " of " + core_.spawns().pathOf(actor) : std::string(),
                      describe(cause));
    core_.events().publish(DispatcherError{std::string(dispatcherId), cause, actor});
  } catch (...) {
    std::fprintf(stderr, "[coreactor] dispatcher '%.*s': %s (and reporting it failed)\n",
                 static_cast<int>(dispatcherId.size()), dispatcherId.data(),
                 describe(cause).c_str());
  }
}

}  // namespace detail

// ---- the snapshot ------------------------------------------------------------------

namespace {

// Every figure of IsolateMetrics once: how the total combines it and how the
// text format names it. A figure in nanoseconds is exported in seconds.
struct Figure {
  std::uint64_t IsolateMetrics::*field;
  const char* name;  // after "coreactor_"
  const char* type;  // counter or gauge
  const char* help;
  bool nanoseconds = false;
  bool largest = false;  // the total keeps the largest, not the sum
};

using M = IsolateMetrics;
const Figure kFigures[] = {
    {&M::iterations, "loop_iterations_total", "counter", "Loop iterations."},
    {&M::macrotasks, "macrotasks_total", "counter", "Macrotasks run (an actor's turn is one)."},
    {&M::microtasks, "microtasks_total", "counter", "Microtasks run."},
    {&M::timersFired, "timers_fired_total", "counter", "Timer callbacks run."},
    {&M::sleeps, "loop_sleeps_total", "counter", "Times the loop blocked waiting for work."},
    {&M::macrotaskQueueDepth, "macrotask_queue_depth", "gauge", "Macrotasks waiting."},
    {&M::microtaskQueueDepth, "microtask_queue_depth", "gauge", "Microtasks waiting."},
    {&M::timerLagSumNanos, "timer_lag_seconds_total", "counter",
     "How late fired timers ran after their deadlines, summed.", true},
    {&M::timerLagMaxNanos, "timer_lag_max_seconds", "gauge",
     "The latest a timer has run after its deadline.", true, true},
    {&M::turns, "turns_total", "counter", "Actor turns run."},
    {&M::messages, "messages_total", "counter", "User messages actors took from their mailboxes."},
    {&M::hybridYields, "hybrid_yields_total", "counter",
     "Yields of the default dispatcher to the loop."},
    {&M::liveActors, "live_actors", "gauge", "Actors alive, system actors included."},
    {&M::liveSchedules, "live_schedules", "gauge", "User schedules held."},
    {&M::deadLetters, "dead_letters_total", "counter", "Messages that became dead letters."},
    {&M::crossingsSent, "crossings_sent_total", "counter", "Messages sent to other isolates."},
    {&M::crossingsReceived, "crossings_received_total", "counter",
     "Messages taken from other isolates."},
    {&M::crossingsRefused, "crossings_refused_total", "counter",
     "Messages to other isolates refused at the bound."},
    {&M::inboxDepth, "inbox_depth", "gauge", "Letters from other threads waiting."},
    {&M::movesIn, "moves_in_total", "counter", "Actors that arrived here by a move."},
    {&M::forwarded, "forwarded_total", "counter",
     "Messages an entry a moved actor left here sent on."},
    {&M::routes, "routes", "gauge",
     "Routes this isolate keeps to actors that moved (entries of their own)."},
    {&M::balancerMoves, "balancer_moves_total", "counter",
     "Moves ordered by the balancer that arrived here."},
    {&M::busyPermille, "balancer_busy_permille", "gauge",
     "Share of the last balancer period spent in handlers, in thousandths (sampled)."},
    {&M::poolsGrown, "router_pools_grown_total", "counter",
     "Resizer decisions to grow a pool whose router's head is here."},
    {&M::poolsShrunk, "router_pools_shrunk_total", "counter",
     "Resizer decisions to shrink a pool whose router's head is here."},
};

}  // namespace

IsolateMetrics MetricsSnapshot::total() const {
  IsolateMetrics t;
  for (const IsolateMetrics& m : isolates) {
    for (const Figure& f : kFigures) {
      t.*f.field = f.largest ? std::max(t.*f.field, m.*f.field) : t.*f.field + m.*f.field;
    }
  }
  return t;
}

namespace {

// A label value as the text format wants it: backslash, quote and newline escaped.
std::string escaped(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string MetricsSnapshot::prometheusText() const {
  const std::string systemLabel = "system=\"" + escaped(system) + "\"";
  std::string out;
  out.reserve(4096);
  char number[64];
  for (const Figure& f : kFigures) {
    out += "# HELP coreactor_";
    out += f.name;
    out += ' ';
    out += f.help;
    out += "\n# TYPE coreactor_";
    out += f.name;
    out += ' ';
    out += f.type;
    out += '\n';
    for (const IsolateMetrics& m : isolates) {
      const auto value = static_cast<double>(m.*f.field);
      std::snprintf(number, sizeof number, "%.17g", f.nanoseconds ? value * 1e-9 : value);
      out += "coreactor_";
      out += f.name;
      out += '{' + systemLabel + ",isolate=\"" + std::to_string(m.isolate) + "\"} ";
      out += number;
      out += '\n';
    }
  }
  if (!mailboxes.empty()) {
    out +=
        "# HELP coreactor_mailbox_high_water The deepest an actor's mailbox has been at the "
        "start of a turn.\n# TYPE coreactor_mailbox_high_water gauge\n";
    for (const MailboxHighWater& mark : mailboxes) {
      out += "coreactor_mailbox_high_water{" + systemLabel + ",actor=\"" + escaped(mark.path) +
             "\"} " + std::to_string(mark.depth) + '\n';
    }
  }
  return out;
}

// ---- the system's calls --------------------------------------------------------------

MetricsSnapshot ActorSystem::metrics() {
  if (core_->onOwnIsolate()) {
    throwError(Error::ErrWouldDeadlock,
               "metrics() waits for every isolate, this one included: on one of the system's "
               "loops, use metrics(callback)");
  }
  if (core_->options().manualRun() && !core_->drivenHere()) {
    throwError(Error::ErrWouldDeadlock,
               "metrics() of a manual system reads its loops: call it on the thread that "
               "drives them");
  }
  std::promise<MetricsSnapshot> promise;
  std::future<MetricsSnapshot> future = promise.get_future();
  core_->metrics().collectMetrics(
      [&promise](MetricsSnapshot s) { promise.set_value(std::move(s)); });
  return future.get();
}

void ActorSystem::metrics(std::function<void(MetricsSnapshot)> done) {
  if (!done) throwError(Error::ErrInvalidOption, "metrics(callback) with an empty callback");
  core_->metrics().collectMetrics(std::move(done));
}

}  // namespace coreactor
