// The system's running and stopping (ActorSystem::shutdown, stop,
// runUntilIdle and its destruction; include/coreactor/ActorSystem.hpp):
// runtime/Shutdown.cpp. The state the send paths read, SystemCore::running(),
// stays SystemCore's: this class writes it, they read it without a call.
#pragma once

#include <cstdint>
#include <mutex>

namespace coreactor::detail {

class SystemCore;

/// The running and stopping of a system: driving a manual one
/// (runUntilIdle), graceful shutdown, immediate stop, the owner's
/// destruction from outside (finish) and from inside one of its own
/// handlers (orphan), and the teardown that turns what is left into dead
/// letters and failed asks. Any thread unless said.
class SystemStop {
 public:
  explicit SystemStop(SystemCore& core) noexcept : core_(core) {}
  SystemStop(const SystemStop&) = delete;
  SystemStop& operator=(const SystemStop&) = delete;

  /// Graceful stop (ActorSystem::shutdown). From outside the system it
  /// waits for the graceful stop in progress, whoever began it, then stops
  /// the loops and tears down; from one of its own isolates it begins the
  /// stop and returns.
  void shutdown();
  /// Immediate stop (ActorSystem::stop); from one of its own isolates it
  /// stops the loops and returns, the teardown is left to the destructor.
  void stop();
  /// What the owner's destruction does from outside the system: waits for a
  /// graceful stop in progress (so every postStop runs once), then stop().
  void finish();
  /// The owner was destroyed from inside one of its own handlers: the loops
  /// stop, and the core (this with it) deletes itself once no loop of it
  /// runs any more (a thread of its own joins the isolate threads; a manual
  /// system is freed when the driving thread's runUntilIdle returns).
  void orphan();
  void runUntilIdle();
  /// Marks the system stopped and stops every loop (each after its current
  /// step); also what the registry of top-level actors calls when the last
  /// of them stops in a graceful shutdown begun inside (TopLevelRegistry).
  void stopLoops() noexcept;

 private:
  /// Counts the driving thread's runUntilIdle() calls in progress (manual
  /// systems); the outermost frees an orphaned core as it returns.
  class DriveScope;

  void teardown() noexcept;
  /// Waits, from outside, for a graceful stop in progress to finish: every
  /// top-level actor stopped (each subtree's postStop run), or the loops
  /// stopped by an immediate stop.
  void awaitGracefulStop();

  SystemCore& core_;
  std::mutex stopMutex_;
  bool tornDown_ = false;      // guarded by stopMutex_
  std::uint32_t driving_ = 0;  // DriveScope: the driving thread's only
  bool orphaned_ = false;      // orphan(): the core frees itself
};

}  // namespace coreactor::detail
