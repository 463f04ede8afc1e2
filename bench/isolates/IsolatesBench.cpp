// bench/isolates/IsolatesBench.cpp — what crossing from one isolate to another costs,
// measured against the raw floors of two threads on two CPUs, in the same
// binary and the same run. Its length is that pairing: each row sits beside
// the floor it is read against and the round helpers they share, so a row
// cannot drift from its floor.
//
// The families, and what one "op" is in each:
//   floor/spsc-bulk        one 8-byte item through boost::lockfree::spsc_queue
//                          (1024 slots) from one thread to another: pushed one
//                          by one, popped 256 at a time; 1M per round.
//   floor/busy-poll-rtt    one round trip of two threads ping-ponging one
//                          atomic word, each busy-polling for its turn.
//   floor/eventfd-rtt      one round trip of two threads through two eventfds
//                          (blocking read, write): two wake-ups of a sleeper.
//   isolates/transport/8B  one item through our transport::SpscRing from one
//   isolates/transport/word thread to another, consumed 256 at a time
//   isolates/transport/64B (Crossings::kBatch), no actors. 8B: an 8-byte item
//                          in a ring of 1024 16-byte cells (like for like with
//                          floor/spsc-bulk; 1M per round). word and 64B: the
//                          runtime's ring (1024 lines, the default; 2048
//                          32-byte cells): a word crossing (a sender's id, a
//                          type and a value: one cell, half a line; 1M per
//                          round), and a crossing laid out as the runtime's
//                          Crossing (a sender's id and a Message: two cells,
//                          one line; 250k per round), moved in and out as the
//                          runtime does; the target's id is in the mark. With
//                          two CPUs each round is paired, off the clock, with
//                          a round of floor/spsc-bulk (transportRows).
//   isolates/tell/cross    one tell of a burst of 100,000 small messages from an
//   isolates/tell/same     actor on isolate 0 to one on isolate 1 (cross) or on
//                          isolate 0 (same), in a system of two isolates: from
//                          the first send until the receiver has handled all.
//   isolates/pingpong/busy one round trip between an actor on isolate 0 and one
//   isolates/pingpong/idle on isolate 1, nothing else running. Busy: each
//                          message finds its isolate awake, looking for work
//                          in its idle poll window (the system's default,
//                          ActorSystemOptions::withIdlePoll), as the floor's
//                          threads spin; idle: the window is off, so each
//                          isolate sleeps between messages and every message
//                          wakes one, as the floor's threads block.
//   isolates/pingpong/wide the busy round trip with messages of 24 bytes,
//                          which cross as whole Messages, not as words.
//   isolates/pingpong/loaded  the busy round trip while an actor on each
//                          isolate keeps telling itself a message, so each
//                          message waits for the unit in progress.
//   isolates/idle-cpu      not a cost per op: the process's CPU time while a
//                          system of one isolate per CPU (at least two) sits
//                          idle, after a cross-isolate exchange, over 1 s of
//                          wall time (0.1 s with --quick), in % of one core.
//   isolates/scaling/<n>   one round trip, aggregate: n isolates, each running
//                          its own ping-pong pair (both actors on it), all at
//                          once; total time over total round trips. n = 1..N,
//                          N the CPUs this process may use (at least 2; past 8,
//                          powers of two and N).
//   isolates/ask/foreign   not a mean: the median latency of one ask from the
//                          benchmark's thread (no isolate) to an actor on an
//                          isolate, one at a time; the 99th percentile beside it.
//   isolates/memory/<n>    not a time: the bytes malloc hands out per isolate
//                          for an idle threaded system of n isolates (256,
//                          1024, 4096; no actor but the guardian); beside it,
//                          what each of 16 ordered pairs that then exchange
//                          one message adds (its ring, mostly), and the
//                          transport's own count of both
//                          (Crossings::bytesReserved). malloc's count, not
//                          RSS: a heap that earlier rows (or the warm-up
//                          run) grew and freed serves these systems from
//                          pages already resident. For RSS, run one row
//                          alone under /usr/bin/time (docs/isolates.md). One
//                          repetition: the count is the same each time.
//
// Pinning. When the process may run on at least two CPUs, every two-sided
// row puts its two sides on the first two of them (pthread_setaffinity_np):
// the floors' threads pin themselves; an isolate is pinned by an actor on it,
// which pins the thread its turn runs on (the runtime pins nothing itself);
// isolates/ask/foreign pins its isolate to the second CPU and the benchmark's
// thread, for that row only, to the first. Isolate k of a row goes to CPU k.
// On one CPU nothing is pinned: both sides time-share it, the rows still run
// and are verified, and their descriptions say "unpinned"; the figures are
// then not crossings and the targets built on them mean nothing.
//
// Completion: every row counts what was actually handled, in order (each item
// carries its sequence number; the receiver counts the ones that arrive where
// they should), and the count is checked against what was asked; a mismatch,
// a throw or a round still unfinished after 30 s fails the row. Where the
// work runs on other threads, the side that finishes takes the time there
// (OpMeter::measureTimed): from the first send (or push) to the last one's
// handling. Building systems, threads and actors is off the clock.
// One file for the whole isolates/* family: its rows share the floors, the
// rallies and the pairing machinery defined here, hence its length.
#include "isolates/IsolatesBench.hpp"

#include <benchmark/benchmark.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <concurrentqueue/concurrentqueue.h>
#include <algorithm>
#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/BenchSupport.hpp"
#include "harness/MemoryProbe.hpp"
#include "harness/Results.hpp"
#include "harness/Workloads.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Feeder.hpp"
#include "coreactor/detail/CpuRelax.hpp"
#include "runtime/SystemCore.hpp"
#include "transport/SpscRing.hpp"

namespace coreactor::bench {
namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;
using Timed = OpMeter::Timed;

// ---- the sizes --------------------------------------------------------------------
// Each round is a few milliseconds, so that Google Benchmark's --quick time
// (0.05 s a repetition) still averages several of them.

/// floor/spsc-bulk and isolates/transport/8B: items per round.
constexpr std::int64_t kBulkItems = 1'000'000;
/// isolates/transport/64B: fewer, as each moves 8 times the bytes (every
/// count here is far above the ring's, so the figure per item does not
/// depend on it).
constexpr std::int64_t kBulkCrossings = 250'000;
/// Both rings' slots: the runtime's default ring between two isolates
/// (ActorSystemOptions::withCrossIsolateBuffer).
constexpr std::size_t kRingSlots = 1024;
/// What a consumer takes at once: transport::Link::kBatch, per peer and loop iteration.
constexpr std::size_t kConsumeBatch = 256;
/// floor/busy-poll-rtt: round trips per round (~1 us each between the two
/// vCPUs of this machine kind).
constexpr std::int64_t kBusyRoundTrips = 10'000;
/// isolates/pingpong/busy: round trips per round (about a microsecond each).
constexpr std::int64_t kAwakePingPongRoundTrips = 10'000;
/// isolates/pingpong/loaded: round trips per round. Fewer: each waits for
/// the unit in progress on the other loop, a microsecond or two; on one CPU,
/// for the scheduler's time slice (~12 ms a round trip here), and so does
/// the busy one.
constexpr std::int64_t kLoadedPingPongRoundTrips = 200;
constexpr std::int64_t kBusyPingPongRoundTripsOnOneCpu = 10;
/// floor/eventfd-rtt and isolates/pingpong/idle: round trips per round
/// (~25 us each: every message wakes a halted vCPU).
constexpr std::int64_t kWakeRoundTrips = 200;
/// isolates/tell/*: the burst, ten times the ring, so that the crossing's
/// overflow list is part of the figure as it is of a real burst.
constexpr std::int64_t kBurst = 100'000;
/// isolates/scaling/<n>: each pair plays from the start of a round; its
/// round trips are counted over a window that opens after the warm-up, when
/// every pair plays (about a million round trips a pair in 20 ms).
constexpr auto kScalingWarmUp = 2ms;
constexpr auto kScalingWindow = 20ms;
/// isolates/scaling/<n>: every n up to this many CPUs, then powers of two.
constexpr std::size_t kEveryIsolateCountUpTo = 8;
/// isolates/idle-cpu: the exchange that makes the rings before the system
/// goes idle, the settling time, and the window.
constexpr std::int64_t kWarmRoundTrips = 100;
constexpr auto kSettle = 100ms;
constexpr auto kWindow = 1s;
constexpr auto kQuickSettle = 50ms;
constexpr auto kQuickWindow = 100ms;
using workloads::kForeignAsks;
/// floor/moodycamel-bulk and isolates/foreign/*: messages per round, the
/// batch a producer thread that is no isolate hands over.
constexpr std::int64_t kForeignBatch = 10'000;
/// isolates/memory/<n>: the system sizes, and the ordered pairs that talk
/// (isolate 2i to 2i + 1).
constexpr std::size_t kMemoryIsolates[] = {256, 1024, 4096};
constexpr std::size_t kMemoryPairs = 16;
/// Every ask's deadline, and how long a round may take before it fails.
constexpr auto kGiveUp = 30s;

// ---- pinning -------------------------------------------------------------------------

/// The CPUs this process may run on, read once (at registration, before any
/// row pins a thread: a pinned thread's children inherit its mask).
const std::vector<int>& allowedCpus() {
  static const std::vector<int> cpus = [] {
    std::vector<int> ids;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &set)) ids.push_back(cpu);
      }
    }
    return ids;
  }();
  return cpus;
}

bool pinning() {
  return allowedCpus().size() >= 2;
}

/// The CPU of side (or isolate) `k` of a row.
int cpuFor(std::size_t k) {
  const std::vector<int>& cpus = allowedCpus();
  return cpus[k % cpus.size()];
}

bool pinCurrentThread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

/// Pins the calling thread to one CPU for as long as it lives, then gives
/// the thread its mask back.
class ScopedPin {
 public:
  explicit ScopedPin(int cpu) {
    CPU_ZERO(&saved_);
    savedOk_ = pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) == 0;
    if (!pinCurrentThread(cpu)) throw std::system_error(errno, std::generic_category(), "pin");
  }
  ~ScopedPin() {
    if (savedOk_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
  }
  ScopedPin(const ScopedPin&) = delete;
  ScopedPin& operator=(const ScopedPin&) = delete;

 private:
  cpu_set_t saved_;
  bool savedOk_ = false;
};

// ---- two threads ------------------------------------------------------------------

using detail::cpuRelax;

/// A busy-wait step: a pause each time, and a yield every 1024 steps, so that
/// two spinning threads sharing one CPU still make progress (with two CPUs
/// the other side is running and the yield returns at once). wait() is false
/// once the deadline has passed: the caller gives up, and its count says so.
class Spinner {
 public:
  explicit Spinner(Steady::time_point deadline) : deadline_(deadline) {}
  bool wait() noexcept {
    cpuRelax();
    if ((++spins_ & 1023) != 0) return true;
    std::this_thread::yield();
    return Steady::now() < deadline_;
  }

 private:
  Steady::time_point deadline_;
  std::uint64_t spins_ = 0;
};

/// Runs `first` and `second` on two new threads, each pinned to its CPU
/// (cpuFor(0), cpuFor(1)) when pinning() holds, and lets them go together
/// once both are in place; returns when both have returned. Throws if a
/// thread could not be pinned (after both ran: the figure would lie).
template <class First, class Second>
void runPair(First&& first, Second&& second) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> unpinned{false};
  const auto side = [&](std::size_t k, auto& body) {
    if (pinning() && !pinCurrentThread(cpuFor(k))) unpinned.store(true);
    ready.fetch_add(1, std::memory_order_acq_rel);
    Spinner spin(Steady::now() + kGiveUp);
    while (!go.load(std::memory_order_acquire) && spin.wait()) {
    }
    body();
  };
  std::thread a([&] { side(0, first); });
  std::thread b([&] { side(1, second); });
  while (ready.load(std::memory_order_acquire) < 2) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  a.join();
  b.join();
  if (unpinned.load()) throw std::runtime_error("could not pin a thread to its CPU");
}

/// One writer's counter that others may read: a plain load and store, no
/// locked instruction on the measured path.
inline void bump(std::atomic<std::int64_t>& counter) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

/// A row whose every round is one call of `round` (a Timed: what ran and how
/// long, taken on the side that finished): runs, checks and reports them.
template <class Round>
void rounds(benchmark::State& state, const char* what, std::int64_t perRound, Round round) {
  OpMeter meter;
  for (auto _ : state) {
    if (!meter.measureTimed(state, what, perRound, round)) break;
  }
  meter.report(state);
}

// ---- floor/spsc-bulk --------------------------------------------------------------

Timed spscFloorRound() {
  boost::lockfree::spsc_queue<std::uint64_t> queue(kRingSlots);
  Steady::time_point start{};
  Steady::time_point end{};
  std::int64_t inOrder = 0;
  const Steady::time_point deadline = Steady::now() + kGiveUp;
  runPair(
      [&] {
        Spinner spin(deadline);
        start = Steady::now();
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(kBulkItems); ++i) {
          while (!queue.push(i)) {
            if (!spin.wait()) return;
          }
        }
      },
      [&] {
        Spinner spin(deadline);
        std::uint64_t batch[kConsumeBatch];
        std::uint64_t next = 0;
        while (next < static_cast<std::uint64_t>(kBulkItems)) {
          const std::size_t n = queue.pop(batch, kConsumeBatch);
          if (n == 0 && !spin.wait()) break;
          for (std::size_t i = 0; i < n; ++i, ++next) inOrder += batch[i] == next ? 1 : 0;
        }
        end = Steady::now();
      });
  return {inOrder, end - start};
}

// ---- isolates/transport/* ---------------------------------------------------------

struct Seq {
  std::uint64_t n;
};

/// The runtime's Crossing (runtime/SystemCore.hpp: the sender's id and a
/// Message; the target's id is the cell's key), rebuilt from the public
/// types so that the bench needs no private header: with the first cell's
/// mark the same 64 bytes, the same Message moves.
struct Crossing64 {
  std::uint64_t sender = 0;
  Message message;
};
static_assert(sizeof(Crossing64) + sizeof(std::uint64_t) == 64,
              "the element the runtime's rings carry fills a line with its mark");
/// The runtime's WordCrossing: the sender's id, the type and the value of a
/// word; with its cell's mark, half a line.
struct Word24 {
  std::uint64_t sender = 0;
  const void* type = nullptr;
  std::uint64_t word = 0;
};
static_assert(sizeof(Word24) + sizeof(std::uint64_t) == 32, "a word fills a 32-byte cell");

/// What one row of isolates/transport/* moves, and through which ring.
/// Eight bytes: a ring of small items only (16-byte cells), like for like
/// with floor/spsc-bulk. A word and a crossing: the runtime's ring, words
/// as small items and crossings as big ones (a line).
template <class T>
struct TransportItem;
template <>
struct TransportItem<std::uint64_t> {
  using Ring = transport::SpscRing<std::uint64_t>;
  static constexpr std::size_t kCells = kRingSlots;
  static constexpr std::int64_t kItems = kBulkItems;
  static std::uint64_t make(std::uint64_t i) { return i; }
  static bool push(Ring& ring, std::uint64_t&& item, std::uint64_t key) {
    return ring.tryPush(std::move(item), key);
  }
  template <class F>
  static std::size_t consume(Ring& ring, F& take) {
    return ring.consume([&](std::uint64_t&& item) noexcept { take(item); }, kConsumeBatch);
  }
};
template <>
struct TransportItem<Word24> {
  using Ring = transport::SpscRing<Word24, Crossing64>;
  static constexpr std::size_t kCells = 2 * kRingSlots;  // 1024 lines, as ActorSystemOptions
  static constexpr std::int64_t kItems = kBulkItems;
  static Word24 make(std::uint64_t i) { return Word24{i, &kItems, i}; }
  static bool push(Ring& ring, Word24&& item, std::uint64_t key) {
    return ring.tryPush(std::move(item), key);
  }
  template <class F>
  static std::size_t consume(Ring& ring, F& take) {
    return ring.consume([&](Word24&& item) noexcept { take(item.word); },
                        [&](Crossing64&&) noexcept { take(~std::uint64_t{0}); }, kConsumeBatch);
  }
};
template <>
struct TransportItem<Crossing64> {
  using Ring = transport::SpscRing<Word24, Crossing64>;
  static constexpr std::size_t kCells = 2 * kRingSlots;
  static constexpr std::int64_t kItems = kBulkCrossings;
  static Crossing64 make(std::uint64_t i) { return Crossing64{0, Message(Seq{i})}; }
  static bool push(Ring& ring, Crossing64&& item, std::uint64_t key) {
    return ring.tryPushBig(std::move(item), key);
  }
  template <class F>
  static std::size_t consume(Ring& ring, F& take) {
    return ring.consume([&](Word24&&) noexcept { take(~std::uint64_t{0}); },
                        [&](Crossing64&& item) noexcept {
                          const Seq* seq = item.message.get<Seq>();
                          take(seq != nullptr ? seq->n : ~std::uint64_t{0});
                        },
                        kConsumeBatch);
  }
};

/// The ratio per op of a round of a row to the paired round of its floor
/// run right after it, or none if the floor's round did not finish.
std::optional<double> pairedRatio(const Timed& row, std::int64_t rowOps, const Timed& floor,
                                  std::int64_t floorOps) {
  if (floor.ran != floorOps || floor.elapsed.count() <= 0) return std::nullopt;
  const auto perOp = [](const Timed& t, std::int64_t ops) {
    return std::chrono::duration<double>(t.elapsed).count() / static_cast<double>(ops);
  };
  return perOp(row, rowOps) / perOp(floor, floorOps);
}

template <class T>
Timed transportRound() {
  using Item = TransportItem<T>;
  typename Item::Ring ring(Item::kCells);
  Steady::time_point start{};
  Steady::time_point end{};
  std::int64_t inOrder = 0;
  const Steady::time_point deadline = Steady::now() + kGiveUp;
  runPair(
      [&] {
        Spinner spin(deadline);
        start = Steady::now();
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(Item::kItems); ++i) {
          T item = Item::make(i);
          // The key stands for the target's id, as in the runtime.
          while (!Item::push(ring, std::move(item), i)) {  // a refused item is left untouched
            if (!spin.wait()) return;
          }
        }
      },
      [&] {
        Spinner spin(deadline);
        std::uint64_t next = 0;
        const auto take = [&](std::uint64_t sequence) noexcept {
          inOrder += sequence == next ? 1 : 0;
          ++next;
        };
        while (next < static_cast<std::uint64_t>(Item::kItems)) {
          if (Item::consume(ring, take) == 0 && !spin.wait()) break;
        }
        end = Steady::now();
      });
  return {inOrder, end - start};
}

/// isolates/transport/<T>. As with the round trips (pingPongAcross), this
/// VM's phases move the floor from one minute to the next (floor/spsc-bulk
/// read 3 to 60 ns an item), so with two CPUs each round is followed, off
/// the clock, by a round of floor/spsc-bulk, and the row reports the median
/// of the per-round ratios.
template <class T>
void transportRows(benchmark::State& state) {
  OpMeter meter;
  const bool paired = pinning();
  std::vector<double> pairedRatios;
  for (auto _ : state) {
    Timed rowRound;
    const bool ok = meter.measureTimed(state, "items", TransportItem<T>::kItems, [&] {
      rowRound = transportRound<T>();
      return rowRound;
    });
    if (!ok) break;
    if (paired) {
      const std::optional<double> ratio =
          pairedRatio(rowRound, TransportItem<T>::kItems, spscFloorRound(), kBulkItems);
      if (!ratio) {
        state.SkipWithError("the paired floor round did not finish");
        break;
      }
      pairedRatios.push_back(*ratio);
    }
  }
  meter.report(state);
  if (!pairedRatios.empty() && !state.error_occurred()) {
    state.counters[kPairedFloorRatioCounter] = medianOfSamples(std::move(pairedRatios));
  }
}

// ---- floor/busy-poll-rtt ----------------------------------------------------------

Timed busyPollRound() {
  alignas(64) std::atomic<std::uint64_t> word{0};
  Steady::time_point start{};
  Steady::time_point end{};
  std::int64_t trips = 0;
  const Steady::time_point deadline = Steady::now() + kGiveUp;
  runPair(
      [&] {
        Spinner spin(deadline);
        start = Steady::now();
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(kBusyRoundTrips); ++i) {
          word.store(2 * i + 1, std::memory_order_release);  // ping
          bool answered = true;
          while (word.load(std::memory_order_acquire) != 2 * i + 2) {
            if (!(answered = spin.wait())) break;
          }
          if (!answered) break;
          ++trips;
        }
        end = Steady::now();
      },
      [&] {
        Spinner spin(deadline);
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(kBusyRoundTrips); ++i) {
          while (word.load(std::memory_order_acquire) != 2 * i + 1) {
            if (!spin.wait()) return;
          }
          word.store(2 * i + 2, std::memory_order_release);  // pong
        }
      });
  return {trips, end - start};
}

// ---- floor/eventfd-rtt ------------------------------------------------------------

/// One eventfd, blocking: post() adds 1, take() waits for and reads the count.
class EventFd {
 public:
  EventFd() : fd_(eventfd(0, EFD_CLOEXEC)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  }
  ~EventFd() { close(fd_); }
  EventFd(const EventFd&) = delete;
  EventFd& operator=(const EventFd&) = delete;

  bool post() noexcept {
    const std::uint64_t one = 1;
    ssize_t n;
    while ((n = write(fd_, &one, sizeof one)) < 0 && errno == EINTR) {
    }
    return n == sizeof one;
  }
  bool take(std::uint64_t& count) noexcept {
    ssize_t n;
    while ((n = read(fd_, &count, sizeof count)) < 0 && errno == EINTR) {
    }
    return n == sizeof count;
  }

 private:
  int fd_;
};

Timed eventFdRound() {
  EventFd ping;
  EventFd pong;
  Steady::time_point start{};
  Steady::time_point end{};
  std::int64_t trips = 0;
  runPair(
      [&] {
        start = Steady::now();
        for (std::int64_t i = 0; i < kWakeRoundTrips; ++i) {
          std::uint64_t count = 0;
          if (!ping.post() || !pong.take(count)) break;
          trips += count == 1 ? 1 : 0;
        }
        end = Steady::now();
      },
      [&] {
        for (std::int64_t i = 0; i < kWakeRoundTrips; ++i) {
          std::uint64_t count = 0;
          if (!ping.take(count) || !pong.post()) break;
        }
      });
  return {trips, end - start};
}

// ---- systems and actors -------------------------------------------------------------

std::unique_ptr<ActorSystem> threadedSystem(
    std::size_t isolates, ActorSystemOptions options = ActorSystemOptions::create()) {
  return ActorSystem::create("cross-bench",
                             options.withIsolates(isolates).withLogLevel(LogLevel::Off));
}

struct PinTo {
  int cpu;
};

/// Pins the thread of isolate `index` to `cpu`, from inside: an actor on
/// that isolate pins the thread its turn runs on. Throws if it could not.
void pinIsolate(ActorSystem& system, std::size_t index, int cpu) {
  const ActorRef pinner = system.spawn(
      "",
      [](ReceiveContext& ctx) {
        if (const PinTo* to = ctx.get<PinTo>()) ctx.reply(pinCurrentThread(to->cpu));
      },
      ActorOptions::create().withIsolate(index));
  const bool pinned = system.ask<bool>(pinner, PinTo{cpu}, kGiveUp).get();
  system.stop(pinner);
  if (!pinned) {
    throw std::runtime_error("could not pin isolate " + std::to_string(index) + " to CPU " +
                             std::to_string(cpu));
  }
}

/// Isolate k of `system` to cpuFor(k), for k < isolates, when pinning().
void pinIsolates(ActorSystem& system, std::size_t isolates) {
  if (!pinning()) return;
  for (std::size_t k = 0; k < isolates; ++k) pinIsolate(system, k, cpuFor(k));
}

// ---- isolates/tell/* ----------------------------------------------------------------

struct Count {
  std::int64_t n;
};
struct Burst {
  ActorRef receiver;
};

/// One burst: written by the benchmark's thread before it starts the burst,
/// then by the two actors (each message carries the happens-before along).
/// What the receiver writes at every message has a cache line of its own, so
/// that the sender's side never reads a line the receiver keeps writing.
/// A round's end, raised by an actor on its isolate and awaited by the
/// benchmark's thread. It lives as long as the rally it belongs to and is
/// reset between rounds. Not a std::promise made anew each round: replacing
/// the promise while the isolate's thread may still be inside set_value()
/// of the last round's is a race on that promise and its shared state.
class Completion {
 public:
  /// Benchmark's thread, between rounds.
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    raised_ = false;
  }
  /// The actor's side.
  void raise() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      raised_ = true;
    }
    changed_.notify_all();
  }
  /// Benchmark's thread: false if `timeout` passed first.
  bool waitFor(std::chrono::nanoseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return raised_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool raised_ = false;
};

struct Stream {
  std::int64_t expected = 0;
  Steady::time_point start{};  // the sender's first send
  struct alignas(64) {
    std::int64_t next = 0;                 // the next sequence number
    std::atomic<std::int64_t> handled{0};  // in order
  } receiver;
  Timed result{};  // written by the receiver before it raises `done`
  Completion done;
};

class BurstSender final : public Actor {
 public:
  explicit BurstSender(Stream* stream) : stream_(stream) {}
  void receive(ReceiveContext& ctx) override {
    const Burst* burst = ctx.get<Burst>();
    if (burst == nullptr) return;
    const std::int64_t expected = stream_->expected;
    stream_->start = Steady::now();
    for (std::int64_t i = 0; i < expected; ++i) ctx.tell(burst->receiver, Count{i});
  }

 private:
  Stream* stream_;
};

class BurstReceiver final : public Actor {
 public:
  explicit BurstReceiver(Stream* stream) : stream_(stream) {}
  void receive(ReceiveContext& ctx) override {
    const Count* count = ctx.get<Count>();
    if (count == nullptr) return;
    auto& mine = stream_->receiver;
    if (count->n == mine.next) bump(mine.handled);
    if (++mine.next == stream_->expected) {
      stream_->result =
          Timed{mine.handled.load(std::memory_order_relaxed), Steady::now() - stream_->start};
      stream_->done.raise();
    }
  }

 private:
  Stream* stream_;
};

/// One burst from `sender` to `receiver` through `stream`, timed by the
/// receiver from the sender's first send to the last message handled.
Timed burstRound(Stream& stream, const ActorRef& sender, const ActorRef& receiver) {
  stream.expected = kBurst;
  stream.receiver.next = 0;
  stream.receiver.handled.store(0, std::memory_order_relaxed);
  stream.done.reset();
  sender.tell(Burst{receiver});
  if (!stream.done.waitFor(kGiveUp)) {
    return Timed{stream.receiver.handled.load(std::memory_order_relaxed), {}};
  }
  return stream.result;
}

/// isolates/tell/cross and isolates/tell/same. The target's ratio compares a
/// tell across with one on one isolate, "the receiving core does the
/// mailbox and handler work". The vCPUs of a VM do not always run at one
/// speed (one may run a ping-pong 1.8x slower than the other for minutes,
/// and the two swap), and the same row runs on
/// isolate 0's CPU. So with pinning, each round across is followed (off the
/// clock) by the same burst on one isolate on the receiver's CPU (isolate 1),
/// and the cross row reports the median of the per-round ratios.
void tellBurst(benchmark::State& state, bool cross) {
  Stream stream;  // outlive the system, whose actors point at them
  Stream local;
  std::unique_ptr<ActorSystem> system;
  ActorRef sender;
  ActorRef receiver;
  ActorRef localSender;  // the paired round's pair, both on isolate 1
  ActorRef localReceiver;
  const bool paired = cross && pinning();
  if (!setUp(state, [&] {
        system = threadedSystem(2);
        pinIsolates(*system, 2);
        sender =
            system->spawn<BurstSender>("sender", ActorOptions::create().withIsolate(0), &stream);
        receiver = system->spawn<BurstReceiver>(
            "receiver", ActorOptions::create().withIsolate(cross ? 1 : 0), &stream);
        if (paired) {
          const ActorOptions there = ActorOptions::create().withIsolate(1);
          localSender = system->spawn<BurstSender>("local-sender", there, &local);
          localReceiver = system->spawn<BurstReceiver>("local-receiver", there, &local);
        }
      })) {
    return;
  }
  OpMeter meter;
  std::vector<double> pairedRatios;
  for (auto _ : state) {
    Timed rowRound;
    const bool ok = meter.measureTimed(state, "messages handled in order", kBurst, [&] {
      rowRound = burstRound(stream, sender, receiver);
      return rowRound;
    });
    if (!ok) break;
    if (paired) {
      const std::optional<double> ratio =
          pairedRatio(rowRound, kBurst, burstRound(local, localSender, localReceiver), kBurst);
      if (!ratio) {
        state.SkipWithError("the paired round on one isolate did not finish in order");
        break;
      }
      pairedRatios.push_back(*ratio);
    }
  }
  meter.report(state);
  if (!pairedRatios.empty() && !state.error_occurred()) {
    state.counters[kPairedFloorRatioCounter] = medianOfSamples(std::move(pairedRatios));
  }
}

// ---- ping-pong: isolates/pingpong/*, isolates/scaling/<n>, isolates/idle-cpu -------

struct Ping {
  std::int64_t n;
};
struct Pong {
  std::int64_t n;
};
/// isolates/pingpong/wide's: 24 bytes, no word, so each crosses as a whole
/// Message (a ring pair of cells) rather than as a word.
struct WidePing {
  std::int64_t n;
  std::int64_t padding[2] = {};
};
struct WidePong {
  std::int64_t n;
  std::int64_t padding[2] = {};
};
struct Serve {
  ActorRef responder;
};

/// What the two sides of a rally count, shared like a Stream. Each side's
/// counters have a cache line of their own, and so does each rally (the
/// rallies of isolates/scaling/<n> run on different isolates at once): the
/// benchmark must not add line transfers of its own to the crossing it
/// measures.
struct RallyCounts {
  struct alignas(64) {
    Steady::time_point start{};            // the first ping (Rally)
    Steady::time_point end{};              // the last pong handled (Rally)
    std::atomic<std::int64_t> pongs{0};    // round trips done
    std::atomic<std::int64_t> ordered{0};  // of which came back in order
  } requester;
  struct alignas(64) {
    std::atomic<std::int64_t> pings{0};
  } responder;

  /// Benchmark's thread, between rounds.
  void resetCounts() {
    responder.pings.store(0, std::memory_order_relaxed);
    requester.pongs.store(0, std::memory_order_relaxed);
    requester.ordered.store(0, std::memory_order_relaxed);
  }
  std::int64_t pings() const { return responder.pings.load(std::memory_order_relaxed); }
  std::int64_t pongs() const { return requester.pongs.load(std::memory_order_relaxed); }
  std::int64_t ordered() const { return requester.ordered.load(std::memory_order_relaxed); }
};

/// One rally of `target` round trips.
struct Rally : RallyCounts {
  std::int64_t target = 0;
  Completion done;

  /// Benchmark's thread, between rounds.
  void reset(std::int64_t roundTrips) {
    target = roundTrips;
    resetCounts();
    done.reset();
  }
  Steady::duration elapsed() const { return requester.end - requester.start; }

  // The requester's side (RequesterOf), on its isolate.
  void begin() { requester.start = Steady::now(); }
  bool wantsMore(std::int64_t done) const { return done < target; }
  void finish() {
    requester.end = Steady::now();
    this->done.raise();
  }
};

/// Serves a rally (a Rally or an OpenRally): a Serve starts it, each Pong
/// brings the next Ping for as long as the rally wants more.
template <class R, class PingT = Ping, class PongT = Pong>
class RequesterOf final : public Actor {
 public:
  explicit RequesterOf(R* rally) : rally_(rally) {}
  void receive(ReceiveContext& ctx) override {
    auto& mine = rally_->requester;
    if (const PongT* pong = ctx.get<PongT>()) {
      const std::int64_t n = mine.pongs.load(std::memory_order_relaxed);
      if (pong->n == n) bump(mine.ordered);
      mine.pongs.store(n + 1, std::memory_order_relaxed);
      if (rally_->wantsMore(n + 1)) {
        ctx.reply(PingT{n + 1});
      } else {
        rally_->finish();
      }
    } else if (const Serve* serve = ctx.get<Serve>()) {
      rally_->begin();
      ctx.tell(serve->responder, PingT{0});
    }
  }

 private:
  R* rally_;
};
using Requester = RequesterOf<Rally>;

/// Answers each Ping with its Pong and counts the pings, for a Rally or an
/// OpenRally (isolates/scaling/<n>).
template <class R, class PingT = Ping, class PongT = Pong>
class ResponderOf final : public Actor {
 public:
  explicit ResponderOf(R* rally) : rally_(rally) {}
  void receive(ReceiveContext& ctx) override {
    if (const PingT* ping = ctx.get<PingT>()) {
      bump(rally_->responder.pings);
      ctx.reply(PongT{ping->n});
    }
  }

 private:
  R* rally_;
};
using Responder = ResponderOf<Rally>;

/// One rally of `roundTrips`, started from the benchmark's thread and timed
/// by the requester: from its first ping to its last pong.
Timed rallyRound(Rally& rally, const ActorRef& requester, const ActorRef& responder,
                 std::int64_t roundTrips) {
  rally.reset(roundTrips);
  requester.tell(Serve{responder});
  if (!rally.done.waitFor(kGiveUp)) return Timed{rally.ordered(), {}};
  return Timed{rally.ordered(), rally.elapsed()};
}

// The background load of isolates/pingpong/loaded: an actor per isolate that
// tells itself a message as long as it is not told to stop.
struct Again {};
struct Load {
  /// Messages handled on one isolate, on a line of its own (each is written
  /// by its isolate all the time).
  struct alignas(64) Turns {
    std::atomic<std::int64_t> count{0};
  };
  std::atomic<bool> stop{false};
  Turns turns[2];
};

class BusyLoop final : public Actor {
 public:
  BusyLoop(Load* load, std::size_t isolate) : load_(load), turns_(&load->turns[isolate].count) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Again>()) return;
    bump(*turns_);
    if (!load_->stop.load(std::memory_order_relaxed)) ctx.tell(ctx.self(), Again{});
  }

 private:
  Load* load_;
  std::atomic<std::int64_t>* turns_;
};

/// What else runs on the two isolates of a cross-isolate ping-pong.
enum class Across {
  Busy,    ///< nothing: each message finds its isolate in its idle poll window
  Wide,    ///< Busy, with messages of 24 bytes (WidePing, WidePong) instead of words
  Loaded,  ///< a self-telling actor on each isolate
  Idle,    ///< nothing, and no idle poll window: every message wakes its isolate
};

void pingPongAcross(benchmark::State& state, Across how) {
  const bool busy = how == Across::Loaded;  // the load runs
  Rally rally;                              // these outlive the system, whose actors point at them
  Load load;
  std::unique_ptr<ActorSystem> system;
  ActorRef requester;
  ActorRef responder;
  if (!setUp(state, [&] {
        ActorSystemOptions options = ActorSystemOptions::create();
        if (how == Across::Idle) options = options.withIdlePoll(std::chrono::nanoseconds{0});
        system = threadedSystem(2, options);
        pinIsolates(*system, 2);
        const ActorOptions on0 = ActorOptions::create().withIsolate(0);
        const ActorOptions on1 = ActorOptions::create().withIsolate(1);
        if (how == Across::Wide) {
          requester =
              system->spawn<RequesterOf<Rally, WidePing, WidePong>>("requester", on0, &rally);
          responder =
              system->spawn<ResponderOf<Rally, WidePing, WidePong>>("responder", on1, &rally);
        } else {
          requester = system->spawn<Requester>("requester", on0, &rally);
          responder = system->spawn<Responder>("responder", on1, &rally);
        }
        if (busy) {
          for (std::size_t k = 0; k < 2; ++k) {
            system->spawn<BusyLoop>("", ActorOptions::create().withIsolate(k), &load, k)
                .tell(Again{});
          }
        }
      })) {
    return;
  }
  const std::int64_t roundTrips = how == Across::Idle ? kWakeRoundTrips
                                  : !pinning()        ? kBusyPingPongRoundTripsOnOneCpu
                                  : busy              ? kLoadedPingPongRoundTrips
                                                      : kAwakePingPongRoundTrips;
  OpMeter meter;
  std::int64_t loadMessages = 0;  // handled by the loads during the rounds, both isolates
  std::int64_t rounds = 0;
  // A VM's two CPUs may change topology from minute to minute (the busy-poll
  // round trip reads 35 to 800 ns), so a ratio of two rows run minutes
  // apart can compare two phases. Each round of the awake and idle rows is
  // paired with a round of its floor right after it (off the clock).
  const bool paired = how != Across::Loaded && pinning();
  std::vector<double> pairedRatios;
  for (auto _ : state) {
    const std::int64_t before[2] = {load.turns[0].count.load(), load.turns[1].count.load()};
    Timed rowRound;
    const bool ok = meter.measureTimed(state, "round trips in order", roundTrips, [&] {
      rowRound = rallyRound(rally, requester, responder, roundTrips);
      return rowRound;
    });
    if (!ok || !checkCompleted(state, "pings", roundTrips, rally.pings())) break;
    if (paired) {
      const bool awake = how != Across::Idle;
      const std::optional<double> ratio =
          pairedRatio(rowRound, roundTrips, awake ? busyPollRound() : eventFdRound(),
                      awake ? kBusyRoundTrips : kWakeRoundTrips);
      if (!ratio) {
        state.SkipWithError("the paired floor round did not finish");
        break;
      }
      pairedRatios.push_back(*ratio);
    }
    const std::int64_t ran[2] = {load.turns[0].count.load() - before[0],
                                 load.turns[1].count.load() - before[1]};
    // Busy means busy all along: both loads ran during the round.
    if (busy && (ran[0] == 0 || ran[1] == 0)) {
      state.SkipWithError("the background load did not run on both isolates during the round");
      break;
    }
    loadMessages += ran[0] + ran[1];
    ++rounds;
  }
  load.stop.store(true, std::memory_order_relaxed);
  meter.report(state);
  if (!pairedRatios.empty() && !state.error_occurred()) {
    state.counters[kPairedFloorRatioCounter] = medianOfSamples(std::move(pairedRatios));
  }
  // How much load each isolate ran per round trip: what a message waits behind.
  if (busy && rounds > 0 && !state.error_occurred()) {
    state.counters[kLoadPerRoundTripCounter] =
        static_cast<double>(loadMessages) / static_cast<double>(2 * rounds * roundTrips);
  }
}

// ---- isolates/scaling/<n> -------------------------------------------------------------

/// A rally that plays until told to stop (isolates/scaling/<n>): the
/// benchmark's thread reads how far it got at both edges of a window, so
/// that the pairs are counted only while every one of them plays. With
/// fixed work per pair, a pair on a faster CPU would finish first and the
/// slowest pair's tail would run alone.
struct OpenRally : RallyCounts {
  struct alignas(64) {
    std::atomic<bool> stop{false};  // written by the benchmark's thread, once a round
  } control;
  Completion stopped;

  /// Benchmark's thread, between rounds.
  void reset() {
    resetCounts();
    control.stop.store(false, std::memory_order_relaxed);
    stopped.reset();
  }

  // The requester's side (RequesterOf), on its isolate.
  void begin() {}
  bool wantsMore(std::int64_t) const { return !control.stop.load(std::memory_order_relaxed); }
  void finish() { stopped.raise(); }
};

using OpenRequester = RequesterOf<OpenRally>;
using OpenResponder = ResponderOf<OpenRally>;

/// One pair per isolate of a scaling row, and what they count.
struct ScalingPairs {
  std::vector<std::unique_ptr<OpenRally>> rallies;  // outlive the system
  std::unique_ptr<ActorSystem> system;
  std::vector<ActorRef> requesters;
  std::vector<ActorRef> responders;
};

/// The pairs `which` play at once for a window: the round trips all of them
/// completed inside it and its length, or nothing (with `why` set) when a
/// pair did not stop in time or lost or reordered a message.
std::optional<OpMeter::Timed> scalingWindow(ScalingPairs& pairs,
                                            const std::vector<std::size_t>& which,
                                            std::string& why) {
  for (std::size_t k : which) pairs.rallies[k]->reset();
  for (std::size_t k : which) pairs.requesters[k].tell(Serve{pairs.responders[k]});
  std::this_thread::sleep_for(kScalingWarmUp);
  const auto done = [&] {
    std::int64_t sum = 0;
    for (std::size_t k : which) sum += pairs.rallies[k]->pongs();
    return sum;
  };
  const std::int64_t before = done();
  const Steady::time_point opened = Steady::now();
  std::this_thread::sleep_for(kScalingWindow);
  // A loaded machine may complete nothing in the planned window: the window
  // stays open until a round trip has completed (a slow figure, not a
  // failure); only a pair that never completes one within kGiveUp fails.
  std::int64_t after = done();
  const Steady::time_point latest = opened + kGiveUp;
  while (after <= before && Steady::now() < latest) {
    std::this_thread::sleep_for(1ms);
    after = done();
  }
  const Steady::time_point closed = Steady::now();
  for (std::size_t k : which) pairs.rallies[k]->control.stop.store(true, std::memory_order_relaxed);
  const Steady::time_point deadline = Steady::now() + kGiveUp;
  for (std::size_t k : which) {
    if (!pairs.rallies[k]->stopped.waitFor(deadline - Steady::now())) {
      why = "a pair did not stop";
      return std::nullopt;
    }
  }
  // Every ping answered, every pong in order: nothing lost, nothing reordered.
  for (std::size_t k : which) {
    const OpenRally& rally = *pairs.rallies[k];
    const std::int64_t pongs = rally.pongs();
    if (rally.pings() != pongs || rally.ordered() != pongs) {
      why = "pair " + std::to_string(k) + ": " + std::to_string(rally.pings()) + " pings, " +
            std::to_string(pongs) + " pongs, " + std::to_string(rally.ordered()) + " in order";
      return std::nullopt;
    }
  }
  if (after <= before) {
    why = "no round trip within " + std::to_string(kGiveUp.count()) + " s";
    return std::nullopt;
  }
  return OpMeter::Timed{after - before, closed - opened};
}

/// Round trips per second of a window.
double rateOf(const OpMeter::Timed& t) {
  return static_cast<double>(t.ran) / std::chrono::duration<double>(t.elapsed).count();
}

/// isolates/scaling/<n>: n isolates, each running its own ping-pong pair, all
/// at once; the figure is the aggregate: the window over every round trip
/// completed in it. A VM's vCPUs do not always run at one speed (for
/// minutes at a time one may run a ping-pong 1.8x slower than the other),
/// so "N x one isolate" is not one number. With
/// pinning, each round is followed (off the clock) by a window of each pair
/// alone on its CPU, and the row reports the median over rounds of
/// (sum of the pairs' rates alone) / (their rate together): 1 when the
/// isolates do not slow each other down at all, N times the speed of one
/// isolate when the CPUs are alike.
void scaling(benchmark::State& state, std::size_t isolates) {
  ScalingPairs pairs;
  if (!setUp(state, [&] {
        pairs.system = threadedSystem(isolates);
        pinIsolates(*pairs.system, isolates);
        for (std::size_t k = 0; k < isolates; ++k) {
          pairs.rallies.push_back(std::make_unique<OpenRally>());
          const ActorOptions here = ActorOptions::create().withIsolate(k);
          pairs.requesters.push_back(
              pairs.system->spawn<OpenRequester>("", here, pairs.rallies[k].get()));
          pairs.responders.push_back(
              pairs.system->spawn<OpenResponder>("", here, pairs.rallies[k].get()));
        }
      })) {
    return;
  }
  std::vector<std::size_t> all(isolates);
  for (std::size_t k = 0; k < isolates; ++k) all[k] = k;
  const bool paired = isolates >= 2 && pinning();
  std::vector<double> pairedRatios;
  OpMeter meter;
  for (auto _ : state) {
    std::string why;
    // The count is what the window saw done (checked for loss and order
    // inside); there is no fixed number to ask for.
    const std::optional<OpMeter::Timed> together = scalingWindow(pairs, all, why);
    if (!together) {
      state.SkipWithError(("scaling: " + why).c_str());
      break;
    }
    meter.recordWindow(state, *together);
    if (paired) {
      double alone = 0;
      for (std::size_t k = 0; k < isolates; ++k) {
        const std::optional<OpMeter::Timed> one = scalingWindow(pairs, {k}, why);
        if (!one) break;
        alone += rateOf(*one);
      }
      if (!why.empty()) {
        state.SkipWithError(("scaling, a pair alone: " + why).c_str());
        break;
      }
      pairedRatios.push_back(alone / rateOf(*together));
    }
  }
  meter.report(state);
  if (!pairedRatios.empty() && !state.error_occurred()) {
    state.counters[kPairedFloorRatioCounter] = medianOfSamples(std::move(pairedRatios));
  }
}

// ---- isolates/idle-cpu ----------------------------------------------------------------

/// User and system CPU time of the whole process so far, in seconds.
double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void idleCpu(benchmark::State& state, bool quick) {
  const std::size_t isolates = std::max<std::size_t>(2, allowedCpus().size());
  for (auto _ : state) {
    Rally rally;  // outlives the system
    std::unique_ptr<ActorSystem> system;
    ActorRef requester;
    ActorRef responder;
    if (!setUp(state, [&] {
          system = threadedSystem(isolates);
          requester =
              system->spawn<Requester>("requester", ActorOptions::create().withIsolate(0), &rally);
          responder = system->spawn<Responder>(
              "responder", ActorOptions::create().withIsolate(isolates - 1), &rally);
        })) {
      break;
    }
    // Used once across isolates (the rings exist), then left alone.
    const Timed warm = rallyRound(rally, requester, responder, kWarmRoundTrips);
    if (!checkCompleted(state, "round trips before going idle", kWarmRoundTrips, warm.ran)) break;
    std::this_thread::sleep_for(quick ? kQuickSettle : kSettle);
    const double cpuBefore = processCpuSeconds();
    const Steady::time_point wallBefore = Steady::now();
    std::this_thread::sleep_for(quick ? kQuickWindow : kWindow);
    const double cpu = processCpuSeconds() - cpuBefore;
    const double wall = std::chrono::duration<double>(Steady::now() - wallBefore).count();
    state.counters[kCpuPercentCounter] = cpu / wall * 100;
    state.SetIterationTime(wall);
  }
}

// ---- isolates/ask/foreign ------------------------------------------------------------

struct Request {
  std::int64_t n;
};
struct Response {
  std::int64_t n;
};

class AskResponder final : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (const Request* request = ctx.get<Request>()) ctx.reply(Response{request->n});
  }
};

void askForeign(benchmark::State& state) {
  std::unique_ptr<ActorSystem> system;
  std::optional<ScopedPin> here;  // the benchmark's thread, for this row only
  ActorRef responder;
  if (!setUp(state, [&] {
        system = threadedSystem(1);
        if (pinning()) {
          pinIsolate(*system, 0, cpuFor(1));
          here.emplace(cpuFor(0));
        }
        responder = system->spawn<AskResponder>("responder");
      })) {
    return;
  }
  std::vector<double> latencies;
  latencies.reserve(1024);
  for (auto _ : state) {
    std::int64_t answered = 0;
    Steady::duration spent{};
    try {
      for (std::int64_t i = 0; i < kForeignAsks; ++i) {
        const Steady::time_point asked = Steady::now();
        const Response response = system->ask<Response>(responder, Request{i}, kGiveUp).get();
        const Steady::duration took = Steady::now() - asked;
        answered += response.n == i ? 1 : 0;
        spent += took;
        latencies.push_back(std::chrono::duration<double, std::nano>(took).count());
      }
    } catch (...) {
      state.SkipWithError(("threw: " + describe(std::current_exception())).c_str());
      break;
    }
    if (!checkCompleted(state, "asks answered", kForeignAsks, answered)) break;
    state.SetIterationTime(std::chrono::duration<double>(spent).count());
  }
  if (state.error_occurred() || latencies.empty()) return;
  reportLatencies(state, latencies);
}

// ---- isolates/ask/cross --------------------------------------------------------------

using workloads::kCrossAsks;

/// What a round of cross asks hands back to the bench thread.
struct CrossAskRound {
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  std::int64_t answered = 0;
  std::vector<double> latencies;  // ns, one per ask, in order
};

struct AskAcross {
  CrossAskRound* round;
};

/// On AskAcross, asks its responder kCrossAsks times, one at a time: each
/// answer's continuation takes the time and sends the next ask.
class CrossAsker final : public Actor {
 public:
  explicit CrossAsker(ActorRef responder) : responder_(responder) {}
  void receive(ReceiveContext& ctx) override {
    if (const AskAcross* go = ctx.get<AskAcross>()) {
      round_ = go->round;
      round_->latencies.clear();
      round_->answered = 0;
      askNext(ctx);
    }
  }

 private:
  void askNext(ReceiveContext& ctx) {
    const std::int64_t n = static_cast<std::int64_t>(round_->latencies.size());
    asked_ = Steady::now();
    ctx.ask<Response>(
        responder_, Request{n}, kGiveUp,
        [this, n](ReceiveContext& next, AskResult<Response>& result) {
          const Steady::duration took = Steady::now() - asked_;
          round_->latencies.push_back(std::chrono::duration<double, std::nano>(took).count());
          if (result.ok() && result.value().n == n) ++round_->answered;
          if (static_cast<std::int64_t>(round_->latencies.size()) < kCrossAsks) {
            askNext(next);
            return;
          }
          std::lock_guard<std::mutex> lock(round_->mutex);
          round_->finished = true;
          round_->done.notify_one();
        });
  }

  ActorRef responder_;
  CrossAskRound* round_ = nullptr;
  Steady::time_point asked_{};
};

/// isolates/ask/cross: an ask from an actor on isolate 0 to one on isolate 1,
/// one at a time, each timed from the ask to its continuation. The figure is
/// the p50 of every ask of the row; p99 and the mean beside it. Each round is
/// paired with a round of floor/busy-poll-rtt right after it, and the row
/// reports the median over rounds of the round's p50 and p99 over that
/// floor (p50_x_floor_paired, p99_x_floor_paired), which the targets read.
void askAcross(benchmark::State& state) {
  CrossAskRound round;  // outlives the system, whose asker points at it
  std::unique_ptr<ActorSystem> system;
  ActorRef asker;
  if (!setUp(state, [&] {
        system = threadedSystem(2);
        pinIsolates(*system, 2);
        const ActorRef responder =
            system->spawn<AskResponder>("responder", ActorOptions::create().withIsolate(1));
        asker =
            system->spawn<CrossAsker>("asker", ActorOptions::create().withIsolate(0), responder);
      })) {
    return;
  }
  std::vector<double> all;
  std::vector<double> p50s;
  std::vector<double> p99s;
  Steady::duration spent{};
  for (auto _ : state) {
    {
      std::lock_guard<std::mutex> lock(round.mutex);
      round.finished = false;
    }
    asker.tell(AskAcross{&round});
    std::unique_lock<std::mutex> lock(round.mutex);
    if (!round.done.wait_for(lock, kGiveUp, [&] { return round.finished; })) {
      state.SkipWithError("a round of asks did not finish");
      break;
    }
    if (!checkCompleted(state, "asks answered", kCrossAsks, round.answered)) break;
    double sum = 0;
    for (const double ns : round.latencies) sum += ns;
    spent += std::chrono::nanoseconds(static_cast<std::int64_t>(sum));
    state.SetIterationTime(sum / 1e9);
    all.insert(all.end(), round.latencies.begin(), round.latencies.end());
    const Timed floor = busyPollRound();
    if (floor.ran != kBusyRoundTrips || floor.elapsed.count() <= 0) {
      state.SkipWithError("the paired floor round did not finish");
      break;
    }
    const double floorNs = std::chrono::duration<double, std::nano>(floor.elapsed).count() /
                           static_cast<double>(kBusyRoundTrips);
    p50s.push_back(percentileOf(round.latencies, 0.5) / floorNs);
    p99s.push_back(percentileOf(round.latencies, 0.99) / floorNs);
  }
  if (state.error_occurred() || all.empty()) return;
  reportLatencies(state, all);
  state.counters["mean_ns"] =
      std::chrono::duration<double, std::nano>(spent).count() / static_cast<double>(all.size());
  state.counters[kP50PairedCounter] = medianOfSamples(std::move(p50s));
  state.counters[kP99PairedCounter] = medianOfSamples(std::move(p99s));
}

// ---- floor/moodycamel-bulk, isolates/foreign/* ----------------------------------------

/// The size of a foreign inbox's letter (runtime/ForeignInbox.hpp: the
/// target's id, the message and its sender, a system message's pointer),
/// rebuilt from plain bytes for the floor.
struct Letter96 {
  std::uint64_t n;
  unsigned char rest[sizeof(detail::ForeignInbox::Letter) - sizeof(std::uint64_t)];
};

// g++ 12 reports a -Wstringop-overflow inside moodycamel's inlined bulk
// enqueue (an atomic load it believes writes 8 bytes into nothing): a false
// positive of its range analysis, silenced for this floor only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
/// floor/moodycamel-bulk: kForeignBatch letters' worth of bytes moved from
/// one thread to another through a moodycamel ConcurrentQueue, enqueued in
/// bulk with a producer token (batches of 256), dequeued in bulk by the
/// other: the floor of the foreign path, measured in the same run.
Timed moodycamelBulkRound() {
  moodycamel::ConcurrentQueue<Letter96> queue;
  Steady::time_point start{};
  Steady::time_point end{};
  std::int64_t inOrder = 0;
  const Steady::time_point deadline = Steady::now() + kGiveUp;
  runPair(
      [&] {
        moodycamel::ProducerToken token(queue);
        std::vector<Letter96> batch(kConsumeBatch);
        start = Steady::now();
        for (std::int64_t i = 0; i < kForeignBatch;) {
          const std::int64_t n =
              std::min<std::int64_t>(kForeignBatch - i, static_cast<std::int64_t>(kConsumeBatch));
          for (std::int64_t k = 0; k < n; ++k)
            batch[static_cast<std::size_t>(k)].n = static_cast<std::uint64_t>(i + k);
          queue.enqueue_bulk(token, batch.begin(), static_cast<std::size_t>(n));
          i += n;
        }
      },
      [&] {
        Spinner spin(deadline);
        std::vector<Letter96> batch(kConsumeBatch);
        std::uint64_t next = 0;
        while (next < static_cast<std::uint64_t>(kForeignBatch)) {
          const std::size_t n = queue.try_dequeue_bulk(batch.begin(), kConsumeBatch);
          if (n == 0 && !spin.wait()) break;
          for (std::size_t i = 0; i < n; ++i, ++next) inOrder += batch[i].n == next ? 1 : 0;
        }
        end = Steady::now();
      });
  return {inOrder, end - start};
}
#pragma GCC diagnostic pop

/// What the sink of isolates/foreign/* reports at the end of a round.
struct ForeignDone {
  std::int64_t inOrder = 0;
  Completion completion;
};

/// Counts what it is told and says when it has seen a round's worth, in order.
class ForeignSink final : public Actor {
 public:
  explicit ForeignSink(ForeignDone* done) : done_(done) {}
  void receive(ReceiveContext& ctx) override {
    if (const std::int64_t* n = ctx.get<std::int64_t>()) {
      inOrder_ += *n == seen_ ? 1 : 0;
      if (++seen_ == kForeignBatch) {
        done_->inOrder = inOrder_;
        done_->completion.raise();
        seen_ = inOrder_ = 0;
      }
    }
  }

 private:
  ForeignDone* done_;
  std::int64_t seen_ = 0;
  std::int64_t inOrder_ = 0;
};

/// isolates/foreign/tell and isolates/foreign/feeder: kForeignBatch tells
/// from the benchmark's thread (no isolate) to one actor on an isolate of
/// its own, one by one or through a Feeder; a round ends when the actor has
/// handled them all, in order.
void foreignTells(benchmark::State& state, bool feeder) {
  std::unique_ptr<ActorSystem> system;
  std::optional<ScopedPin> here;
  ActorRef sink;
  ForeignDone done;
  if (!setUp(state, [&] {
        system = threadedSystem(1);
        if (pinning()) {
          pinIsolate(*system, 0, cpuFor(1));
          here.emplace(cpuFor(0));
        }
        sink = system->spawn<ForeignSink>("sink", ActorOptions::create(), &done);
      })) {
    return;
  }
  OpMeter meter;
  for (auto _ : state) {
    done.completion.reset();
    const bool ok = meter.measureTimed(state, "tells handled in order", kForeignBatch, [&] {
      const Steady::time_point start = Steady::now();
      if (feeder) {
        Feeder f(*system);
        for (std::int64_t i = 0; i < kForeignBatch; ++i) f.tell(sink, i);
      } else {
        for (std::int64_t i = 0; i < kForeignBatch; ++i) sink.tell(i);
      }
      if (!done.completion.waitFor(kGiveUp)) return Timed{0, Steady::now() - start};
      return Timed{done.inOrder, Steady::now() - start};
    });
    if (!ok) break;
  }
  meter.report(state);
}

// ---- isolates/memory/<n> --------------------------------------------------------------

/// isolates/memory/<n>: malloc'd bytes per idle isolate (the figure), and
/// beside it what each talking pair adds and the transport's own count of
/// both (Crossings::bytesReserved).
constexpr const char* kBytesPerIsolateCounter = "bytes_per_isolate";
constexpr const char* kBytesPerPairCounter = "bytes_per_pair";
constexpr const char* kTransportBytesPerIsolateCounter = "transport_bytes_per_isolate";
constexpr const char* kTransportBytesPerPairCounter = "transport_bytes_per_pair";

std::string memoryRow(std::size_t isolates) {
  return "isolates/memory/" + std::to_string(isolates);
}

/// The sum of Crossings::bytesReserved() over the system's isolates.
std::int64_t transportBytes(ActorSystem& system) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < system.isolateCount(); ++i) {
    bytes += detail::coreOf(system).runtime(i).crossings->bytesReserved();
  }
  return static_cast<std::int64_t>(bytes);
}

struct Poke {};

void memory(benchmark::State& state, std::size_t isolates) {
  for (auto _ : state) {
    // Before the system: what its loops count into outlives them.
    std::atomic<std::int64_t> ran{0};
    std::atomic<std::int64_t> crossed{0};
    const std::int64_t heap0 = heapInUse();
    auto system = ActorSystem::create(
        "memory", ActorSystemOptions::create().withIsolates(isolates).withLogLevel(LogLevel::Off));
    // Every loop has started and run a task (no actor: the figure is the
    // isolate's own).
    for (std::size_t i = 0; i < isolates; ++i) {
      system->isolate(i).post([&ran] { ran.fetch_add(1); });
    }
    const auto all = static_cast<std::int64_t>(isolates);
    for (const auto until = Steady::now() + kGiveUp; ran.load() < all && Steady::now() < until;) {
      std::this_thread::sleep_for(1ms);
    }
    if (!checkCompleted(state, "tasks, one per isolate", all, ran.load())) return;
    const std::int64_t heapIdle = heapInUse();
    const std::int64_t transportIdle = transportBytes(*system);
    // A sender on isolate 2p tells a receiver on isolate 2p + 1 once: one
    // message across per ordered pair, which makes its ring. The actors are
    // made first, and their share left out.
    std::vector<ActorRef> senders;
    for (std::size_t p = 0; p < kMemoryPairs; ++p) {
      const ActorRef to = system->spawn(
          "", [&](ReceiveContext& ctx) { crossed.fetch_add(ctx.is<Poke>() ? 1 : 0); },
          ActorOptions::create().withIsolate(2 * p + 1));
      senders.push_back(system->spawn(
          "",
          [to](ReceiveContext& ctx) {
            if (ctx.is<Poke>()) ctx.tell(to, Poke{});
          },
          ActorOptions::create().withIsolate(2 * p)));
    }
    const std::int64_t heapSpawned = heapInUse();
    for (const ActorRef& sender : senders) sender.tell(Poke{});
    const auto pairs = static_cast<std::int64_t>(kMemoryPairs);
    for (const auto until = Steady::now() + kGiveUp;
         crossed.load() < pairs && Steady::now() < until;) {
      std::this_thread::sleep_for(1ms);
    }
    if (!checkCompleted(state, "messages across", pairs, crossed.load())) return;
    const std::int64_t heapTalked = heapInUse();
    const std::int64_t transportTalked = transportBytes(*system);
    system->shutdown();
    const auto perIsolate = [&](std::int64_t bytes) {
      return static_cast<double>(bytes) / static_cast<double>(isolates);
    };
    const auto perPair = [&](std::int64_t bytes) {
      return static_cast<double>(bytes) / static_cast<double>(kMemoryPairs);
    };
    state.counters[kBytesPerIsolateCounter] = perIsolate(heapIdle - heap0);
    state.counters[kTransportBytesPerIsolateCounter] = perIsolate(transportIdle);
    state.counters[kBytesPerPairCounter] = perPair(heapTalked - heapSpawned);
    state.counters[kTransportBytesPerPairCounter] = perPair(transportTalked - transportIdle);
  }
}

// ---- registration ---------------------------------------------------------------------

/// isolates/scaling/<n>: every n up to kEveryIsolateCountUpTo, then powers of
/// two, and always N itself (the CPUs, at least 2).
std::vector<std::size_t> scalingCounts() {
  const std::size_t most = std::max<std::size_t>(2, allowedCpus().size());
  std::vector<std::size_t> counts;
  for (std::size_t n = 1; n <= most; n = n < kEveryIsolateCountUpTo ? n + 1 : 2 * n) {
    counts.push_back(n);
  }
  if (counts.back() != most) counts.push_back(most);
  return counts;
}

}  // namespace

bool crossThreadsPinned() {
  return pinning();
}

void registerIsolatesBenchmarks(bool quick) {
  allowedCpus();  // the process's own mask, read before any row pins a thread
  registerTimed(benchmark::RegisterBenchmark("floor/spsc-bulk", &rounds<Timed (*)()>, "items",
                                             kBulkItems, &spscFloorRound));
  registerTimed(benchmark::RegisterBenchmark("floor/busy-poll-rtt", &rounds<Timed (*)()>,
                                             "round trips", kBusyRoundTrips, &busyPollRound));
  registerTimed(benchmark::RegisterBenchmark("floor/eventfd-rtt", &rounds<Timed (*)()>,
                                             "round trips", kWakeRoundTrips, &eventFdRound));
  registerTimed(
      benchmark::RegisterBenchmark("isolates/transport/8B", &transportRows<std::uint64_t>));
  registerTimed(benchmark::RegisterBenchmark("isolates/transport/word", &transportRows<Word24>));
  registerTimed(benchmark::RegisterBenchmark("isolates/transport/64B", &transportRows<Crossing64>));
  registerTimed(benchmark::RegisterBenchmark("isolates/tell/cross", &tellBurst, true));
  registerTimed(benchmark::RegisterBenchmark("isolates/tell/same", &tellBurst, false));
  registerTimed(
      benchmark::RegisterBenchmark("isolates/pingpong/busy", &pingPongAcross, Across::Busy));
  registerTimed(
      benchmark::RegisterBenchmark("isolates/pingpong/wide", &pingPongAcross, Across::Wide));
  registerTimed(
      benchmark::RegisterBenchmark("isolates/pingpong/loaded", &pingPongAcross, Across::Loaded));
  registerTimed(
      benchmark::RegisterBenchmark("isolates/pingpong/idle", &pingPongAcross, Across::Idle));
  for (const std::size_t n : scalingCounts()) {
    registerTimed(benchmark::RegisterBenchmark(scalingRow(n).c_str(), &scaling, n));
  }
  registerTimed(benchmark::RegisterBenchmark(workloads::kForeignAskRow, &askForeign));
  registerTimed(benchmark::RegisterBenchmark(workloads::kCrossAskRow, &askAcross));
  registerTimed(benchmark::RegisterBenchmark("floor/moodycamel-bulk", &rounds<Timed (*)()>, "items",
                                             kForeignBatch, &moodycamelBulkRound));
  registerTimed(benchmark::RegisterBenchmark("isolates/foreign/tell", &foreignTells, false));
  registerTimed(benchmark::RegisterBenchmark("isolates/foreign/feeder", &foreignTells, true));
  for (const std::size_t n : kMemoryIsolates) {
    benchmark::RegisterBenchmark(memoryRow(n).c_str(), &memory, n)->Iterations(1)->Repetitions(1);
  }
  // One window per repetition.
  registerTimed(benchmark::RegisterBenchmark("isolates/idle-cpu", &idleCpu, quick)->Iterations(1));
}

}  // namespace coreactor::bench
