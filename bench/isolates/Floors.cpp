// bench/isolates/Floors.cpp — floor/spsc-bulk, floor/busy-poll-rtt and
// floor/eventfd-rtt (bench/isolates/Floors.hpp says what each is), the
// rounds the isolates/* rows pair with theirs.
#include "isolates/Floors.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <cerrno>
#include <system_error>

#include "isolates/TwoThreads.hpp"

namespace coreactor::bench::isolates {

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

namespace {

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

}  // namespace

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

// ---- pairing a row's rounds with a floor's ----------------------------------------

std::optional<double> pairedRatio(const Timed& row, std::int64_t rowOps, const Timed& floor,
                                  std::int64_t floorOps) {
  if (floor.ran != floorOps || floor.elapsed.count() <= 0) return std::nullopt;
  const auto perOp = [](const Timed& t, std::int64_t ops) {
    return std::chrono::duration<double>(t.elapsed).count() / static_cast<double>(ops);
  };
  return perOp(row, rowOps) / perOp(floor, floorOps);
}

void registerFloorRows() {
  registerTimed(benchmark::RegisterBenchmark("floor/spsc-bulk", &rounds<Timed (*)()>, "items",
                                             kBulkItems, &spscFloorRound));
  registerTimed(benchmark::RegisterBenchmark("floor/busy-poll-rtt", &rounds<Timed (*)()>,
                                             "round trips", kBusyRoundTrips, &busyPollRound));
  registerTimed(benchmark::RegisterBenchmark("floor/eventfd-rtt", &rounds<Timed (*)()>,
                                             "round trips", kWakeRoundTrips, &eventFdRound));
}

}  // namespace coreactor::bench::isolates
