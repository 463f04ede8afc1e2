// bench/dispatch/IoLatency.cpp — iolatency/<dispatcher>: not a cost per op:
// the median latency, in µs, from a pipe write on another thread to its read
// handler on the isolate, while a volley runs under that dispatcher.
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "coreactor/Asio.hpp"
#include "coreactor/Isolate.hpp"
#include "dispatch/Families.hpp"
#include "dispatch/Loop.hpp"
#include "dispatch/Volley.hpp"
#include "harness/BenchSupport.hpp"

namespace coreactor::bench::dispatch {
namespace {

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

void registerIoLatencyRows() {
  for (const DispatcherKind& kind : kDispatchers) {
    registerTimed(benchmark::RegisterBenchmark(("iolatency/" + std::string(kind.name)).c_str(),
                                               &ioLatency, kind.make));
  }
}

}  // namespace coreactor::bench::dispatch
