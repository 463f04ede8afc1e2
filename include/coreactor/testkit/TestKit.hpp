/// @file
/// `coreactor/testkit/TestKit.hpp` — testing actors (requirement A12).
//
//   testkit::TestKit kit;                       // a manual-run system on a ManualClock
//   testkit::TestProbe probe = kit.probe();
//   ActorRef echo = kit.system().spawn<Echo>("echo");
//   echo.tell(Ping{}, probe.ref());
//   Pong pong = probe.expectMsg<Pong>();        // runs the loops until idle, then looks
//   probe.expectNoMsg();
//   kit.advance(5s);                            // moves the clock and runs what became due
//
// A TestKit's system runs on the test's own thread (withManualRun) with a
// ManualClock: "within" in the expectations is manual time, so no test
// waits on the wall clock. A probe made from an ordinary threaded system
// waits in real time instead, up to `within`.
//
// Failed expectations throw testkit::ExpectationFailed with a description
// (use EXPECT_NO_THROW, or let the test fail on the exception).
// Thread-safety: a probe may receive on any isolate and be read from the
// test thread (its queue is locked).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Clock.hpp"

/// Testing actors and dispatchers: TestKit, TestProbe, CallingThreadDispatcher.
namespace coreactor::testkit {

/// What a failed expectation throws; what() describes it.
class ExpectationFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An actor that a test reads: it keeps what it receives, in order, and the
/// expectations take from there.
class TestProbe {
 public:
  /// Drives a manual system: runs it, moves its clock. Empty for a threaded one.
  struct Driver {
    std::function<void()> run;                     ///< runs the loops until idle
    std::function<void(Clock::duration)> advance;  ///< moves the clock, runs what is due
  };

  /// Spawns the probe's actor in `system` as `name`. Without a driver the
  /// expectations wait in real time (TestKit::probe gives one).
  TestProbe(ActorSystem& system, std::string name, Driver driver = {});

  /// The probe's actor: send to it, or name it as a sender.
  const ActorRef& ref() const noexcept { return ref_; }
  /// The sender of the message last taken by an expectation.
  const ActorRef& lastSender() const noexcept { return lastSender_; }

  /// The next message, which must be a T; waits up to `within` for it.
  template <class T>
  T expectMsg(Clock::duration within = std::chrono::seconds(3)) {
    Message m = next(within, detail::typeNameOf<T>());
    if (T* value = m.get<T>()) return std::move(*value);
    throw ExpectationFailed("expected a " + std::string(detail::typeNameOf<T>()) + ", got a " +
                            std::string(m.typeName()));
  }
  /// "Observe N": the next n messages, each a T.
  template <class T>
  std::vector<T> expectMsgs(std::size_t n, Clock::duration within = std::chrono::seconds(3)) {
    std::vector<T> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(expectMsg<T>(within));
    return out;
  }
  /// No message arrives within `within`.
  void expectNoMsg(Clock::duration within = std::chrono::milliseconds(100));
  /// Messages received and not yet expected.
  std::size_t pending() const;

 private:
  struct State {
    mutable std::mutex mutex;
    std::condition_variable arrived;
    std::deque<std::pair<Message, ActorRef>> queue;
  };
  Message next(Clock::duration within, std::string_view expected);
  bool waitFor(Clock::duration within);

  std::shared_ptr<State> state_;
  ActorRef ref_;
  ActorRef lastSender_;
  Driver driver_;
};

/// A system for a test: manual-run on a ManualClock, and probes that drive it.
class TestKit {
 public:
  /// Creates the system from `options`, made manual-run on this kit's clock.
  explicit TestKit(std::string name = "testkit",
                   ActorSystemOptions options = ActorSystemOptions::create());
  /// Stops the system (ActorSystem::stop: queued messages become dead letters).
  ~TestKit();

  /// The system under test.
  ActorSystem& system() noexcept { return *system_; }
  /// The clock of its timers.
  ManualClock& clock() noexcept { return clock_; }
  /// Runs every isolate until idle.
  void run() { system_->runUntilIdle(); }
  /// Moves the clock by `by`, then runs what became due.
  void advance(Clock::duration by) {
    clock_.advance(by);
    run();
  }
  /// A probe in this kit's system, driven by the kit. An empty name gets
  /// "probe-1", "probe-2", ...
  TestProbe probe(std::string name = "");

  /// "Send N": tells `to` make(0) ... make(n-1), with no loop turn between.
  template <class F>
  void sendN(const ActorRef& to, std::size_t n, F&& make, const ActorRef& sender = ActorRef()) {
    for (std::size_t i = 0; i < n; ++i) to.tell(make(i), sender);
  }

 private:
  ManualClock clock_;
  std::unique_ptr<ActorSystem> system_;
  std::size_t probes_ = 0;
};

}  // namespace coreactor::testkit
