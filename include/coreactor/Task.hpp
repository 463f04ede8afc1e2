/// @file
/// `coreactor/Task.hpp` — the unit of work every queue of an isolate holds.
//
// A Task is intrusive: the object that wants to run (an actor cell, a
// dispatcher's drain step, a timer) embeds or derives from Task and hands a
// reference to a queue. Queuing one therefore allocates nothing; this is how an
// actor's turn is scheduled for free, again and again, from the same object.
// A Task may sit in at most one queue at a time; its owner keeps it alive until
// it has run (or has been discarded by a stopping isolate).
//
// Running is one indirect call through a plain function pointer (no vtable
// load): the queue floor in bench/ is a ring push + pop + indirect call, and a
// Task costs exactly that.
//
// `makeTask(f)` wraps any callable in a heap task that deletes itself after it
// ran or was discarded: the convenient path for user code, one allocation each.
//
// Thread-safety: a Task has no synchronisation of its own; whoever queues it
// provides it (an isolate's inbox for cross-thread posts).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace coreactor {

/// The unit of work every queue of an isolate holds. Intrusive: embed it or
/// derive from it, and hand a reference to a queue; queuing allocates nothing.
class Task {
 public:
  /// What running the task calls, with the task itself.
  using RunFn = void (*)(Task&);
  /// What dropping the task unrun calls, with the task itself.
  using DisposeFn = void (*)(Task&) noexcept;

  /// `run` is called each time the task is taken from a queue. `dispose`, if
  /// set, is called instead when a queue drops the task without running it
  /// (an isolate that stops with work queued); owned tasks free themselves there.
  explicit constexpr Task(RunFn run, DisposeFn dispose = nullptr) noexcept
      : run_(run), dispose_(dispose) {}

  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  /// Runs the task: one indirect call.
  void run() { run_(*this); }
  /// Drops the task unrun: calls `dispose`, if set.
  void discard() noexcept {
    if (dispose_ != nullptr) dispose_(*this);
  }

 protected:
  ~Task() = default;

 private:
  RunFn run_;
  DisposeFn dispose_;
};

namespace detail {
/// The heap task whose hand-over this thread is in the middle of
/// (Dispatcher::execute(F&&)), until it starts to run: a hand-over that
/// throws must free the task only if it never ran, since running frees it.
inline thread_local Task* tHandingOver = nullptr;
}  // namespace detail

/// A heap task owning a callable; it deletes itself after running (even when
/// the callable throws) or when discarded.
template <class F>
class FunctionTask final : public Task {
 public:
  /// Owns `f`, moved in.
  explicit FunctionTask(F&& f) : Task(&invoke, &dispose), f_(std::move(f)) {}
  /// Owns a copy of `f`.
  explicit FunctionTask(const F& f) : Task(&invoke, &dispose), f_(f) {}

 private:
  static void invoke(Task& t) {
    if (detail::tHandingOver == &t) detail::tHandingOver = nullptr;  // it ran: it frees itself
    std::unique_ptr<FunctionTask> self(static_cast<FunctionTask*>(&t));
    self->f_();
  }
  static void dispose(Task& t) noexcept { delete static_cast<FunctionTask*>(&t); }

  F f_;
};

/// Wraps `f` (callable with no arguments) in a self-deleting heap Task.
template <class F>
Task& makeTask(F&& f) {
  using Fn = std::decay_t<F>;
  static_assert(std::is_invocable_v<Fn&>, "a task must be callable with no arguments");
  return *new FunctionTask<Fn>(std::forward<F>(f));
}

}  // namespace coreactor
