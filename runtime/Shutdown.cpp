// Running and stopping a system (SystemStop.hpp): driving a manual one,
// graceful shutdown, immediate stop, destruction (also from inside a
// handler), and the teardown that turns what is left into dead letters and
// failed asks.
#include <thread>

#include "SystemCore.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

// The outermost runUntilIdle() of a manual system's driving thread frees the
// core if a handler destroyed its owner meanwhile (orphan()): nothing of the
// core is touched after the scope ends.
class SystemStop::DriveScope {
 public:
  explicit DriveScope(SystemStop& stop) noexcept : stop_(stop) { ++stop_.driving_; }
  ~DriveScope() {
    if (--stop_.driving_ == 0 && stop_.orphaned_) delete &stop_.core_;
  }
  DriveScope(const DriveScope&) = delete;
  DriveScope& operator=(const DriveScope&) = delete;

 private:
  SystemStop& stop_;
};

void SystemStop::runUntilIdle() {
  if (!core_.options_.manualRun()) {
    throwError(Error::ErrNotManual, "runUntilIdle on system '" + core_.name_ + "'");
  }
  if (!core_.drivenHere()) {
    throwError(Error::ErrNotOnIsolate, "runUntilIdle of manual system '" + core_.name_ +
                                           "' from a thread other than the one that created it");
  }
  const DriveScope scope(*this);
  // Isolates can feed each other: go round until a whole pass ran nothing.
  for (;;) {
    std::uint64_t before = 0;
    std::uint64_t after = 0;
    for (auto& rt : core_.isolates_) {
      const auto& s = rt->isolate->stats();
      before += s.macrotasks + s.microtasks + s.timersFired + s.ioHandlers;
      if (!rt->isolate->stopped()) rt->isolate->runUntilIdle();
      after += s.macrotasks + s.microtasks + s.timersFired + s.ioHandlers;
    }
    if (after == before || orphaned_) return;
  }
}

void SystemStop::shutdown() {
  using State = SystemCore::State;
  State expected = State::Running;
  const bool first = core_.state_.compare_exchange_strong(expected, State::ShuttingDown);
  const bool inside = core_.onOwnIsolate();
  if (first) {
    if (inside) {
      // From an actor: a loop cannot wait for itself. The stops go out now
      // and the last top-level actor to stop stops the loops
      // (TopLevelRegistry::uncount); a shutdown() or the destructor from
      // outside waits for that, then joins and tears down.
      core_.spawns().registry().stopLoopsWhenEmpty();
    }
    for (const ActorRef& ref : core_.spawns().topLevel()) {
      core_.delivery().sendSystem(ref, SystemMessage{SysKind::Stop, {}, nullptr});
    }
    if (inside) {
      core_.spawns().registry().stopLoopsIfEmpty();
      return;
    }
  } else if (inside) {
    return;  // on its way already, and a loop cannot wait for itself
  }
  // From outside: whoever began it, wait for the graceful stop to finish.
  if (core_.options_.manualRun() && core_.drivenHere()) {
    const DriveScope scope(*this);  // a handler may destroy the owner meanwhile
    awaitGracefulStop();
    stop();
    return;
  }
  awaitGracefulStop();
  stop();
}

void SystemStop::awaitGracefulStop() {
  using State = SystemCore::State;
  if (core_.state_.load(std::memory_order_acquire) == State::Running) return;
  if (core_.options_.manualRun()) {
    // The driving thread runs what the stops set going; another thread
    // cannot drive this system and has nothing to wait for.
    if (core_.drivenHere() && Isolate::current() == nullptr) runUntilIdle();
    return;
  }
  // Until the top-level actors have reported their subtrees stopped, or an
  // immediate stop ended the loops. The bound only guards against a hook
  // that never returns.
  if (!core_.spawns().registry().waitUntilEmpty(std::chrono::seconds(60), [this] {
        return core_.state_.load(std::memory_order_acquire) == State::Stopped;
      })) {
    core_.logger_->error("shutdown: {} top-level actors did not stop within 60 s; stopping anyway",
                         core_.spawns().registry().live());
  }
}

void SystemStop::stopLoops() noexcept {
  core_.state_.store(SystemCore::State::Stopped, std::memory_order_release);
  for (auto& rt : core_.isolates_) rt->isolate->stop();
}

void SystemStop::stop() {
  if (core_.onOwnIsolate()) {
    // From an actor: the loops stop after their current step; joining and
    // tearing down is left to the destructor (or a stop() from outside).
    stopLoops();
    core_.spawns().registry().wakeWaiters();
    return;
  }
  std::lock_guard<std::mutex> guard(stopMutex_);
  stopLoops();
  core_.spawns().registry().wakeWaiters();
  if (tornDown_) return;
  tornDown_ = true;
  for (auto& rt : core_.isolates_) rt->isolate->join();
  teardown();
}

void SystemStop::finish() {
  if (core_.state_.load(std::memory_order_acquire) == SystemCore::State::ShuttingDown) {
    // A shutdown() begun inside a handler, or by another thread: every
    // postStop runs before the loops stop.
    if (core_.options_.manualRun() && core_.drivenHere()) {
      const DriveScope scope(*this);
      awaitGracefulStop();
    } else {
      awaitGracefulStop();
    }
  }
  stop();
}

void SystemStop::orphan() {
  core_.owner_ = nullptr;
  stopLoops();
  core_.spawns().registry().wakeWaiters();
  if (core_.options_.manualRun()) {
    if (driving_ > 0) {
      orphaned_ = true;  // the outermost runUntilIdle() frees it (DriveScope)
    } else {
      // Its isolate is driven directly (ActorSystem::isolate(i).runUntilIdle()):
      // no frame of ours returns after the handler, so nothing can free it safely.
      core_.logger_->error(
          "system '{}' was destroyed from inside its own handler while an isolate of it was "
          "driven directly; its memory is kept until the process exits",
          core_.name_);
    }
    return;
  }
  // A thread of its own joins the isolate threads, then tears down (the
  // core, and this with it). The loop of this thread returns once the
  // handler does.
  std::thread([core = &core_] {
    for (auto& rt : core->isolates_) rt->isolate->join();
    delete core;
  }).detach();
}

// After every loop has stopped: what is left is freed, and what it held
// becomes dead letters or failed asks.
void SystemStop::teardown() noexcept {
  // This rank's actors have stopped: the others hear that it leaves (their
  // asks to it fail, their watchers have heard Terminated already). Then,
  // collective: waits for every rank's teardown, and takes what each sent
  // here before it (dead letters now, below, as the loops have stopped).
  if (core_.remote_ != nullptr) {
    core_.remote_->leave();
    core_.remote_->stop();
    // No reply can come any more: the asks of plain threads to other ranks
    // still open fail now.
    core_.remote_->foreignAsks().close(make_error_code(Error::ErrActorSystemNotStarted));
  }
  core_.metrics().closeEndpoint();                          // no loop runs: it closes here
  for (auto& rt : core_.isolates_) rt->scheduler->clear();  // S5: no schedule outlives the system
  for (auto& rt : core_.isolates_) rt->link->drainAtTeardown();   // X2: in flight: dead letters
  for (auto& rt : core_.isolates_) rt->foreign->closeAndDrain();  // and from other threads
  for (auto& rt : core_.isolates_) {
    std::vector<std::pair<std::uint32_t, Endpoint*>> endpoints;
    rt->table.forEach([&](std::uint32_t slot, Endpoint* e) { endpoints.emplace_back(slot, e); });
    // A cell that moved here may hold more than one entry: each entry goes
    // now, the cell once, after the others.
    std::vector<ActorCell*> cells;
    for (auto [slot, e] : endpoints) {
      if (e->kind == Endpoint::Kind::Cell) {
        auto* cell = static_cast<ActorCell*>(e);
        rt->table.release(slot);  // its own entry, the one it moved into, or another of its
        if (core_.makeRef(cell->moves().address()).slot() == slot) cells.push_back(cell);
      } else if (e->kind == Endpoint::Kind::Forward) {
        rt->table.release(slot);  // what an actor that moved away left here
        delete static_cast<Forward*>(e);
      } else if (e->kind == Endpoint::Kind::Hold) {
        rt->table.release(slot);  // an entry a moved actor gave, still waiting
        std::unique_ptr<Hold> hold(static_cast<Hold*>(e));
        for (Hold::Kept& kept : hold->kept) {
          if (kept.system == nullptr) {
            core_.delivery().deadLetter(core_.refOf(hold->actor), std::move(kept.envelope),
                                        "the system stopped");
          }
        }
      } else {
        static_cast<AskEndpoint*>(e)->complete(nullptr,
                                               make_error_code(Error::ErrActorSystemNotStarted));
      }
    }
    for (ActorCell* cell : cells) {
      cell->lifecycle().abandon();
      delete cell;
    }
  }
}

}  // namespace coreactor::detail
