// bench/dispatch/DispatchBench.cpp — what handing one unit of work to the loop costs on
// each built-in dispatcher, measured against the two floors beneath them.
//
// The families, and what one "op" is in each:
//   floor/ring           one 16-byte {fn, arg} entry pushed on a ring, popped and
//                        called indirectly, on one thread, as a chain (the callee
//                        pushes the next entry): the least any task queue costs.
//   floor/asio-post      one Boost.Asio hop: a handler asio::post()s the next on
//                        an io_context(1); what our loop costs if it were plain Asio.
//   hop/<dispatcher>     one turn of a Task that re-executes itself through
//                        `Dispatcher&` (a virtual call, as an actor cell makes):
//                        scheduling alone, with no message work at all.
//   volley/<dispatcher>  one round trip of the seeds' request/response volley
//                        (A executes B, B executes A: two hops), 10,000 per run.
//   <d>/backlog/<N>      one unit of N distinct tasks that a single macrotask
//                        executes at once before the loop runs them. A flat
//                        figure across N is the O(1)-per-unit claim of the hybrid
//                        (HybridDispatcher.hpp); immediate is the reference row.
//   lateness/<dispatcher> not a cost per op but the other side of it: how late
//                        a repeating 100 µs timer fires (median, µs) on an
//                        isolate kept busy by a volley under that dispatcher.
//                        A dispatcher that never yields to the loop buys its
//                        volley speed with timers that wait (volley/* beside
//                        lateness/* is the first chart of coreactor-bench).
//
// How to read the figures: each benchmark reports the counter `ns_per_op`, the
// measured time divided by the ops that *actually ran* (bench/harness/BenchSupport.hpp).
// The tasks count their own runs and the count is checked against what was
// asked after every iteration; a mismatch (or a throw) fails the benchmark with
// SkipWithError instead of producing a figure. Time is taken by hand around the
// work only (UseManualTime): building the isolate, the dispatcher and the tasks
// is never in a figure. Google Benchmark's own "Time" column is per iteration
// (a whole chain), not per op. bench/harness/main.cpp turns the medians into the target
// ratios.
//
// Each benchmark function builds a fresh Isolate and dispatcher (bound to that
// isolate), so no run inherits another's queues or counters.
#include "dispatch/DispatchBench.hpp"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "harness/BenchSupport.hpp"
#include "harness/RingFloor.hpp"
#include "coreactor/Asio.hpp"
#include "coreactor/Dispatchers.hpp"
#include "coreactor/Isolate.hpp"
#include "coreactor/Task.hpp"

namespace coreactor::bench {
namespace {

// Hops per iteration of floor/* and hop/*: enough that entering and leaving
// the loop (post + runUntilIdle of one no-op task: ~0.1 µs here) is lost in
// the noise, short enough that an iteration of the slowest dispatcher stays
// in the milliseconds.
constexpr std::int64_t kHops = 100'000;
// The seeds' volley: "Measured on a 10 000-exchange request/response volley".
constexpr std::int64_t kVolleyRoundTrips = 10'000;

// ---- floor/ring ------------------------------------------------------------------

void floorRing(benchmark::State& state) {
  FloorRing ring;
  OpMeter meter;
  for (auto _ : state) {
    const bool ok =
        meter.measure(state, "ring calls", kHops, [&] { return runFloorChain(ring, kHops); });
    if (!ok) break;
  }
  meter.report(state);
}

// ---- floor/asio-post -------------------------------------------------------------

struct AsioChain {
  boost::asio::io_context* io;
  std::int64_t ran;
  std::int64_t target;
};

struct AsioHop {
  AsioChain* chain;
  void operator()() const {
    if (++chain->ran < chain->target) boost::asio::post(*chain->io, AsioHop{chain});
  }
};

void floorAsioPost(benchmark::State& state) {
  // Concurrency hint 1, as the isolate's own io_context: one thread runs it.
  boost::asio::io_context io(1);
  AsioChain chain{&io, 0, kHops};
  OpMeter meter;
  for (auto _ : state) {
    chain.ran = 0;
    io.restart();  // run() returned last time because it ran out of work
    const bool ok = meter.measure(state, "asio handlers", kHops, [&] {
      boost::asio::post(io, AsioHop{&chain});
      io.run();
      return chain.ran;
    });
    if (!ok) break;
  }
  meter.report(state);
}

// ---- an isolate and one dispatcher -------------------------------------------------

using DispatcherFactory = std::unique_ptr<Dispatcher> (*)();

struct DispatcherKind {
  const char* name;
  DispatcherFactory make;
};

// The public factories, with the settings the targets are stated for.
constexpr DispatcherKind kDispatchers[] = {
    {"microtask", [] { return Dispatchers::Microtask(); }},
    {"immediate", [] { return Dispatchers::Immediate(); }},
    {"hybrid", [] { return Dispatchers::Hybrid(64); }},
    {"throughput", [] { return Dispatchers::Throughput(16); }},
};

const DispatcherKind& kindNamed(std::string_view name) {
  for (const DispatcherKind& kind : kDispatchers) {
    if (name == kind.name) return kind;
  }
  std::abort();  // a typo in registerDispatchBenchmarks
}

/// A fresh isolate and a dispatcher bound to it. The dispatcher is declared
/// second so that it goes first: it may hand leftovers back to its isolate.
struct Loop {
  explicit Loop(DispatcherFactory make, const char* name)
      : isolate(optionsNamed(name)), dispatcher(make()) {
    dispatcher->bind(isolate);
  }
  static IsolateOptions optionsNamed(const char* name) {
    IsolateOptions options;
    options.name = name;
    return options;
  }

  Isolate isolate;
  std::unique_ptr<Dispatcher> dispatcher;
};

// ---- hop/<dispatcher> --------------------------------------------------------------

/// An actor cell's turn reduced to its scheduling: a Task that hands itself
/// back to its dispatcher, through the virtual `Dispatcher&`, until it has
/// run `target` times.
struct HopTask final : Task {
  HopTask(Dispatcher& dispatcher, std::int64_t target)
      : Task(&step), dispatcher(&dispatcher), target(target) {}

  static void step(Task& task) {
    HopTask& self = static_cast<HopTask&>(task);
    if (++self.ran < self.target) self.dispatcher->execute(static_cast<Task&>(self));
  }

  Dispatcher* dispatcher;
  std::int64_t target;
  std::int64_t ran = 0;
};

void hop(benchmark::State& state, DispatcherFactory make) {
  Loop loop(make, "bench-hop");
  HopTask task(*loop.dispatcher, kHops);
  OpMeter meter;
  for (auto _ : state) {
    task.ran = 0;
    // The first run is the post; the other kHops - 1 are dispatcher hops.
    const bool ok = meter.measure(state, "task runs", kHops, [&] {
      loop.isolate.post(task, loop.dispatcher.get());
      loop.isolate.runUntilIdle();
      return task.ran;
    });
    if (!ok) break;
  }
  meter.report(state);
}

// ---- volley/<dispatcher> -----------------------------------------------------------

/// The seeds' request/response volley: the requester executes the responder,
/// which counts the round trip and executes the requester again, until
/// `target` round trips. Both sides go through the same dispatcher, as two
/// actors of one system do.
class Volley {
 public:
  Volley(Dispatcher& dispatcher, std::int64_t target)
      : dispatcher_(&dispatcher),
        limit_(target),
        target_(target),
        requester_(&request, *this),
        responder_(&respond, *this) {}
  Volley(const Volley&) = delete;
  Volley& operator=(const Volley&) = delete;

  Task& start() {
    requests_ = 0;
    roundTrips_ = 0;
    target_ = limit_;
    return requester_;
  }
  std::int64_t requests() const noexcept { return requests_; }
  std::int64_t roundTrips() const noexcept { return roundTrips_; }
  bool running() const noexcept { return roundTrips_ < target_; }
  /// Ends the volley early: the round trip in flight is its last. (It moves
  /// the target rather than adding a flag, so volley/* pays nothing for it.)
  void finishAfterThisRoundTrip() noexcept { target_ = roundTrips_ + 1; }

 private:
  struct Side final : Task {
    Side(RunFn run, Volley& volley) : Task(run), volley(&volley) {}
    Volley* volley;
  };
  // Each on a cache line of its own, as the runtime's hot functions are:
  // where the link happened to put them moved volley/* by up to a fifth
  // from one build to the next, and the hybrid row against the microtask
  // one with it.
  [[gnu::aligned(64)]] static void request(Task& task) {
    Volley& v = *static_cast<Side&>(task).volley;
    ++v.requests_;
    v.dispatcher_->execute(static_cast<Task&>(v.responder_));
  }
  [[gnu::aligned(64)]] static void respond(Task& task) {
    Volley& v = *static_cast<Side&>(task).volley;
    if (++v.roundTrips_ < v.target_) v.dispatcher_->execute(static_cast<Task&>(v.requester_));
  }

  Dispatcher* dispatcher_;
  std::int64_t limit_;
  std::int64_t target_;
  std::int64_t requests_ = 0;
  std::int64_t roundTrips_ = 0;
  Side requester_;
  Side responder_;
};

void volley(benchmark::State& state, DispatcherFactory make) {
  // On the heap, as a system holds its isolates: on the stack, the
  // kernel's random offset of the stack moved volley/hybrid by up to a
  // fifth from one run of the same binary to the next (with that offset
  // fixed, setarch -R, it read the same every time).
  auto heldLoop = std::make_unique<Loop>(make, "bench-volley");
  Loop& loop = *heldLoop;
  auto heldVolley = std::make_unique<Volley>(*loop.dispatcher, kVolleyRoundTrips);
  Volley& volley = *heldVolley;
  OpMeter meter;
  for (auto _ : state) {
    const bool ok = meter.measure(state, "round trips", kVolleyRoundTrips, [&] {
      loop.isolate.post(volley.start(), loop.dispatcher.get());
      loop.isolate.runUntilIdle();
      return volley.roundTrips();
    });
    // Every round trip needs its request to have run too.
    if (!ok || !checkCompleted(state, "requests", kVolleyRoundTrips, volley.requests())) break;
  }
  meter.report(state);
}

// ---- <dispatcher>/backlog/<N> ------------------------------------------------------

/// One unit of a backlog: a distinct task object that counts its run.
struct CountedUnit final : Task {
  CountedUnit() : Task(&step) {}
  static void step(Task& task) { ++*static_cast<CountedUnit&>(task).ran; }
  std::int64_t* ran = nullptr;
};

/// The macrotask that executes all N units at once, as a burst of spawns or
/// a fan-out would: the hybrid spends its budget on the first 64 and must
/// carry the rest across its yields.
class Backlog final : public Task {
 public:
  Backlog(Dispatcher& dispatcher, std::int64_t units)
      : Task(&handOver),
        dispatcher_(&dispatcher),
        size_(units),
        units_(std::make_unique<CountedUnit[]>(static_cast<std::size_t>(units))) {
    for (std::int64_t i = 0; i < size_; ++i) units_[static_cast<std::size_t>(i)].ran = &ran_;
  }

  std::int64_t ran() const noexcept { return ran_; }
  void reset() noexcept { ran_ = 0; }

 private:
  static void handOver(Task& task) {
    Backlog& self = static_cast<Backlog&>(task);
    for (std::int64_t i = 0; i < self.size_; ++i) {
      self.dispatcher_->execute(static_cast<Task&>(self.units_[static_cast<std::size_t>(i)]));
    }
  }

  Dispatcher* dispatcher_;
  std::int64_t size_;
  std::int64_t ran_ = 0;
  std::unique_ptr<CountedUnit[]> units_;
};

void backlog(benchmark::State& state, DispatcherFactory make, std::int64_t units) {
  Loop loop(make, "bench-backlog");
  Backlog backlog(*loop.dispatcher, units);
  auto pass = [&] {
    backlog.reset();
    loop.isolate.post(backlog, loop.dispatcher.get());
    loop.isolate.runUntilIdle();
    return backlog.ran();
  };
  // One pass off the clock grows the isolate's and the dispatcher's rings to
  // the backlog and faults the units in: the figure is the steady state of a
  // long-lived isolate, not the first allocation of 16 MiB of ring.
  if (!OpMeter::unmeasured(state, "units", units, pass)) return;
  OpMeter meter;
  for (auto _ : state) {
    if (!meter.measure(state, "units", units, pass)) break;
  }
  meter.report(state);
}

// ---- lateness/<dispatcher> ---------------------------------------------------------

// The probe: a timer re-armed every 100 µs (a typical short timeout or tick)
// until it has fired kProbeFires times in one pass. The volley that keeps the
// isolate busy meanwhile is capped, so that a dispatcher that starves the
// timer (microtask: the volley never leaves the microtask queue) still ends:
// the probe then fires once, after the whole capped volley, and its lateness
// is that volley's length (~13 ms at 1M round trips), the row's "starved" figure.
constexpr std::chrono::microseconds kProbePeriod{100};
constexpr std::int64_t kProbeFires = 50;
constexpr std::int64_t kLatenessRoundTripCap = 1'000'000;

/// A repeating timer that records how late each firing is (against its due
/// time, steady_clock) and ends the volley once it has all its firings.
class LatenessProbe final : public Task {
 public:
  using WallClock = std::chrono::steady_clock;

  LatenessProbe(Isolate& isolate, Volley& volley, std::vector<double>& lateness)
      : Task(&fire), isolate_(&isolate), volley_(&volley), lateness_(&lateness) {}

  void start() {
    fires_ = 0;
    arm();
  }
  std::int64_t fires() const noexcept { return fires_; }

 private:
  void arm() {
    due_ = WallClock::now() + kProbePeriod;
    isolate_->setTimeout(kProbePeriod, static_cast<Task&>(*this));
  }
  static void fire(Task& task) {
    LatenessProbe& self = static_cast<LatenessProbe&>(task);
    const WallClock::time_point now = WallClock::now();
    self.lateness_->push_back(std::chrono::duration<double, std::micro>(now - self.due_).count());
    ++self.fires_;
    if (!self.volley_->running()) return;  // the volley hit its cap: the timer was starved
    if (self.fires_ < kProbeFires) {
      self.arm();
    } else {
      self.volley_->finishAfterThisRoundTrip();
    }
  }

  Isolate* isolate_;
  Volley* volley_;
  std::vector<double>* lateness_;
  WallClock::time_point due_{};
  std::int64_t fires_ = 0;
};

void lateness(benchmark::State& state, DispatcherFactory make) {
  Loop loop(make, "bench-lateness");
  Volley volley(*loop.dispatcher, kLatenessRoundTripCap);
  std::vector<double> lateness;
  LatenessProbe probe(loop.isolate, volley, lateness);
  std::int64_t fires = 0;
  std::int64_t passes = 0;
  for (auto _ : state) {
    const LatenessProbe::WallClock::time_point start = LatenessProbe::WallClock::now();
    probe.start();
    loop.isolate.post(volley.start(), loop.dispatcher.get());
    loop.isolate.runUntilIdle();
    state.SetIterationTime(
        std::chrono::duration<double>(LatenessProbe::WallClock::now() - start).count());
    // Completed: every round trip had its request, and the probe took all its
    // firings (it ended the volley) or, when the volley ran to its cap, fired
    // at least once (after it, if the dispatcher starved it).
    const bool capped = volley.roundTrips() == kLatenessRoundTripCap;
    const std::int64_t wanted = capped ? std::max<std::int64_t>(probe.fires(), 1) : kProbeFires;
    if (!checkCompleted(state, "requests", volley.roundTrips(), volley.requests()) ||
        !checkCompleted(state, "probe firings", wanted, probe.fires())) {
      return;
    }
    fires += probe.fires();
    ++passes;
  }
  if (lateness.empty()) return;
  const auto mid = lateness.begin() + static_cast<std::ptrdiff_t>(lateness.size() / 2);
  std::nth_element(lateness.begin(), mid, lateness.end());
  state.counters[kMicrosCounter] = *mid;
  state.counters[kProbeFiresPerPassCounter] =
      static_cast<double>(fires) / static_cast<double>(passes);
}

// ---- iolatency/<dispatcher> -----------------------------------------------------

// The I/O side of the same question: a thread writes its clock into a pipe
// every kProbePeriod; the isolate reads it with Asio (a stream descriptor on
// its io_context) while the volley runs, and records how long each 8 bytes
// waited between the write and the read's completion handler.
class IoProbe {
 public:
  using WallClock = std::chrono::steady_clock;

  IoProbe(Isolate& isolate, Volley& volley, std::vector<double>& latency)
      : isolate_(&isolate), volley_(&volley), latency_(&latency) {}

  /// Opens a fresh pipe (no stale clock from an earlier pass) and starts the
  /// writer and the first read.
  void start() {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe() failed");
    reader_ =
        std::make_unique<boost::asio::posix::stream_descriptor>(isolate_->ioContext(), fds[0]);
    writeEnd_ = fds[1];
    reads_ = 0;
    stop_.store(false);
    writer_ = std::thread([this] {
      while (!stop_.load(std::memory_order_relaxed)) {
        const std::int64_t sent = WallClock::now().time_since_epoch().count();
        if (::write(writeEnd_, &sent, sizeof sent) != sizeof sent) return;
        std::this_thread::sleep_for(kProbePeriod);
      }
    });
    read();
  }
  std::int64_t reads() const noexcept { return reads_; }

 private:
  void read() {
    boost::asio::async_read(*reader_, boost::asio::buffer(&sent_, sizeof sent_),
                            [this](const boost::system::error_code& error, std::size_t) {
                              if (error) return finish();
                              const auto waited =
                                  WallClock::now().time_since_epoch().count() - sent_;
                              latency_->push_back(static_cast<double>(waited) / 1000.0);
                              ++reads_;
                              if (!volley_->running()) return finish();  // starved: after the cap
                              if (reads_ < kProbeFires) return read();
                              volley_->finishAfterThisRoundTrip();
                              finish();
                            });
  }
  void finish() {
    stop_.store(true);
    if (writer_.joinable()) writer_.join();
    ::close(writeEnd_);
    reader_->close();  // no read outstanding: the loop can go idle
  }

  Isolate* isolate_;
  Volley* volley_;
  std::vector<double>* latency_;
  std::unique_ptr<boost::asio::posix::stream_descriptor> reader_;
  int writeEnd_ = -1;
  std::int64_t sent_ = 0;
  std::int64_t reads_ = 0;
  std::atomic<bool> stop_{false};
  std::thread writer_;
};

void ioLatency(benchmark::State& state, DispatcherFactory make) {
  Loop loop(make, "bench-iolatency");
  Volley volley(*loop.dispatcher, kLatenessRoundTripCap);
  std::vector<double> latency;
  IoProbe probe(loop.isolate, volley, latency);
  for (auto _ : state) {
    const IoProbe::WallClock::time_point start = IoProbe::WallClock::now();
    probe.start();
    loop.isolate.post(volley.start(), loop.dispatcher.get());
    loop.isolate.runUntilIdle();
    state.SetIterationTime(
        std::chrono::duration<double>(IoProbe::WallClock::now() - start).count());
    const bool capped = volley.roundTrips() == kLatenessRoundTripCap;
    const std::int64_t wanted = capped ? std::max<std::int64_t>(probe.reads(), 1) : kProbeFires;
    if (!checkCompleted(state, "requests", volley.roundTrips(), volley.requests()) ||
        !checkCompleted(state, "probe reads", wanted, probe.reads())) {
      return;
    }
  }
  if (latency.empty()) return;
  const auto mid = latency.begin() + static_cast<std::ptrdiff_t>(latency.size() / 2);
  std::nth_element(latency.begin(), mid, latency.end());
  state.counters[kMicrosCounter] = *mid;
}

}  // namespace

void registerDispatchBenchmarks() {
  registerTimed(benchmark::RegisterBenchmark("floor/ring", &floorRing));
  registerTimed(benchmark::RegisterBenchmark("floor/asio-post", &floorAsioPost));
  for (const DispatcherKind& kind : kDispatchers) {
    registerTimed(
        benchmark::RegisterBenchmark(("hop/" + std::string(kind.name)).c_str(), &hop, kind.make));
  }
  for (const DispatcherKind& kind : kDispatchers) {
    registerTimed(benchmark::RegisterBenchmark(("volley/" + std::string(kind.name)).c_str(), &volley,
                                           kind.make));
  }
  // The hybrid, whose claim this is, then immediate as the reference rows.
  for (const std::string_view name : {"hybrid", "immediate"}) {
    const DispatcherKind& kind = kindNamed(name);
    for (const std::int64_t units :
         {std::int64_t{1'000}, std::int64_t{100'000}, std::int64_t{1'000'000}}) {
      registerTimed(benchmark::RegisterBenchmark(
          (std::string(name) + "/backlog/" + std::to_string(units)).c_str(), &backlog, kind.make,
          units));
    }
  }
  for (const DispatcherKind& kind : kDispatchers) {
    registerTimed(benchmark::RegisterBenchmark(("lateness/" + std::string(kind.name)).c_str(),
                                           &lateness, kind.make));
  }
  for (const DispatcherKind& kind : kDispatchers) {
    registerTimed(benchmark::RegisterBenchmark(("iolatency/" + std::string(kind.name)).c_str(),
                                           &ioLatency, kind.make));
  }
}

}  // namespace coreactor::bench
