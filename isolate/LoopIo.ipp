// The loop's intake from outside (LoopIo.hpp): the inbox, Asio's completions
// and the pollers. Included once, at the end of Isolate.cpp: the loop's
// translation unit (see the top of that file).
#include "LoopIo.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

#include "IsolateCold.hpp"

namespace coreactor::detail {
namespace {

// See LoopIo::runIo.
constexpr std::uint32_t kIoCheckEvery = 64;

}  // namespace

void LoopIo::drainInbox(Isolate& isolate) {
  Isolate::Unit units[64];
  for (;;) {
    const std::size_t n = isolate.cold_->inbox.try_dequeue_bulk(units, 64);
    for (std::size_t i = 0; i < n; ++i) isolate.macrotasks_.push(units[i]);
    if (n < 64) return;
  }
}

void LoopIo::runPollers(Isolate& isolate) {
  for (Poller* p : isolate.pollers_) {
    try {
      p->poll();
    } catch (...) {
      isolate.reportError(nullptr, std::current_exception());
    }
    isolate.drainMicrotasks();
  }
}

void LoopIo::lookBetweenUnits(Isolate& isolate, std::size_t poller) noexcept {
  try {
    isolate.unitPollers_[poller]->pollBetweenUnits();
  } catch (...) {
    isolate.reportError(nullptr, std::current_exception());
  }
}

void LoopIo::runIo(Isolate& isolate) {
  boost::asio::io_context& io = isolate.cold_->io;
  Isolate::Cold& cold = *isolate.cold_;
  // An empty poll_one() costs ~40 ns (a mutex, and Asio's per-call thread
  // bookkeeping): more than a whole macrotask hop. So the loop polls every
  // iteration only once the isolate has I/O objects (Asio's reactor exists:
  // sockets, Asio timers); handlers merely posted to the io_context are
  // looked at every kIoCheckEvery iterations and whenever the loop would sleep.
  //
  // With a reactor, an empty poll is an epoll_wait system call: half a
  // microsecond on a VM, an eighth of a busy iteration's time. So a busy loop
  // whose polls come back empty backs off, polling every 2nd, 4th, then
  // every kIoPollBackoffMax-th iteration (Isolate.hpp), and polls every iteration again as
  // soon as one ran a completion. A completion waits at most that many
  // iterations of a busy loop (each bounded by the hybrid's budget); a loop
  // about to sleep always looks, in Asio's run_one.
  if (!cold.reactorSeen) {
    if (++cold.sinceIoCheck < kIoCheckEvery) return;
    cold.sinceIoCheck = 0;
    cold.reactorSeen = boost::asio::has_service<boost::asio::detail::reactor>(io);
  } else if (++cold.sinceIoPoll < cold.ioPollEvery) {
    return;
  }
  cold.sinceIoPoll = 0;
  ++isolate.stats_.ioPolls;
  for (std::size_t i = 0; i < isolate.options_.ioHandlersPerTurn; ++i) {
    std::size_t ran = 0;
    try {
      ran = io.poll_one();
    } catch (...) {
      ran = 1;  // a completion handler threw: it ran, and it is reported
      isolate.reportError(nullptr, std::current_exception());
    }
    if (ran == 0) {
      if (i == 0) {
        cold.ioPollEvery = std::min(cold.ioPollEvery * 2, Isolate::kIoPollBackoffMax);
      }
      return;
    }
    cold.ioPollEvery = 1;
    ++isolate.stats_.ioHandlers;
    isolate.drainMicrotasks();
    if (isolate.stopRequested_.load(std::memory_order_relaxed)) return;
  }
}

}  // namespace coreactor::detail
