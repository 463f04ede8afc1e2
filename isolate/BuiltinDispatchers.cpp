// The four built-in dispatchers. Their contracts are in their headers.
#include <algorithm>
#include <string>

#include "coreactor/Error.hpp"
#include "coreactor/HybridDispatcher.hpp"
#include "coreactor/ImmediateDispatcher.hpp"
#include "coreactor/MicrotaskDispatcher.hpp"
#include "coreactor/ThroughputDispatcher.hpp"

namespace coreactor {

std::unique_ptr<Dispatcher> MicrotaskDispatcher::clone() const {
  return withMySink(std::make_unique<MicrotaskDispatcher>());
}

std::unique_ptr<Dispatcher> ImmediateDispatcher::clone() const {
  return withMySink(std::make_unique<ImmediateDispatcher>());
}

// ---- HybridDispatcher ---------------------------------------------------------

HybridDispatcher::HybridDispatcher(std::size_t yieldEvery)
    : yieldEvery_(yieldEvery), yield_(&runYield, *this), pump_(&runPump, *this) {
  if (yieldEvery == 0) {
    throwError(Error::ErrInvalidYieldEvery, "HybridDispatcher(0): the budget must be at least 1");
  }
}

HybridDispatcher::~HybridDispatcher() {
  while (!deferred_.empty()) discardUnit(*deferred_.pop());
}

std::unique_ptr<Dispatcher> HybridDispatcher::clone() const {
  return withMySink(std::make_unique<HybridDispatcher>(yieldEvery_));
}

// execute() past its common case: the budget is spent, or a yield is in flight.
void HybridDispatcher::executeSlow(Task& task) {
  Isolate& isolate = loop();  // binds an unbound instance
  if (!started_) {            // the first unit opens the budget (execute() needs no bound check)
    started_ = true;
    grantMicrotasks(isolate, yieldEvery_);
  }
  if (tryMicrotask(task)) return;
  if (deferred_.empty() && !yielding_) {
    // Budget spent: this unit goes through a macrotask, and the budget restarts.
    left_ = yieldEvery_;
    yielding_ = true;
    deferred_.push(&task);
    detail::IsolateHooks::post(isolate, yield_, *this);
    return;
  }
  deferred_.push(&task);  // behind the yield, in arrival order
}

void HybridDispatcher::executeUrgent(Task& task) {
  if (!detail::IsolateHooks::queueUrgentMicrotask(loop(), task, *this)) execute(task);
}

// The macrotask: runs the unit that spent the budget, and starts feeding the
// units that arrived meanwhile back through microtasks.
void HybridDispatcher::runYield(Task& t) {
  HybridDispatcher& self = *static_cast<Step&>(t).self;
  self.yielding_ = false;
  ++self.yields_;
  Task* head = self.deferred_.pop();
  // Queue the pump before running the unit, so a throw cannot strand the rest.
  if (!self.deferred_.empty()) {
    detail::IsolateHooks::queueMicrotask(*self.isolate(), self.pump_, self);
  } else {
    self.deferred_.shrinkIfEmpty();  // a drained burst gives its memory back
    self.reopen();
  }
  head->run();
}

// One microtask step of the pump: one deferred unit, counted against the budget.
void HybridDispatcher::runPump(Task& t) {
  HybridDispatcher& self = *static_cast<Step&>(t).self;
  if (self.deferred_.empty()) return;
  Isolate& isolate = *self.isolate();
  if (self.left_ == 0) {
    self.left_ = self.yieldEvery_;
    self.yielding_ = true;
    detail::IsolateHooks::post(isolate, self.yield_, self);
    return;
  }
  --self.left_;
  Task* head = self.deferred_.pop();
  if (!self.deferred_.empty()) {
    detail::IsolateHooks::queueMicrotask(isolate, self.pump_, self);
  } else {
    self.deferred_.shrinkIfEmpty();  // a drained burst gives its memory back
    self.reopen();
  }
  head->run();
}

// The loop stopped with the yield or the pump still queued: what waited behind
// them will never run either.
void HybridDispatcher::Step::disposeAll(Task& t) noexcept {
  HybridDispatcher& self = *static_cast<Step&>(t).self;
  self.yielding_ = false;
  while (!self.deferred_.empty()) self.discardUnit(*self.deferred_.pop());
  self.reopen();
}

// ---- ThroughputDispatcher -----------------------------------------------------

ThroughputDispatcher::ThroughputDispatcher(std::size_t throughput)
    : throughput_(throughput), drain_(*this) {
  if (throughput == 0) {
    throwError(Error::ErrInvalidThroughput,
               "ThroughputDispatcher(0): the throughput must be at least 1");
  }
}

ThroughputDispatcher::~ThroughputDispatcher() {
  while (!queue_.empty()) discardUnit(*queue_.pop());
}

std::unique_ptr<Dispatcher> ThroughputDispatcher::clone() const {
  return withMySink(std::make_unique<ThroughputDispatcher>(throughput_));
}

void ThroughputDispatcher::execute(Task& task) {
  Isolate& isolate = loop();
  queue_.push(&task);
  if (!scheduled_) {
    scheduled_ = true;
    detail::IsolateHooks::post(isolate, drain_, *this);
  }
}

void ThroughputDispatcher::runDrain(Task& t) {
  ThroughputDispatcher& self = *static_cast<Drain&>(t).self;
  self.scheduled_ = false;
  // Whatever happens to the batch (a unit may throw), what is left gets the
  // next macrotask: the guard re-posts on the way out.
  struct Reschedule {
    ThroughputDispatcher& self;
    ~Reschedule() {
      if (!self.queue_.empty() && !self.scheduled_) {
        self.scheduled_ = true;
        detail::IsolateHooks::post(*self.isolate(), self.drain_, self);
      }
      self.queue_.shrinkIfEmpty();  // a drained burst gives its memory back
    }
  } reschedule{self};
  // A snapshot: units queued by this batch's own units wait for the next macrotask.
  for (std::size_t n = std::min(self.throughput_, self.queue_.size()); n > 0; --n) {
    self.queue_.pop()->run();
  }
}

void ThroughputDispatcher::disposeAll(Task& t) noexcept {
  ThroughputDispatcher& self = *static_cast<Drain&>(t).self;
  self.scheduled_ = false;
  while (!self.queue_.empty()) self.discardUnit(*self.queue_.pop());
}

}  // namespace coreactor
