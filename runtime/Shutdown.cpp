// Running and stopping a system: driving a manual one, graceful shutdown,
// immediate stop, destruction (also from inside a handler), and the
// teardown that turns what is left into dead letters and failed asks.
#include <thread>

#include "SystemCore.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"

#include "runtime/metrics/MetricsEndpoint.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

// The outermost runUntilIdle() of a manual system's driving thread frees the
// core if a handler destroyed its owner meanwhile (orphan()): nothing of the
// core is touched after the scope ends.
class SystemCore::DriveScope {
 public:
  explicit DriveScope(SystemCore& core) noexcept : core_(core) { ++core_.driving_; }
  ~DriveScope() {
    if (--core_.driving_ == 0 && core_.orphaned_) delete &core_;
  }
  DriveScope(const DriveScope&) = delete;
  DriveScope& operator=(const DriveScope&) = delete;

 private:
  SystemCore& core_;
};

void SystemCore::runUntilIdle() {
  if (!options_.manualRun()) {
    throwError(Error::ErrNotManual, "runUntilIdle on system '" + name_ + "'");
  }
  if (!drivenHere()) {
    throwError(Error::ErrNotOnIsolate, "runUntilIdle of manual system '" + name_ +
                                           "' from a thread other than the one that created it");
  }
  const DriveScope scope(*this);
  // Isolates can feed each other: go round until a whole pass ran nothing.
  for (;;) {
    std::uint64_t before = 0;
    std::uint64_t after = 0;
    for (auto& rt : isolates_) {
      const auto& s = rt->isolate->stats();
      before += s.macrotasks + s.microtasks + s.timersFired + s.ioHandlers;
      if (!rt->isolate->stopped()) rt->isolate->runUntilIdle();
      after += s.macrotasks + s.microtasks + s.timersFired + s.ioHandlers;
    }
    if (after == before || orphaned_) return;
  }
}

bool SystemCore::onOwnIsolate() const noexcept {
  return currentRuntime() != nullptr;
}

void SystemCore::shutdown() {
  State expected = State::Running;
  const bool first = state_.compare_exchange_strong(expected, State::ShuttingDown);
  const bool inside = onOwnIsolate();
  if (first) {
    if (inside) {
      // From an actor: a loop cannot wait for itself. The stops go out now
      // and the last top-level actor to stop stops the loops
      // (TopLevelRegistry::uncount); a shutdown() or the destructor from
      // outside waits for that, then joins and tears down.
      topLevel_.stopLoopsWhenEmpty();
    }
    for (const ActorRef& ref : topLevel()) {
      sendSystem(ref, SystemMessage{SysKind::Stop, {}, nullptr});
    }
    if (inside) {
      topLevel_.stopLoopsIfEmpty();
      return;
    }
  } else if (inside) {
    return;  // on its way already, and a loop cannot wait for itself
  }
  // From outside: whoever began it, wait for the graceful stop to finish.
  if (options_.manualRun() && drivenHere()) {
    const DriveScope scope(*this);  // a handler may destroy the owner meanwhile
    awaitGracefulStop();
    stop();
    return;
  }
  awaitGracefulStop();
  stop();
}

void SystemCore::awaitGracefulStop() {
  if (state_.load(std::memory_order_acquire) == State::Running) return;
  if (options_.manualRun()) {
    // The driving thread runs what the stops set going; another thread
    // cannot drive this system and has nothing to wait for.
    if (drivenHere() && Isolate::current() == nullptr) runUntilIdle();
    return;
  }
  // Until the top-level actors have reported their subtrees stopped, or an
  // immediate stop ended the loops. The bound only guards against a hook
  // that never returns.
  if (!topLevel_.waitUntilEmpty(std::chrono::seconds(60), [this] {
        return state_.load(std::memory_order_acquire) == State::Stopped;
      })) {
    logger_->error("shutdown: {} top-level actors did not stop within 60 s; stopping anyway",
                   topLevel_.live());
  }
}

void SystemCore::stopLoops() noexcept {
  state_.store(State::Stopped, std::memory_order_release);
  for (auto& rt : isolates_) rt->isolate->stop();
}

void SystemCore::stop() {
  if (onOwnIsolate()) {
    // From an actor: the loops stop after their current step; joining and
    // tearing down is left to the destructor (or a stop() from outside).
    stopLoops();
    topLevel_.wakeWaiters();
    return;
  }
  std::lock_guard<std::mutex> guard(stopMutex_);
  stopLoops();
  topLevel_.wakeWaiters();
  if (tornDown_) return;
  tornDown_ = true;
  for (auto& rt : isolates_) rt->isolate->join();
  teardown();
}

void SystemCore::finish() {
  if (state_.load(std::memory_order_acquire) == State::ShuttingDown) {
    // A shutdown() begun inside a handler, or by another thread: every
    // postStop runs before the loops stop.
    if (options_.manualRun() && drivenHere()) {
      const DriveScope scope(*this);
      awaitGracefulStop();
    } else {
      awaitGracefulStop();
    }
  }
  stop();
}

void SystemCore::orphan() {
  owner_ = nullptr;
  stopLoops();
  topLevel_.wakeWaiters();
  if (options_.manualRun()) {
    if (driving_ > 0) {
      orphaned_ = true;  // the outermost runUntilIdle() frees it (DriveScope)
    } else {
      // Its isolate is driven directly (ActorSystem::isolate(i).runUntilIdle()):
      // no frame of ours returns after the handler, so nothing can free it safely.
      logger_->error(
          "system '{}' was destroyed from inside its own handler while an isolate of it was "
          "driven directly; its memory is kept until the process exits",
          name_);
    }
    return;
  }
  // A thread of its own joins the isolate threads, then tears down. The
  // loop of this thread returns once the handler does.
  std::thread([this] {
    for (auto& rt : isolates_) rt->isolate->join();
    delete this;
  }).detach();
}

// After every loop has stopped: what is left is freed, and what it held
// becomes dead letters or failed asks.
void SystemCore::teardown() noexcept {
  // This rank's actors have stopped: the others hear that it leaves (their
  // asks to it fail, their watchers have heard Terminated already). Then,
  // collective: waits for every rank's teardown, and takes what each sent
  // here before it (dead letters now, below, as the loops have stopped).
  if (remote_ != nullptr) {
    remote_->leave();
    remote_->stop();
    // No reply can come any more: the asks of plain threads to other ranks
    // still open fail now.
    remote_->foreignAsks().close(make_error_code(Error::ErrActorSystemNotStarted));
  }
  metricsEndpoint_.reset();                                 // no loop runs: it closes here
  for (auto& rt : isolates_) rt->scheduler->clear();        // S5: no schedule outlives the system
  for (auto& rt : isolates_) rt->link->drainAtTeardown();   // X2: in flight: dead letters
  for (auto& rt : isolates_) rt->foreign->closeAndDrain();  // and from other threads
  for (auto& rt : isolates_) {
    std::vector<std::pair<std::uint32_t, Endpoint*>> endpoints;
    rt->table.forEach([&](std::uint32_t slot, Endpoint* e) { endpoints.emplace_back(slot, e); });
    // A cell that moved here may hold more than one entry: each entry goes
    // now, the cell once, after the others.
    std::vector<ActorCell*> cells;
    for (auto [slot, e] : endpoints) {
      if (e->kind == Endpoint::Kind::Cell) {
        auto* cell = static_cast<ActorCell*>(e);
        rt->table.release(slot);  // its own entry, the one it moved into, or another of its
        if (makeRef(cell->address()).slot() == slot) cells.push_back(cell);
      } else if (e->kind == Endpoint::Kind::Forward) {
        rt->table.release(slot);  // what an actor that moved away left here
        delete static_cast<Forward*>(e);
      } else if (e->kind == Endpoint::Kind::Hold) {
        rt->table.release(slot);  // an entry a moved actor gave, still waiting
        std::unique_ptr<Hold> hold(static_cast<Hold*>(e));
        for (Hold::Kept& kept : hold->kept) {
          if (kept.system == nullptr) {
            deadLetter(refOf(hold->actor), std::move(kept.envelope), "the system stopped");
          }
        }
      } else {
        static_cast<AskEndpoint*>(e)->complete(nullptr,
                                               make_error_code(Error::ErrActorSystemNotStarted));
      }
    }
    for (ActorCell* cell : cells) {
      cell->abandon();
      delete cell;
    }
  }
}

}  // namespace coreactor::detail
