/// @file
/// `coreactor/ActorSystem.hpp` — the actor system: isolates, actors, the event
/// stream, ask (requirement A1, A3).
//
//   auto system = ActorSystem::create("app");
//   ActorRef counter = system->spawn<Counter>("counter");
//   counter.tell(Increment{});
//   int n = system->ask<int>(counter, Get{}, std::chrono::seconds(1)).get();
//   system->shutdown();
//
// A system runs N isolates (ActorSystemOptions::withIsolates, default one per
// CPU the process may use, one in manual mode), each
// on its own thread with its own instance of the default dispatcher. With
// withManualRun() no thread is started: the caller drives every loop with
// runUntilIdle(), which makes tests deterministic.
//
// Thread-safety: every call here is callable from any thread, except
// runUntilIdle() (the thread that created the system, manual mode only).
// shutdown() and stop() called from an actor (on one of the system's own
// isolates) cannot wait for the loop they run on: they start the stop and
// return at once; the system's destructor, or a stop() from outside, joins.
// Top-level actors are children of the user guardian ("/user"), whose
// strategy restarts a failing child.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreactor/Actor.hpp"
#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/ActorSystemOptions.hpp"
#include "coreactor/Cluster.hpp"
#include "coreactor/Error.hpp"
#include "coreactor/EventStream.hpp"
#include "coreactor/Metrics.hpp"
#include "coreactor/Placement.hpp"
#include "coreactor/Schedule.hpp"

namespace coreactor {

class Dispatcher;
class Isolate;
namespace detail {
class SystemCore;
/// The runtime's inside of `system` (runtime/SystemCore.hpp): for the
/// runtime, its tests and benches; no part of the contract.
SystemCore& coreOf(ActorSystem& system) noexcept;
}  // namespace detail

/// What crossed between isolates so far (requirement X1, X3).
struct TransportStats {
  std::uint64_t crossings = 0;       ///< messages sent isolate to isolate (rings)
  std::uint64_t overflowed = 0;      ///< of which waited in an overflow list first
  std::uint64_t refused = 0;         ///< dead-lettered: the overflow list was at its bound
  std::uint64_t ringsGrown = 0;      ///< rings replaced by a larger one during a flood
  std::uint64_t ringsShrunk = 0;     ///< grown rings back to their first size, quiet since
  std::uint64_t foreignBlocked = 0;  ///< tells from other threads that waited for room
  std::uint64_t moves = 0;           ///< actors that moved to another isolate (ActorSystem::move)
  std::uint64_t forwarded = 0;       ///< messages and signals an entry a moved actor left sent on
  std::uint64_t routes = 0;          ///< now: routes isolates keep to actors that moved (a gauge)
  std::uint64_t balancerRounds = 0;  ///< periods the balancer decided in (withBalancer)
  std::uint64_t balancerMoves = 0;   ///< moves it ordered that were done (undoing ones too)
  std::uint64_t balancerUndone = 0;  ///< its steps it undid: the throughput fell after them
};

/// How a move ends (ActorSystem::move): an empty error once the actor is on
/// its new isolate, or why it did not move (ErrDead, ErrNotMovable, ...).
using MoveCompletion = std::function<void(std::error_code error)>;

/// How an ask ends: the reply (error empty) or an error (ErrAskTimeout, ErrDead, ...).
using AskCompletion = std::function<void(Message* reply, std::error_code error)>;

namespace detail {
/// Where the reply of an ask from outside is made, for its future's blocking
/// calls to refuse a wait that could never end (AskFuture).
struct AskWaitGuard {
  ActorSystem* system = nullptr;       ///< null: nothing to check (another system's target)
  const void* replyIsolate = nullptr;  ///< the runtime of the isolate that runs the reply
  bool manual = false;                 ///< the system is driven by hand
  bool anyLoop = false;                ///< any of the system's loops may have to run it (a move)
  /// Called before blocking on a future that is not ready: throws
  /// ErrWouldDeadlock where the wait could never end; on a manual system's
  /// driving thread, outside its loops, first runs the loops until idle and
  /// throws only if `ready()` still says no.
  void beforeWait(bool (*ready)(const void*), const void* future) const;
};
/// Before a thread blocks on an ask's future: looks at `ready(future)`
/// for a few tens of microseconds (yielding the CPU now and then), so that
/// a reply that comes soon costs the waiting thread no wake-up.
void spinBeforeBlocking(bool (*ready)(const void*), const void* future) noexcept;
}  // namespace detail

/// The future of ActorSystem::ask. Holds a std::future of the reply and
/// offers its calls; each call that blocks (get(), wait(), and wait_for()
/// and wait_until() with time left) refuses a wait that could never end
/// with ErrWouldDeadlock instead of hanging: on the loop of the isolate
/// that must run the reply (a handler asking an actor of its own isolate
/// and waiting: that loop also runs the ask's timeout), or inside a manual
/// system's loops. On a manual system's driving thread, outside the loops,
/// they first run the loops until idle, so the reply can come. A wait that
/// must block spins on the reply for a few tens of microseconds before it
/// sleeps: a reply that comes in that time saves the sleeping thread's
/// wake-up, which on a VM costs more than the ask itself.
///
/// Movable, not copyable; owned by the thread that waits on it. There is no
/// implicit way to a std::future: unguarded() gives one explicitly, without
/// these checks.
template <class R>
class AskFuture {
 public:
  /// An empty future (valid() false).
  AskFuture() noexcept = default;
  /// Takes `other`'s ask; `other` is left empty.
  AskFuture(AskFuture&& other) noexcept = default;
  /// Takes `other`'s ask; `other` is left empty.
  AskFuture& operator=(AskFuture&& other) noexcept = default;
  AskFuture(const AskFuture&) = delete;
  AskFuture& operator=(const AskFuture&) = delete;

  /// True while it refers to an ask's outcome (until get() or unguarded()).
  bool valid() const noexcept { return future_.valid(); }
  /// The reply, or throws what the ask failed with (see ActorSystem::ask);
  /// ErrWouldDeadlock where the wait could never end.
  R get() {
    prepareToBlock();
    return future_.get();
  }
  /// Blocks until the ask has completed; ErrWouldDeadlock as get().
  void wait() const {
    prepareToBlock();
    future_.wait();
  }
  /// Blocks until the ask has completed or `timeout` has passed. A timeout
  /// that is not positive only looks and never throws; any other wait that
  /// could never end is ErrWouldDeadlock, as get().
  template <class Rep, class Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& timeout) const {
    if (timeout <= timeout.zero()) return future_.wait_for(timeout);
    prepareToBlock();
    return future_.wait_for(timeout);
  }
  /// wait_for() until `deadline`; a deadline already passed only looks.
  template <class Clock, class Duration>
  std::future_status wait_until(const std::chrono::time_point<Clock, Duration>& deadline) const {
    if (deadline <= Clock::now()) return future_.wait_for(std::chrono::seconds(0));
    prepareToBlock();
    return future_.wait_until(deadline);
  }
  /// The plain std::future, for an API that wants one. Its blocking calls
  /// have none of the checks above: waited on where the reply must run (the
  /// target's isolate, or a manual system's loops), it hangs for as long as
  /// it waits, and the ask's timeout cannot fire. This AskFuture is left
  /// empty (valid() false).
  std::future<R> unguarded() && noexcept { return std::move(future_); }

 private:
  friend class ActorSystem;
  AskFuture(std::future<R>&& future, detail::AskWaitGuard guard) noexcept
      : future_(std::move(future)), guard_(guard) {}
  static bool isReady(const void* self) {
    return static_cast<const AskFuture*>(self)->future_.wait_for(std::chrono::seconds(0)) ==
           std::future_status::ready;
  }
  void prepareToBlock() const {
    if (!future_.valid() || isReady(this)) return;
    if (guard_.system != nullptr) guard_.beforeWait(&isReady, this);
    detail::spinBeforeBlocking(&isReady, this);
  }
  std::future<R> future_;
  detail::AskWaitGuard guard_;
};

/// The actor system: its isolates, its actors, the scheduler and the event
/// stream. Made by create(); every call may be made from any thread, but
/// runUntilIdle() (see the file comment).
class ActorSystem : public SchedulingCalls<ActorSystem>, public SpawnCalls<ActorSystem> {
 public:
  /// Creates and starts a system. Throws a named error for bad options
  /// (ErrDispatcherNotClonable, ...).
  static std::unique_ptr<ActorSystem> create(
      std::string name, ActorSystemOptions options = ActorSystemOptions::create());
  /// Stops whatever still runs (as stop()) and joins the isolate threads.
  ~ActorSystem();
  ActorSystem(const ActorSystem&) = delete;
  ActorSystem& operator=(const ActorSystem&) = delete;

  /// The name given to create().
  const std::string& name() const noexcept;

  // spawn (a top-level actor): SpawnCalls. Throws ErrDuplicateName,
  // ErrIsolateOutOfRange, ErrActorSystemNotStarted (a stopped system).

  /// Stops an actor and its subtree (asynchronously).
  void stop(const ActorRef& actor);

  /// Sends `message` to `target` and completes with its reply of type R.
  /// Fails with ErrAskTimeout after `timeout`, ErrDead at once if the target
  /// has stopped or stops with the ask still queued, ErrUnexpectedReply for a reply of another
  /// type. Throws ErrInvalidTimeout for a timeout that is not positive, and,
  /// for an actor of another rank, ErrNotSerializable or ErrMessageTooLarge
  /// for a message that cannot cross (docs/cluster.md): nothing is sent.
  /// Waiting on the future where the reply can never come (a handler of the
  /// target's own isolate) is ErrWouldDeadlock (AskFuture); from an actor,
  /// use ReceiveContext::ask (a callback, or co_await) instead.
  template <class R, class M>
  AskFuture<R> ask(const ActorRef& target, M&& message, std::chrono::nanoseconds timeout) {
    auto promise = std::make_shared<std::promise<R>>();
    AskFuture<R> future(promise->get_future(), waitGuard(target));
    ask(target, Message(std::forward<M>(message)), timeout,
        [promise](Message* reply, std::error_code error) {
          if (error) {
            promise->set_exception(std::make_exception_ptr(std::system_error(error)));
          } else if (R* value = reply->get<R>()) {
            promise->set_value(std::move(*value));
          } else {
            promise->set_exception(std::make_exception_ptr(
                std::system_error(make_error_code(Error::ErrUnexpectedReply),
                                  "expected " + std::string(detail::typeNameOf<R>()) + ", got " +
                                      std::string(reply->typeName()))));
          }
        });
    return future;
  }
  /// ask() with a completion callback instead of a future: it runs on the
  /// target's isolate with the reply (the error empty) or the error, once.
  /// For an actor of another rank it runs on isolate 0, or, asked from a
  /// foreign thread, on the thread that takes the reply from the cluster's
  /// link (or the one that times it out): it must not block. No future, no
  /// allocation beyond the callback's. Throws as the other form does
  /// (ErrInvalidTimeout, and for another rank ErrNotSerializable or
  /// ErrMessageTooLarge); the completion then never runs.
  void ask(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
           AskCompletion completion);

  // ---- moving actors (docs/isolates.md, "Moving an actor") ----
  /// Moves `actor` to isolate `isolate` of this system, between two of its
  /// turns. Its reference stays the same and keeps working everywhere; the
  /// messages every sender sent it, before, during and after the move, are
  /// handled in the order each sender sent them, each once. The future is
  /// ready once the actor is on its new isolate (before its first turn
  /// there), or holds why it did not move: ErrDead (it stopped first),
  /// ErrNotMovable (ActorOptions::withPinned, a dispatcher of its own, or it
  /// used ReceiveContext::isolate). An actor whose coroutine handler is
  /// suspended, or whose supervisor has yet to decide, moves when it runs
  /// again. Throws at the call ErrIsolateOutOfRange, ErrDead for the empty
  /// reference, ErrNotMovable for an actor of another rank, ErrInvalidOption
  /// for another system's, ErrActorSystemNotStarted once the system stops.
  /// Any thread; waiting on the future from one of the system's loops is
  /// ErrWouldDeadlock (from an actor, use ReceiveContext::move).
  AskFuture<void> move(const ActorRef& actor, std::size_t isolate);
  /// move() with a completion instead of a future: it runs on the actor's
  /// new isolate once the actor is there, or where the move was refused. It
  /// must not block. Throws as the other form does; then it never runs.
  void move(const ActorRef& actor, std::size_t isolate, MoveCompletion done);

  // ---- the scheduler (requirement S1-S12; coreactor/Schedule.hpp, docs/scheduling.md) ----
  // schedule, scheduleOnce, cancel/pause/resumeSchedule: SchedulingCalls.
  // Ticks are ordinary sends from the sender of the options (default: no
  // sender). A schedule made on one of the system's isolates lives there; one
  // made from another thread lives on the target's isolate.
  /// Live schedules on all isolates.
  std::size_t scheduleCount() const noexcept;
  /// Ticks sent by schedules so far (each an ordinary send: delivered, or a
  /// dead letter, or dropped as stale by a strict cancel).
  std::uint64_t tickCount() const noexcept;
  /// Ticks of strict-cancel schedules dropped at the receiver because a
  /// cancel or pause had completed after they were sent.
  std::uint64_t staleTickCount() const noexcept;
  /// Ticks of repeating schedules not sent because their isolate was late:
  /// a schedule never bursts to catch up; it skips what it missed.
  std::uint64_t skippedTickCount() const noexcept;

  /// The system's publish/subscribe channel (DeadLetter, lifecycle events, yours).
  EventStream& eventStream() noexcept;
  /// Messages published as DeadLetter so far.
  std::uint64_t deadLetterCount() const noexcept;

  /// Graceful: stops every actor (children before parents, each postStop
  /// run), then the isolates; returns when all is stopped. Idempotent.
  /// Messages still queued when an actor stops become dead letters: send it
  /// a PoisonPill first to have its mailbox handled.
  void shutdown();
  /// Immediate: the loops stop after their current step; queued messages
  /// become dead letters. Returns when the isolates have stopped. Idempotent.
  void stop();
  /// True from create() until a stop() or shutdown() begins.
  bool running() const noexcept;

  /// Manual mode: runs every isolate's loop on the calling thread until all
  /// are idle. Throws ErrNotManual for a threaded system, ErrNotOnIsolate
  /// from a thread other than the one that created the system. Any number
  /// of manual systems may share a thread.
  void runUntilIdle();

  /// How many isolates the system runs.
  std::size_t isolateCount() const noexcept;
  /// Where each isolate runs. Pinning happens as each isolate's thread
  /// starts: ask again after the first message an isolate handled to see it.
  std::vector<IsolatePlacement> placement() const;
  /// What crossed between isolates so far: relaxed counters, summed over the isolates.
  TransportStats transportStats() const noexcept;
  /// Every isolate's figures (coreactor/Metrics.hpp), each read on its own
  /// loop. From outside the system it waits for them; a manual system's
  /// driving thread reads them at once. On one of the system's loops, or on
  /// a thread that does not drive a manual system, it would wait for ever:
  /// ErrWouldDeadlock (use the callback form).
  MetricsSnapshot metrics();
  /// metrics() without waiting: `done` gets the snapshot on the loop of the
  /// isolate that answered last (on this thread for the thread driving a
  /// manual system). Any thread. Once the system has stopped, each isolate
  /// reports its index and zeros.
  void metrics(std::function<void(MetricsSnapshot)> done);
  /// The port the metrics endpoint listens on (ActorSystemOptions::
  /// withMetricsEndpoint; the one taken for port 0); 0 without an endpoint.
  std::uint16_t metricsEndpointPort() const noexcept;
  // ---- the cluster (coreactor/Cluster.hpp, docs/cluster.md) ----
  /// This system's rank in its cluster; 0 without one.
  int rank() const noexcept;
  /// The rank whose system runs the actor `ref` names: this one's for a
  /// local actor, -1 for the empty reference or another system's.
  int rankOf(const ActorRef& ref) const noexcept;
  /// The top-level actor named `name` on rank `rank` (this one's too), or
  /// the empty reference if it has none by that name: an ask of that
  /// rank's lookup service, answered by its link. ErrInvalidOption without
  /// a cluster or for a rank it does not have; the future fails with
  /// ErrAskTimeout if the answer takes longer than `timeout`.
  AskFuture<ActorRef> lookup(int rank, const std::string& name,
                             std::chrono::nanoseconds timeout = std::chrono::seconds(5));
  /// This rank's traffic with the others; zeros without a cluster.
  ClusterStats clusterStats() const noexcept;
  /// Isolate `index`. Throws ErrIsolateOutOfRange.
  Isolate& isolate(std::size_t index);
  /// The system default dispatcher instance of isolate `index`.
  Dispatcher& dispatcher(std::size_t index);

 private:
  friend detail::SystemCore& detail::coreOf(ActorSystem& system) noexcept;
  friend class SchedulingCalls<ActorSystem>;
  friend class SpawnCalls<ActorSystem>;
  ActorRef spawnWith(std::string name, ActorFactory factory, ActorOptions options);
  ActorRef spawnRouterWith(std::string name, RouterOptions options, ActorFactory routee,
                           std::vector<ActorRef> group);
  ScheduleResult makeSchedule(Message&& message, const ActorRef& target,
                              const detail::Cadence& cadence, const ScheduleOptions& options);
  ScheduleResult controlSchedule(ScheduleControl control, const std::string& reference);
  ScheduleResult controlSchedule(ScheduleControl control, ScheduleHandle handle);
  detail::AskWaitGuard waitGuard(const ActorRef& target) noexcept;
  explicit ActorSystem(std::unique_ptr<detail::SystemCore> core);
  std::unique_ptr<detail::SystemCore> core_;
};

}  // namespace coreactor
