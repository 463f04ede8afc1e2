/// @file
/// `coreactor/Actor.hpp` — what a user writes: an Actor, and the ReceiveContext
/// it works through.
//
//   struct Counter : coreactor::Actor {
//     int count = 0;
//     void receive(coreactor::ReceiveContext& ctx) override {
//       if (ctx.is<Increment>()) ++count;
//       else if (ctx.is<Get>()) ctx.reply(count);
//     }
//   };
//   ActorRef counter = system->spawn<Counter>("counter");
//
// Every call here runs on the actor's own isolate, inside one of its turns or
// hooks: an actor is never entered by two threads, and needs no lock.
//
// Lifecycle (requirement A5): preStart before the first message; postStop after the
// last, once its children have stopped. On a failure the parent's supervisor
// strategy decides (requirement A6): resume (keep state, skip the message), restart
// (preRestart on the old instance, a new instance, postRestart; same
// reference, same mailbox), stop, or escalate to the grandparent.
// A throw from receive never reaches the dispatcher (requirement D10).
#pragma once

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/Error.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Schedule.hpp"
#include "coreactor/detail/ActorAllocation.hpp"
#include "coreactor/detail/InlineFunction.hpp"

namespace spdlog {
class logger;
}

namespace coreactor {

class ActorSystem;
class AsyncActor;
class Isolate;
class ReceiveContext;
namespace detail {
class ActorCell;
class SystemCore;
template <class R>
class AskAwaiter;
class DelayAwaiter;
/// What an ask from an actor runs inside a turn of that actor, with the
/// reply (nullptr when there is none) and the error (empty on a reply). One
/// of up to 48 bytes is kept without an allocation.
using AskContinuation = InlineFunction<void(ReceiveContext&, Message*, std::error_code), 48>;
}  // namespace detail

// ---- messages the runtime understands ----------------------------------------

/// Stops the receiver once it reaches this message: what was queued before it
/// is handled first (a graceful stop, processed in order).
struct PoisonPill {};
template <>
inline constexpr bool detail::kHandledByCell<PoisonPill> = true;

/// Sent to every watcher when a watched actor has fully stopped (requirement A5).
struct Terminated {
  ActorRef actor;  ///< the watched actor, now stopped
};

// ---- supervision ---------------------------------------------------------------

/// What a supervisor does with a child that failed (requirement A6).
enum class Directive {
  Resume,    ///< keep the child's state and go on; the failed message is skipped
  Restart,   ///< a new instance in place of the old: same reference, same mailbox
  Stop,      ///< stop the child (its children first)
  Escalate,  ///< fail the supervisor itself with the same cause: its parent decides
             ///< (under the user guardian, at the top, this stops the child)
};

/// How a supervisor answers a child's failure: the directive for the cause,
/// which children it applies to, and how many restarts a child may have
/// before it is stopped instead. A value, asked for on each failure
/// (Actor::supervisorStrategy).
class SupervisorStrategy {
 public:
  /// Picks the directive from the failure's cause. A decider that throws escalates.
  using Decider = std::function<Directive(const std::exception_ptr& cause)>;
  /// Which children a directive applies to.
  enum class Kind {
    OneForOne,  ///< the failed child only
    AllForOne,  ///< every child of the supervisor (Resume resumes the failed one only)
  };

  /// Applies the decision to the failed child only. A child restarted more
  /// than `maxRestarts` times within `window` is stopped instead (a negative
  /// maxRestarts means no limit).
  static SupervisorStrategy oneForOne(Decider decider = restartAlways, int maxRestarts = -1,
                                      std::chrono::milliseconds window = std::chrono::minutes(1));
  /// Applies the decision to all children of the supervisor.
  static SupervisorStrategy allForOne(Decider decider = restartAlways, int maxRestarts = -1,
                                      std::chrono::milliseconds window = std::chrono::minutes(1));
  /// The default: one-for-one, restart, no limit.
  static SupervisorStrategy defaultStrategy() { return oneForOne(); }

  /// The default decider: Restart, whatever the cause.
  static Directive restartAlways(const std::exception_ptr&) { return Directive::Restart; }

  /// One-for-one or all-for-one.
  Kind kind() const noexcept { return kind_; }
  /// The directive for `cause`: the decider's, or Restart without one.
  Directive decide(const std::exception_ptr& cause) const {
    return decider_ ? decider_(cause) : Directive::Restart;
  }
  /// Restarts a child may have within window(); negative: no limit.
  int maxRestarts() const noexcept { return maxRestarts_; }
  /// The time over which maxRestarts() is counted.
  std::chrono::milliseconds window() const noexcept { return window_; }

 private:
  Kind kind_ = Kind::OneForOne;
  Decider decider_;
  int maxRestarts_ = -1;
  std::chrono::milliseconds window_{60000};
};

// ---- the actor -----------------------------------------------------------------

/// The base of every actor: override receive(), and the lifecycle hooks you
/// need. Every call on it runs on the actor's own isolate, one at a time.
/// Its objects' memory comes from a per-thread cache (detail::ActorAllocation).
class Actor : public detail::ActorAllocation {
 public:
  virtual ~Actor() = default;

  /// Handles the current message: ctx.message(), ctx.get<T>(), ctx.sender().
  virtual void receive(ReceiveContext& ctx) = 0;

  /// Before the first message. A throw (or one from the constructor) stops the
  /// actor: it is logged and published as a DispatcherError, not supervised.
  virtual void preStart(ReceiveContext& ctx) { static_cast<void>(ctx); }
  /// After the last message, once the children have stopped. A throw is
  /// logged and published as a DispatcherError; the stop goes on.
  virtual void postStop(ReceiveContext& ctx) { static_cast<void>(ctx); }
  /// On the failed instance, before it is replaced. The default stops its children.
  virtual void preRestart(ReceiveContext& ctx, const std::exception_ptr& cause);
  /// On the new instance. The default calls preStart.
  virtual void postRestart(ReceiveContext& ctx, const std::exception_ptr& cause);
  /// How this actor supervises its children; asked on each child failure.
  virtual SupervisorStrategy supervisorStrategy() { return SupervisorStrategy::defaultStrategy(); }
};

/// Makes a fresh instance: at spawn, and again at each restart. Holds any
/// callable returning std::unique_ptr<Actor> (a lambda, a std::function),
/// like a std::function, in 16 bytes instead of 32: every actor keeps one
/// for its restarts, and an idle actor is mostly its cell. A trivially
/// copyable callable of up to 8 bytes (a lambda capturing nothing, or one
/// pointer: what spawn<A>(arg) makes) is held inline; a larger one takes
/// one heap allocation. Copyable and movable.
class ActorFactory {
 public:
  /// Holds nothing; calling it throws std::bad_function_call.
  ActorFactory() noexcept = default;
  /// Holds `f`, a callable with no arguments returning std::unique_ptr<Actor>.
  template <class F, class D = std::decay_t<F>>
  requires(!std::is_same_v<D, ActorFactory> && std::is_copy_constructible_v<D> &&
           std::is_convertible_v<std::invoke_result_t<D&>, std::unique_ptr<Actor>>)
      ActorFactory(F&& f)  // NOLINT(google-explicit-constructor): as std::function converts
      : ops_(&kOps<D>) {
    if constexpr (kInline<D>) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
    } else {
      *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(f));
    }
  }
  /// Holds a copy of `other`'s callable (a heap one is copied to the heap).
  ActorFactory(const ActorFactory& other) : ops_(other.ops_) {
    if (ops_ != nullptr) ops_->copy(other.storage_, storage_);
  }
  /// Takes `other`'s callable; `other` is left empty.
  ActorFactory(ActorFactory&& other) noexcept : ops_(std::exchange(other.ops_, nullptr)) {
    std::memcpy(storage_, other.storage_, sizeof storage_);  // inline: trivially copyable
  }
  /// Holds `other`'s callable (copied or moved in); the old one is freed.
  ActorFactory& operator=(ActorFactory other) noexcept {
    std::swap(ops_, other.ops_);
    unsigned char held[sizeof storage_];
    std::memcpy(held, storage_, sizeof storage_);
    std::memcpy(storage_, other.storage_, sizeof storage_);
    std::memcpy(other.storage_, held, sizeof storage_);
    return *this;
  }
  ~ActorFactory() {
    if (ops_ != nullptr) ops_->destroy(storage_);
  }

  /// Makes an instance. Throws std::bad_function_call when empty, and
  /// whatever the callable throws.
  std::unique_ptr<Actor> operator()() const {
    if (ops_ == nullptr) throw std::bad_function_call();
    return ops_->make(storage_);
  }
  /// True when it holds a callable.
  explicit operator bool() const noexcept { return ops_ != nullptr; }

 private:
  struct Ops {
    std::unique_ptr<Actor> (*make)(const unsigned char* storage);
    void (*copy)(const unsigned char* from, unsigned char* to);
    void (*destroy)(unsigned char* storage) noexcept;
  };
  template <class D>
  static constexpr bool kInline =
      sizeof(D) <= 8 &&
      alignof(D) <= 8 && std::is_trivially_copyable_v<D>&& std::is_trivially_destructible_v<D>;
  template <class D>
  static D& held(const unsigned char* storage) noexcept {
    if constexpr (kInline<D>) {
      return *std::launder(reinterpret_cast<D*>(const_cast<unsigned char*>(storage)));
    } else {
      return **reinterpret_cast<D* const*>(storage);
    }
  }
  template <class D>
  static constexpr Ops kOps{
      [](const unsigned char* s) { return std::unique_ptr<Actor>(held<D>(s)()); },
      [](const unsigned char* from, unsigned char* to) {
        if constexpr (kInline<D>) {
          std::memcpy(to, from, 8);
        } else {
          *reinterpret_cast<D**>(to) = new D(held<D>(from));
        }
      },
      [](unsigned char* s) noexcept {
        if constexpr (!kInline<D>) delete *reinterpret_cast<D**>(s);
      }};

  const Ops* ops_ = nullptr;
  alignas(8) unsigned char storage_[8] = {};
};

namespace detail {
/// A factory making an A from copies of `args`, taken now: each restart
/// builds the new instance from the same values (spawn<A>(name, options, args...)).
template <class A, class... Args>
ActorFactory makeFactory(Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return [] { return std::unique_ptr<Actor>(std::make_unique<A>()); };
  } else {
    return
        [... captured = args] { return std::unique_ptr<Actor>(std::make_unique<A>(captured...)); };
  }
}
}  // namespace detail

/// An actor whose receive is a function (handy in tests and small programs).
class FunctionActor final : public Actor {
 public:
  /// The handler: called for each message, as Actor::receive.
  using Receive = std::function<void(ReceiveContext&)>;
  /// An actor that hands every message to `receive`.
  explicit FunctionActor(Receive receive) : receive_(std::move(receive)) {}
  void receive(ReceiveContext& ctx) override { receive_(ctx); }

 private:
  Receive receive_;
};

// ---- spawning --------------------------------------------------------------------

/// The spawn calls, written once for the two owners that spawn: an actor's
/// context (ReceiveContext: a child of that actor) and the system
/// (ActorSystem: a top-level actor). `Owner` provides
/// `ActorRef spawnWith(std::string, ActorFactory, ActorOptions)`.
/// Where each owner may be called from, and what it throws, is the owner's
/// (ReceiveContext: on the actor's isolate, ErrDuplicateName; ActorSystem:
/// any thread, ErrDuplicateName, ErrIsolateOutOfRange,
/// ErrActorSystemNotStarted). The actor starts asynchronously: preStart
/// runs on its isolate before its first message. A name left empty gets a
/// generated one ("$1", "$2", ...).
template <class Owner>
class SpawnCalls {
 public:
  /// Spawns an `A` made from copies of `args` (taken now: each restart
  /// builds the new instance from the same values).
  template <class A, class... Args>
  ActorRef spawn(std::string name, ActorOptions options, Args&&... args) {
    return owner().spawnWith(std::move(name), detail::makeFactory<A>(args...), std::move(options));
  }
  /// spawn() with the default options.
  template <class A>
  ActorRef spawn(std::string name) {
    return spawn<A>(std::move(name), ActorOptions::create());
  }
  /// Spawns a FunctionActor that hands every message to `receive`.
  ActorRef spawn(std::string name, FunctionActor::Receive receive,
                 ActorOptions options = ActorOptions::create()) {
    return owner().spawnWith(std::move(name), ActorFactory([receive = std::move(receive)] {
                               return std::unique_ptr<Actor>(std::make_unique<FunctionActor>(receive));
                             }),
                             std::move(options));
  }
  /// Spawns an actor that `factory` makes (at spawn and at each restart).
  ActorRef spawn(std::string name, ActorFactory factory,
                 ActorOptions options = ActorOptions::create()) {
    return owner().spawnWith(std::move(name), std::move(factory), std::move(options));
  }

 private:
  Owner& owner() noexcept { return static_cast<Owner&>(*this); }
};

// ---- ask results -----------------------------------------------------------------

/// How an ask from an actor ended: the reply, or a named error
/// (ErrAskTimeout, ErrDead, ErrUnexpectedReply). An ask still pending when
/// the system stops has no callback run: its actor is gone too.
template <class R>
class AskResult {
 public:
  /// A placeholder for the awaiter to assign once the ask completes; not a
  /// result to read (it holds neither a reply nor an error).
  AskResult() = default;
  /// The result of a completed ask: `error` if set; otherwise the reply if it
  /// holds an R, else ErrUnexpectedReply naming the type it holds.
  AskResult(Message* reply, std::error_code error) : error_(error) {
    // error_ starts as `error`: a default std::error_code would cost a call
    // (std::system_category()) on every reply.
    if (error) {
      return;
    } else if (reply != nullptr && reply->is<R>()) {
      reply_ = std::move(*reply);
    } else {
      error_ = make_error_code(Error::ErrUnexpectedReply);
      unexpected_ = reply != nullptr ? reply->typeName() : std::string_view("(nothing)");
    }
  }
  /// True when the reply is there.
  bool ok() const noexcept { return !error_; }
  /// ok().
  explicit operator bool() const noexcept { return ok(); }
  /// Why there is no reply; empty when there is one.
  std::error_code error() const noexcept { return error_; }
  /// The reply. Throws std::system_error carrying error() when there is none.
  R& value() {
    if (error_) {
      throw std::system_error(error_, unexpected_.empty()
                                          ? std::string("ask failed")
                                          : "ask answered with " + std::string(unexpected_));
    }
    return *reply_.get<R>();
  }

 private:
  Message reply_;
  std::error_code error_;
  std::string_view unexpected_;
};

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
  /// The isolate this actor runs on.
  Isolate& isolate() const noexcept;
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

 private:
  template <class R>
  friend class detail::AskAwaiter;
  friend class SchedulingCalls<ReceiveContext>;
  friend class SpawnCalls<ReceiveContext>;
  ActorRef spawnWith(std::string name, ActorFactory factory, ActorOptions options);
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
