/// @file
/// `coreactor/Dispatcher.hpp` — what decides when a unit of work runs.
//
// A unit is one actor's turn (or any Task). A dispatcher's whole job is to hand
// units to its isolate's loop: as microtasks, as macrotasks, or through a queue
// of its own. The interface is two members plus an optional error sink (requirement
// D1): a tracing or metering wrapper implements `id` and `execute`, delegating.
//
// One instance, one loop (requirement D8). The built-in dispatchers (BoundDispatcher)
// bind to one isolate — explicitly with bind(), or on first execute() to the
// isolate running it — and refuse a second one with ErrDispatcherBoundElsewhere:
// the hybrid's budget only means something if its counter sees one loop's whole
// chain. To serve N isolates, a system makes one instance per isolate with
// `instanceFor(prototype)`, which clones; a dispatcher that cannot be cloned is
// refused there with ErrDispatcherNotClonable (pass a factory instead).
//
// Threads. execute() is isolate-local: call it on the loop thread of the
// dispatcher's isolate (that is where actors run). Setting the sink is not
// synchronised: do it before the dispatcher is in use.
//
// Errors (requirement D11, D12). A unit that throws is reported to this dispatcher's
// sink, `onError(error, dispatcherId)`. An unset sink reports to stderr (the
// last resort of a dispatcher no system adopted); a system fills the sink only
// where it is unset (adoptErrorSink); a sink that throws loses nothing: stderr
// gets the original error and the sink's. The loop never goes down.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string_view>

#include "coreactor/Isolate.hpp"
#include "coreactor/Task.hpp"

namespace coreactor {

/// Receives a throw from a unit of work: the exception and the dispatcher's id.
using ErrorSink = std::function<void(std::exception_ptr error, std::string_view dispatcherId)>;

/// Decides when a unit of work runs on its isolate: as a microtask, as a
/// macrotask, or through a queue of its own. Implement id() and execute();
/// the error sink is optional.
class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  /// A stable name, e.g. "hybrid-dispatcher".
  virtual std::string_view id() const noexcept = 0;

  /// Hands one unit to the loop. The task must stay alive until it has run.
  /// Isolate-local; built-ins allocate nothing here in steady state.
  virtual void execute(Task& task) = 0;

  /// What the actor runtime calls to hand over a turn: while this
  /// dispatcher has granted microtask credit (grantMicrotasks), a push onto
  /// its loop's microtask queue, inline and with no call; execute()
  /// otherwise. The same for every dispatcher: one that grants no credit
  /// gets every unit through execute(). Isolate-local.
  void dispatch(Task& task) {
    if (!tryMicrotask(task)) execute(task);
  }

  /// True when a unit handed to executeUrgent() may instead be run by its
  /// caller at once, in place: the runtime then runs the turn of an idle
  /// actor on messages that crossed from another isolate where they land,
  /// instead of queuing it. A dispatcher that must see every unit
  /// (tracing, metering) keeps the default, false. The hybrid says true:
  /// its urgent units run next anyway.
  virtual bool urgentUnitsMayRunInPlace() const noexcept { return false; }

  /// Hands over a unit that should run before the units already waiting: an
  /// idle actor's turn for a message that crossed from another isolate,
  /// whose sender waits for the answer while both isolates are busy. The
  /// default queues it like any other (execute). The hybrid dispatcher puts
  /// it ahead of the waiting microtasks, bounded by the isolate (at most
  /// Isolate::kUrgentStreak in a row). Isolate-local.
  virtual void executeUrgent(Task& task) { execute(task); }

  /// Hands a callable over as one unit (one heap task; its throw is reported
  /// to this dispatcher's sink). Isolate-local. If execute(Task&) throws,
  /// the task is freed unrun, unless it already ran inside that call (a
  /// dispatcher that runs units inline) and the throw is its own: a task
  /// that ran has freed itself.
  template <TaskCallable F>
  void execute(F&& f) {
    Task& task = makeTask(std::forward<F>(f));
    Task* const outer = detail::tHandingOver;
    detail::tHandingOver = &task;
    try {
      execute(task);
    } catch (...) {
      const bool ran = detail::tHandingOver != &task;
      detail::tHandingOver = outer;
      if (!ran) task.discard();
      throw;
    }
    detail::tHandingOver = outer;
  }

  /// A fresh, unbound instance with the same settings and the same sink, or
  /// nullptr when this dispatcher cannot be copied (the default).
  virtual std::unique_ptr<Dispatcher> clone() const { return nullptr; }

  /// How many times this instance has yielded to the loop to be fair to
  /// the rest of its isolate's work (the hybrid's yield every yieldEvery
  /// units); 0 for a dispatcher that never does. Isolate-local. The
  /// isolate's metrics report its default dispatcher's (coreactor/Metrics.hpp).
  virtual std::uint64_t yieldCount() const noexcept { return 0; }

  /// Ties this instance to `isolate`. The default accepts any isolate (a
  /// delegating wrapper has no loop of its own); built-ins accept one only.
  virtual void bind(Isolate& isolate) { static_cast<void>(isolate); }

  // ---- the error sink (optional, requirement D1, D12) ------------------------------

  /// The sink; empty when none is set.
  const ErrorSink& onError() const noexcept { return onError_; }
  /// Sets (or, with an empty function, unsets) the sink.
  void setOnError(ErrorSink sink) { onError_ = std::move(sink); }
  /// Sets the sink only if none is set ("??="). Returns whether it did.
  bool adoptErrorSink(const ErrorSink& sink);
  /// Sends `error` to the sink, or to stderr without one; if the sink throws,
  /// stderr gets both errors. Never throws.
  void reportError(std::exception_ptr error) noexcept;

 protected:
  Dispatcher() = default;
  /// Lets the next `units` units handed to dispatch() go straight onto
  /// `loop`'s microtask queue, with no call (replaces what was granted).
  void grantMicrotasks(Isolate& loop, std::size_t units) noexcept {
    creditLoop_ = &loop;
    credit_ = units;
  }
  /// Units dispatch() may still push with no call.
  std::size_t microtaskCredit() const noexcept { return credit_; }
  /// Spends one unit of credit on `task`: false, nothing done, without any.
  bool tryMicrotask(Task& task) {
    if (credit_ == 0) [[unlikely]] {
      return false;
    }
    --credit_;
    detail::IsolateHooks::queueMicrotask(*creditLoop_, task, *this);
    return true;
  }
  /// For clone(): hands `copy` this instance's sink.
  std::unique_ptr<Dispatcher> withMySink(std::unique_ptr<Dispatcher> copy) const {
    copy->onError_ = onError_;
    return copy;
  }

 private:
  // Read and written on every unit: first, with the vtable pointer.
  std::size_t credit_ = 0;         // grantMicrotasks()
  Isolate* creditLoop_ = nullptr;  // where credited units go
  ErrorSink onError_;
};

/// One instance of `prototype` for another isolate: a clone carrying the same
/// settings and sink. Throws ErrDispatcherNotClonable when it cannot be cloned.
std::unique_ptr<Dispatcher> instanceFor(const Dispatcher& prototype);

/// Base of the built-in dispatchers: bound to exactly one isolate.
class BoundDispatcher : public Dispatcher {
 public:
  /// Binds to `isolate`; binding again to the same one is a no-op. Throws
  /// ErrDispatcherBoundElsewhere for a second isolate.
  void bind(Isolate& isolate) override;
  /// The isolate this instance serves, or nullptr before it is bound.
  Isolate* isolate() const noexcept { return loop_; }

 protected:
  /// The bound loop; binds to the current isolate on first use. Throws
  /// ErrNotOnIsolate when called outside any loop before binding, and (in
  /// checked builds) ErrDispatcherBoundElsewhere when called on another loop.
  Isolate& loop() {
    if (loop_ == nullptr) [[unlikely]] {
      bindToCurrent();
    }
#ifndef NDEBUG
    checkOnLoop();
#endif
    return *loop_;
  }
  /// loop() for a caller that knows this instance is bound: no bind check
  /// (checked builds still check that it runs on its loop).
  Isolate& boundLoop() {
#ifndef NDEBUG
    checkOnLoop();
#endif
    return *loop_;
  }
  /// Gives `task` back to the isolate to dispose of, counted as discarded.
  void discardUnit(Task& task) noexcept;

 private:
  void bindToCurrent();
  void checkOnLoop() const;
  Isolate* loop_ = nullptr;
};

}  // namespace coreactor
