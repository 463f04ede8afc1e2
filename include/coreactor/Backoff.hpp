/// @file
/// `coreactor/Backoff.hpp` — a supervisor that runs one child and starts it
/// again after growing delays when it fails (or stops): BackoffSupervisor,
/// configured by BackoffOptions. docs/supervision.md, "Backoff: restarting
/// after growing delays".
//
//   using namespace std::chrono_literals;
//   ActorFactory client = [] { return std::unique_ptr<Actor>(std::make_unique<DbClient>()); };
//   ActorRef db = system->spawn<BackoffSupervisor>(
//       "db", ActorOptions::create(), client, "client",
//       BackoffOptions::create(100ms, 10s, 0.2).withMaxRestarts(20));
//   db.tell(Query{...}, replyTo);   // reaches the child; its ctx.sender() is replyTo
//
// A restart in place (SupervisorStrategy's Restart) runs the new instance at
// once: against a database that is down, it fails again at once, in a loop.
// The backoff supervisor instead lets the child stop and starts a fresh one
// (a new reference) after delay n = min(maxBackoff, minBackoff * 2^n) *
// (1 + r), r drawn uniformly from [0, randomFactor], n counting the restarts
// since the child last ran for resetAfter without ending. The delays are
// one-shot schedules to itself (ReceiveContext::scheduleOnce) on its
// isolate's clock, so a ManualClock moves them in tests.
//
// While the child is down, what the supervisor receives waits, in order, in
// a buffer of BackoffOptions::withBufferSize messages (default 1000) and
// reaches the new child first; what does not fit is a dead letter.
//
// Thread-safety: BackoffOptions is a value; build it anywhere.
// BackoffSupervisor is an actor: every call on it runs on its own isolate,
// in its turns, as for any Actor. Cost: each message the supervisor
// forwards is a second send (no allocation on the child's isolate for a
// small message); a message that waits for the child is moved into the
// buffer (a deque: an allocation per block of them).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <string>

#include "coreactor/Actor.hpp"
#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Schedule.hpp"
#include "coreactor/SupervisorStrategy.hpp"

namespace coreactor {

/// How a BackoffSupervisor restarts its child: the least and the most delay,
/// the jitter, when the delay starts again from the least, how many restarts
/// it allows, what ends of the child lead to a restart, and how many
/// messages wait for the child while it is down. An immutable value built
/// fluently; each call checks its argument at once and throws
/// std::system_error with ErrInvalidBackoff (naming the call and the value)
/// rather than failing later.
class BackoffOptions {
 public:
  /// Delays from `minBackoff` doubling up to `maxBackoff`, each lengthened by
  /// a random share of up to `randomFactor` (0: exact delays; 0.2: up to 20%
  /// longer). Restarts on failure, with no limit, a reset after `maxBackoff`
  /// of stable running, and a buffer of 1000 messages. Throws
  /// ErrInvalidBackoff for a delay that is not positive, `minBackoff >
  /// maxBackoff`, or a `randomFactor` outside [0, 1] (or NaN).
  static BackoffOptions create(std::chrono::nanoseconds minBackoff,
                               std::chrono::nanoseconds maxBackoff, double randomFactor);

  /// The child has run stably once it has run for `resetAfter` without
  /// ending: the restart count goes back to 0, so the next delay is
  /// minBackoff again. Default: maxBackoff. Throws ErrInvalidBackoff for a
  /// period that is not positive.
  BackoffOptions withResetAfter(std::chrono::nanoseconds resetAfter) const;
  /// When the child ends once more after `maxRestarts` restarts with no reset
  /// between them, the supervisor stops itself instead (its watchers get
  /// Terminated) and the child stays stopped. 0, the default: no limit.
  /// Throws ErrInvalidBackoff for a negative count.
  BackoffOptions withMaxRestarts(int maxRestarts) const;
  /// How many messages wait, in order, for the child while it is down; the
  /// ones past it are dead letters. 0: none wait, every one is a dead
  /// letter. Default 1000.
  BackoffOptions withBufferSize(std::size_t messages) const;
  /// The options the child is spawned with, at each start. Default:
  /// ActorOptions::create().
  BackoffOptions withChildOptions(ActorOptions options) const;
  /// Restart the child only when it fails (a throw from its handler): the
  /// default. A child that stops itself stays stopped, and the supervisor
  /// stops with it. So does a child whose constructor or preStart throws:
  /// the runtime stops such an actor rather than supervising it.
  BackoffOptions onFailure() const;
  /// Restart the child when it fails and also when it stops itself (its
  /// ctx.stop(), a PoisonPill sent to it, a throw from its constructor or
  /// preStart).
  BackoffOptions onStop() const;

  /// The delay before the first restart.
  std::chrono::nanoseconds minBackoff() const noexcept { return minBackoff_; }
  /// The longest delay before the jitter.
  std::chrono::nanoseconds maxBackoff() const noexcept { return maxBackoff_; }
  /// The largest share by which the jitter lengthens a delay, in [0, 1].
  double randomFactor() const noexcept { return randomFactor_; }
  /// The stable period after which the delays start again from minBackoff.
  std::chrono::nanoseconds resetAfter() const noexcept { return resetAfter_; }
  /// Restarts allowed without a reset; 0: no limit.
  int maxRestarts() const noexcept { return maxRestarts_; }
  /// Messages kept for the child while it is down.
  std::size_t bufferSize() const noexcept { return bufferSize_; }
  /// The child's spawn options.
  const ActorOptions& childOptions() const noexcept { return childOptions_; }
  /// True after onStop(): a child that stops itself is restarted too.
  bool restartsOnStop() const noexcept { return restartsOnStop_; }

  /// The delay before restart number `n` (0 for the first after a start or
  /// a reset): min(maxBackoff, minBackoff * 2^n) * (1 + jitter *
  /// randomFactor), `jitter` in [0, 1] (the supervisor draws it uniformly).
  /// Saturates rather than overflowing.
  std::chrono::nanoseconds delay(std::uint32_t n, double jitter) const noexcept;

 private:
  BackoffOptions(std::chrono::nanoseconds minBackoff, std::chrono::nanoseconds maxBackoff,
                 double randomFactor)
      : minBackoff_(minBackoff),
        maxBackoff_(maxBackoff),
        randomFactor_(randomFactor),
        resetAfter_(maxBackoff) {}

  std::chrono::nanoseconds minBackoff_;
  std::chrono::nanoseconds maxBackoff_;
  double randomFactor_;
  std::chrono::nanoseconds resetAfter_;
  int maxRestarts_ = 0;
  // Room for a burst while the child is down; bounded, so that a child that
  // does not come back soon cannot make the supervisor hold memory without end.
  std::size_t bufferSize_ = 1000;
  ActorOptions childOptions_ = ActorOptions::create();
  bool restartsOnStop_ = false;
};

/// An actor that runs one child, forwards it every message it gets (the
/// sender kept), and when the child fails (or stops, BackoffOptions::onStop)
/// starts a new one after the delay BackoffOptions::delay gives. Spawn it as
/// any actor: `spawn<BackoffSupervisor>(name, actorOptions, childFactory,
/// childName, backoffOptions)`, from the system or from a context.
///
/// What it answers itself, and does not forward: GetCurrentChild,
/// GetRestartCount. The child's failure is logged by the runtime, as every
/// failure is; the supervisor logs each restart it schedules (info) and
/// its own stop at the limit (warn).
///
/// The child's parent is the supervisor, so what the child tells
/// ctx.parent() comes back to the child; give it the reference of whoever
/// must hear from it.
class BackoffSupervisor : public Actor {
 public:
  /// Asks for the current child: answered with CurrentChild.
  struct GetCurrentChild {};
  /// The answer to GetCurrentChild.
  struct CurrentChild {
    ActorRef child;  ///< the running child; none while it is down
  };
  /// Asks for the restart count: answered with RestartCount.
  struct GetRestartCount {};
  /// The answer to GetRestartCount.
  struct RestartCount {
    std::uint32_t count;  ///< children started after the first, since the last reset
  };

  /// Will run `child` (made by the factory at each start) under the name
  /// `childName`, restarting it as `options` say. The child is spawned in
  /// preStart. Throws ErrInvalidOption for an empty factory.
  BackoffSupervisor(ActorFactory child, std::string childName, BackoffOptions options);

  /// Spawns and watches the child.
  void preStart(ReceiveContext& ctx) override;
  /// Answers the two questions above, starts the child when its delay has
  /// passed, resets the count once it has run stably, and hands every other
  /// message to the child, or to the buffer while it is down.
  void receive(ReceiveContext& ctx) override;
  /// Ends the pending schedules and makes dead letters of the messages
  /// waiting for the child; then, as the default, stops the child.
  void preRestart(ReceiveContext& ctx, const std::exception_ptr& cause) override;
  /// Makes dead letters of the messages still waiting for the child.
  void postStop(ReceiveContext& ctx) override;
  /// One-for-one: a failed child is stopped (Directive::Stop); its
  /// Terminated then starts the delay.
  SupervisorStrategy supervisorStrategy() override;

 private:
  struct StartChild {
    std::uint64_t incarnation;
  };
  struct ResetBackoff {
    std::uint64_t incarnation;
  };
  struct Waiting {
    Message message;
    ActorRef sender;
  };

  void startChild(ReceiveContext& ctx, bool restart);
  void childEnded(ReceiveContext& ctx);
  void forward(ReceiveContext& ctx);
  void flushAsDeadLetters();
  void deadLetter(Message&& message, const ActorRef& sender) const;

  ActorFactory factory_;
  std::string childName_;
  BackoffOptions options_;
  ActorRef child_;      // the running child; none while down
  ActorRef lastChild_;  // the latest child, running or stopped: where dead letters are told
  std::deque<Waiting> waiting_;
  std::uint32_t restarts_ = 0;
  std::uint64_t incarnation_ = 0;  // one per child started; tells stale ticks apart
  bool childFailed_ = false;
  ScheduleHandle startTimer_;
  ScheduleHandle resetTimer_;
};

}  // namespace coreactor
