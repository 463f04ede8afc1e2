// bench/dispatch/Volley.hpp — the seeds' request/response volley: what
// volley/<dispatcher> times, and what keeps the isolate busy while
// lateness/<dispatcher> and iolatency/<dispatcher> probe it.
#pragma once

#include <chrono>
#include <cstdint>

#include "coreactor/Dispatcher.hpp"
#include "coreactor/Task.hpp"

namespace coreactor::bench::dispatch {

/// volley/*: the seeds' volley, "Measured on a 10 000-exchange
/// request/response volley".
inline constexpr std::int64_t kVolleyRoundTrips = 10'000;

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

// The probes of lateness/* and iolatency/*: a timer re-armed, or a pipe
// written, every 100 µs (a typical short timeout or tick) until it has fired
// kProbeFires times in one pass. The volley that keeps the
// isolate busy meanwhile is capped, so that a dispatcher that starves the
// timer (microtask: the volley never leaves the microtask queue) still ends:
// the probe then fires once, after the whole capped volley, and its lateness
// is that volley's length (~13 ms at 1M round trips), the row's "starved" figure.
inline constexpr std::chrono::microseconds kProbePeriod{100};
inline constexpr std::int64_t kProbeFires = 50;
inline constexpr std::int64_t kLatenessRoundTripCap = 1'000'000;

}  // namespace coreactor::bench::dispatch
