/// @file
/// `coreactor/HybridDispatcher.hpp` — microtask speed with a bounded escape;
/// the default (requirement D4, D5).
//
// Units go on the microtask queue, and every time `yieldEvery` consecutive
// units have done so, the next one goes through a macrotask instead and the
// count restarts: the loop reaches timers and I/O at least once every
// yieldEvery + 1 units, i.e. every ~64 x 16 ≈ 1024 messages with the default
// actor throughput (requirement D7). The worst case is the ImmediateDispatcher; never
// anything new.
//
// The count belongs to the instance, not to an actor: two actors volleying
// form one microtask chain, and the counter must see all of it. Hence one
// instance per isolate (requirement D8) and never a clock read: it counts.
//
// FIFO across the yield (requirement D5): while a yield is in flight, units handed
// over wait behind it in a ring, in arrival order; when the yield runs, they
// are fed back one per microtask step, counted like any other unit, and the
// budget applies to them too. Each unit is moved once: O(1) per unit whatever
// the backlog (the TypeScript original re-queued the whole backlog at every
// yield, quadratic in it; bench "hybrid/backlog" shows ours flat).
//
// Cost: one counter and one ring push per unit; one loop iteration per
// yieldEvery units (bench: "volley/hybrid" against "volley/microtask").
#pragma once

#include <cstddef>

#include "coreactor/Dispatcher.hpp"
#include "coreactor/detail/RingBuffer.hpp"

namespace coreactor {

/// The default dispatcher: units as microtasks, and after every `yieldEvery`
/// of them one through a macrotask, so that timers and I/O get a look.
class HybridDispatcher final : public BoundDispatcher {
 public:
  /// Microtask units between two yields unless told otherwise.
  static constexpr std::size_t kDefaultYieldEvery = 64;

  /// Yields after every `yieldEvery` microtask units. Throws ErrInvalidYieldEvery for 0.
  explicit HybridDispatcher(std::size_t yieldEvery = kDefaultYieldEvery);
  ~HybridDispatcher() override;

  std::string_view id() const noexcept override { return "hybrid-dispatcher"; }
  using Dispatcher::execute;
  /// The budget is Dispatcher's microtask credit: while it lasts, the
  /// runtime's dispatch() pushes each unit with no call at all (a count and
  /// a queue push); this is the rest. It starts a cache line, as the loop's
  /// hot functions do.
  [[gnu::aligned(64)]] void execute(Task& task) override {
    if (tryMicrotask(task)) [[likely]] {  // never before the first unit: bound
      return;
    }
    executeSlow(task);  // also binds an unbound instance, at its first unit
  }
  /// True: an urgent unit runs next anyway (within the isolate's bound).
  bool urgentUnitsMayRunInPlace() const noexcept override { return true; }
  /// Ahead of the waiting microtasks (Isolate::queueUrgentMicrotaskFromDispatcher);
  /// past the isolate's bound, execute(). Not counted against yieldEvery:
  /// the isolate bounds urgent units itself.
  void executeUrgent(Task& task) override;
  std::unique_ptr<Dispatcher> clone() const override;

  /// Microtask units between two yields.
  std::size_t yieldEvery() const noexcept { return yieldEvery_; }
  /// Units waiting behind a yield. Isolate-local.
  std::size_t deferred() const noexcept { return deferred_.size(); }
  /// The yields run so far. Isolate-local.
  std::uint64_t yieldCount() const noexcept override { return yields_; }

 private:
  struct Step final : Task {
    Step(RunFn run, HybridDispatcher& owner) : Task(run, &disposeAll), self(&owner) {}
    static void disposeAll(Task& t) noexcept;
    HybridDispatcher* self;
  };
  [[gnu::noinline]] void executeSlow(Task& task);
  static void runYield(Task& t);
  static void runPump(Task& t);

  /// Lets the units that arrive next go straight to microtasks again: no
  /// yield is queued and none waits behind one.
  void reopen() noexcept { grantMicrotasks(*isolate(), left_); }

  std::size_t yieldEvery_;
  // Units that may still go as microtasks before the next yield. While no
  // yield is queued and none waits (the common case), the microtask credit
  // (Dispatcher::grantMicrotasks) holds that count and dispatch() tests and
  // decrements it alone; otherwise the credit is 0 and left_ holds it for
  // the pump. The budget restarts at each yield. No credit until the first
  // unit (executeSlow) opens the budget.
  std::size_t left_ = 0;
  bool started_ = false;
  bool yielding_ = false;  // the yield macrotask is queued
  std::uint64_t yields_ = 0;
  // Invariant: deferred_ is non-empty only while the yield is queued or the
  // pump is queued (never both), so a new unit can always just join its tail.
  detail::RingBuffer<Task*> deferred_;
  Step yield_;
  Step pump_;
};

}  // namespace coreactor
