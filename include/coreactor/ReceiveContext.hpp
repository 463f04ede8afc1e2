/// @file
/// `coreactor/ReceiveContext.hpp` — what an actor works through in its
/// handler and hooks: the current message and its sender, sending and
/// asking, scheduling, spawning, children and watching; and the awaiters of
/// its coroutine handlers' `co_await ctx.ask` and `co_await ctx.delay`.
/// Every call runs on the actor's own isolate, inside one of its turns or
/// hooks (coreactor/Actor.hpp).
#pragma once

#include <chrono>
#include <coroutine>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreactor/Actor.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/AskResult.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Schedule.hpp"

namespace spdlog {
class logger;
}  // namespace spdlog

namespace coreactor {

// ---- the context ---------------------------------------------------------------

/// What an actor works through in its handler and hooks: the current message
/// and its sender, sending and asking, scheduling, children and watching.
/// Use it on the actor's isolate, during the call it was handed to (in a
/// coroutine handler, across its awaits too).
class ReceiveContext : public SchedulingCalls<ReceiveContext>, public SpawnCalls<ReceiveContext> {
 public:
  /// This actor's reference.
  const ActorRef& self() const noexcept { return self_; }
  /// Who sent the current message (none for a message without a sender).
  const ActorRef& sender() const noexcept { return sender_; }
  /// The parent's reference; for a top-level actor, the user guardian ("/user").
  ActorRef parent() const noexcept;
  /// The system this actor belongs to.
  ActorSystem& system() const noexcept;
  /// The isolate this actor runs on. An actor that calls it may keep what
  /// belongs to that loop (a timer, an I/O object): from then on it never
  /// moves (ErrNotMovable; docs/isolates.md, "Moving an actor").
  Isolate& isolate() const noexcept;
  /// The index of the isolate this actor runs on now; a move changes it.
  std::size_t isolateIndex() const noexcept;
  /// The actor's path, e.g. "/user/parent/child".
  std::string path() const;

  /// The system logger (spdlog; include <spdlog/spdlog.h> to use it), with
  /// this turn's log context set: its records carry this actor's path, its
  /// isolate and the current message's type (requirement A9).
  spdlog::logger& log();

  /// The current message; an empty Message in lifecycle hooks, in ask
  /// callbacks, and in re-entrant handlers after their first co_await.
  Message& message() noexcept { return message_ != nullptr ? *message_ : noMessage(); }
  /// True if the current message holds exactly a T.
  template <class T>
  bool is() const noexcept {
    return message_ != nullptr && message_->is<T>();
  }
  /// The current message's T, or nullptr (another type, or no message).
  template <class T>
  T* get() noexcept {
    return message_ != nullptr ? message_->get<T>() : nullptr;
  }

  /// Sends to the current sender, with this actor as the sender.
  template <class M>
  void reply(M&& message) {
    sender_.tell(std::forward<M>(message), self());
  }
  /// Sends with this actor as the sender.
  template <class M>
  void tell(const ActorRef& to, M&& message) {
    to.tell(std::forward<M>(message), self());
  }

  /// Asks `target` and calls `onReply(ctx, AskResult<R>&)` on this actor's
  /// isolate, inside a turn of this actor, once the reply (or an error: a
  /// timeout, a dead target) is there. The actor goes on handling its
  /// messages meanwhile; a throw from onReply goes to supervision. Throws
  /// ErrInvalidTimeout for a timeout that is not positive.
  template <class R, class M, class F>
  void ask(const ActorRef& target, M&& message, std::chrono::nanoseconds timeout, F&& onReply) {
    askFrom(target, Message(std::forward<M>(message)), timeout,
            [f = std::forward<F>(onReply)](ReceiveContext& ctx, Message* reply,
                                           std::error_code error) mutable {
              AskResult<R> result(reply, error);
              f(ctx, result);
            });
  }
  /// In a coroutine handler (coreactor/Async.hpp), `co_await ctx.ask<R>(target,
  /// message, timeout)` gives the AskResult<R>, resuming inside a turn of
  /// this actor. The ask is sent when awaited. ErrInvalidTimeout is thrown
  /// at the co_await.
  template <class R, class M>
  [[nodiscard]] detail::AskAwaiter<R> ask(const ActorRef& target, M&& message,
                                          std::chrono::nanoseconds timeout) {
    return detail::AskAwaiter<R>(*this, target, Message(std::forward<M>(message)), timeout);
  }
  /// In a coroutine handler, `co_await ctx.delay(d)` resumes inside a turn of
  /// this actor, `d` from now (a timer on its isolate's clock).
  [[nodiscard]] detail::DelayAwaiter delay(std::chrono::nanoseconds d);

  // ---- the scheduler (requirement S1-S12; docs/scheduling.md) --------------------------
  // schedule, scheduleOnce, cancel/pause/resumeSchedule: SchedulingCalls.
  // A schedule made here lives on this actor's isolate and is owned by this
  // actor as well as by the system: this actor's full stop cancels it, a
  // restart keeps it (S6). Ticks come from this actor unless the options name
  // another sender (S3). Calls on schedules this isolate holds take effect
  // at once; `co_await` the result in a coroutine handler to wait for one
  // that another isolate holds.

  // spawn (a child of this actor): SpawnCalls. Throws ErrDuplicateName for
  // a name a living child holds.

  /// The living children, in spawn order.
  std::vector<ActorRef> children() const;
  /// The living child named `name`, or none.
  ActorRef child(std::string_view name) const;

  /// Stops this actor after the current message (its children first).
  void stop();
  /// Stops a child (or any actor: the stop goes to it as a system message).
  void stop(const ActorRef& actor);
  /// Sends this actor Terminated{actor} once `actor` has fully stopped (at
  /// once if it already has). Watching twice is watching once.
  void watch(const ActorRef& actor);
  /// Stops watching `actor`. A Terminated already sent may still arrive.
  void unwatch(const ActorRef& actor);

  // ---- behaviours (docs/actors.md, "Behaviours") -------------------------------

  /// A handler that takes receive()'s place (become).
  using Behavior = std::function<void(ReceiveContext&)>;
  /// Hands the next messages to `behavior` instead of receive(). With
  /// `discardOld` (the default) it replaces the current behaviour; without,
  /// it goes on top of it, and unbecome() returns to it. The call takes
  /// effect from the next message. A restart returns to receive(). Throws
  /// ErrInvalidOption for an empty function.
  void become(Behavior behavior, bool discardOld = true);
  /// Drops the current behaviour: the one under it, or receive(), handles
  /// the next message. Nothing happens when receive() is the current one.
  void unbecome();

  // ---- the stash (docs/actors.md, "Stash") -------------------------------------

  /// Puts the current message (with its sender) aside, to be handled again
  /// after unstashAll(). Stashed messages keep their order. A stop makes them
  /// dead letters; a restart keeps them for the new instance, or drops them,
  /// as ActorOptions::withStash says. Throws ErrStashFull past the actor's
  /// stash bound (the message stays the current one), ErrInvalidOption when
  /// there is no current message (a lifecycle hook, an ask's callback) or it
  /// was stashed already.
  void stash();
  /// Puts every stashed message back ahead of the mailbox: they are the
  /// next ones handled, in the order stashed. Returns how many.
  std::size_t unstashAll();
  /// unstashAll() for the oldest stashed message only; false if none.
  bool unstash();
  /// How many messages are stashed.
  std::size_t stashSize() const noexcept;

  // ---- the receive timeout (docs/actors.md, "Receive timeout") ----------------

  /// Sends this actor ReceiveTimeout{} once it has had no message for
  /// `idle`, and again after each further `idle` without one. Any message
  /// (a ReceiveTimeout too) starts the idle time anew; calling it again
  /// replaces the duration. A restart or a stop cancels it. Throws
  /// ErrInvalidTimeout for a duration that is not positive.
  void setReceiveTimeout(std::chrono::nanoseconds idle);
  /// No receive timeout from now on (a ReceiveTimeout already sent may still arrive).
  void cancelReceiveTimeout();

  /// Moves `actor` (this one: self()) to isolate `isolate`, as
  /// ActorSystem::move does; this actor then gets Moved{actor, isolate,
  /// error} (an empty error once the move is done). A move of itself takes
  /// effect when the current turn ends. Throws as ActorSystem::move does.
  void move(const ActorRef& actor, std::size_t isolate);

 private:
  template <class R>
  friend class detail::AskAwaiter;
  friend class SchedulingCalls<ReceiveContext>;
  friend class SpawnCalls<ReceiveContext>;
  ActorRef spawnWith(std::string name, ActorFactory factory, ActorOptions options);
  ActorRef spawnRouterWith(std::string name, RouterOptions options, ActorFactory routee,
                           std::vector<ActorRef> group);
  ScheduleResult makeSchedule(Message&& message, const ActorRef& target,
                              const detail::Cadence& cadence, const ScheduleOptions& options);
  ScheduleResult controlSchedule(ScheduleControl control, const std::string& reference);
  ScheduleResult controlSchedule(ScheduleControl control, ScheduleHandle handle);
  friend class detail::DelayAwaiter;
  friend class ScheduleResult;
  // ask() with a built Message and an untyped continuation.
  void askFrom(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
               detail::AskContinuation continuation);
  // The awaiters' hooks: ask, or wait, then resume `h` inside a turn of this actor.
  void awaitAsk(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
                std::coroutine_handle<> h, std::function<void(Message*, std::error_code)> fill);
  void awaitDelay(std::chrono::nanoseconds delay, std::coroutine_handle<> h);
  // A ScheduleResult's co_await: resumes `h` inside a turn of this actor once
  // `state` completes; false if it already has.
  bool awaitSchedule(const std::shared_ptr<detail::ScheduleState>& state,
                     std::coroutine_handle<> h);
  static Message& noMessage() noexcept {
    thread_local Message none;
    none.reset();
    return none;
  }
  friend class detail::ActorCell;
  friend class detail::CellLifecycle;  // makes contexts for the hooks
  friend class detail::CellTurn;       // makes contexts, sets each message's fields
  friend class AsyncActor;
  // Sends `actor` a system message that resumes `h` inside one of its turns.
  static void resumeInTurn(detail::SystemCore& core, const ActorRef& actor,
                           std::coroutine_handle<> h, std::uint64_t token);
  // Defined with the cell (runtime/SystemCore.hpp): only the runtime makes contexts.
  inline explicit ReceiveContext(detail::ActorCell& cell) noexcept;
  // A result of this context's scheduling calls, made awaitable in its turns.
  ScheduleResult awaitableHere(ScheduleResult result) noexcept {
    result.context_ = this;
    return result;
  }

  detail::ActorCell& cell_;
  ActorRef self_;  // the cell keeps an id: the context makes the reference once
  Message* message_ = nullptr;
  ActorRef sender_;
};

namespace detail {

/// The awaiter of `co_await ctx.ask<R>(...)`: sends the ask when awaited.
template <class R>
class AskAwaiter {
 public:
  /// Holds the ask until it is awaited.
  AskAwaiter(ReceiveContext& ctx, const ActorRef& target, Message message,
             std::chrono::nanoseconds timeout)
      : ctx_(ctx), target_(target), message_(std::move(message)), timeout_(timeout) {}
  /// Never ready: the reply comes in a later turn.
  bool await_ready() const noexcept { return false; }
  /// Sends the ask; the coroutine resumes inside a turn of the actor.
  void await_suspend(std::coroutine_handle<> h) {
    ctx_.awaitAsk(
        target_, std::move(message_), timeout_, h,
        [this](Message* reply, std::error_code error) { result_ = AskResult<R>(reply, error); });
  }
  /// The outcome.
  AskResult<R> await_resume() { return std::move(result_); }

 private:
  ReceiveContext& ctx_;
  ActorRef target_;
  Message message_;
  std::chrono::nanoseconds timeout_;
  AskResult<R> result_;
};

/// The awaiter of `co_await ctx.delay(d)`.
class DelayAwaiter {
 public:
  /// Holds the delay until it is awaited.
  DelayAwaiter(ReceiveContext& ctx, std::chrono::nanoseconds delay) : ctx_(ctx), delay_(delay) {}
  /// Never ready: it resumes in a later turn.
  bool await_ready() const noexcept { return false; }
  /// Arms the timer.
  void await_suspend(std::coroutine_handle<> h) { ctx_.awaitDelay(delay_, h); }
  /// Nothing to give.
  void await_resume() const noexcept {}

 private:
  ReceiveContext& ctx_;
  std::chrono::nanoseconds delay_;
};

}  // namespace detail

}  // namespace coreactor
