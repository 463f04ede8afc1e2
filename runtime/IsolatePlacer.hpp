// Where a system's isolates run and which isolate each actor goes to (SPEC
// L5): the placement planned from the options (isolate/Placement.hpp), each
// isolate's thread bound to its part of it as it starts, what the kernel
// granted (ActorSystem::placement()), and the isolate a spawn goes to.
//
// Thread-safety: every call may come from any thread. The placement is
// behind a mutex (each isolate's thread writes its own entry as it starts;
// placement() copies it); isolateFor() touches no shared state but the
// round-robin counter (one atomic add).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include <spdlog/logger.h>

#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorSystemOptions.hpp"
#include "coreactor/Placement.hpp"

namespace coreactor::detail {

class IsolatePlacer {
 public:
  /// Plans the placement of the isolates `options` ask for. Throws
  /// ErrInvalidOption for a NUMA node or a pinning the machine cannot give.
  explicit IsolatePlacer(const ActorSystemOptions& options);
  IsolatePlacer(const IsolatePlacer&) = delete;
  IsolatePlacer& operator=(const IsolatePlacer&) = delete;

  /// The isolates planned: how many the system has.
  std::size_t isolates() const noexcept { return isolates_; }
  /// Each isolate's placement: as planned until its thread starts, then
  /// what the kernel granted it. A copy, made under the lock.
  std::vector<IsolatePlacement> placement() const;
  /// On isolate `index`'s thread as it starts: binds the thread as planned
  /// (if the options ask for a binding), records where the kernel lets it
  /// run, and logs that to `log`.
  void pin(std::size_t index, spdlog::logger& log) noexcept;
  /// The isolate a spawn with `options` goes to: the first that applies of
  /// an isolate, a peer's isolate (`nearIsOurs`: options.near() is a
  /// reference of this system; else ErrInvalidOption), a key, round-robin;
  /// then a child stays on `parentIsolate`, and a top-level actor (no
  /// parent) goes round the isolates, a run of them at a time
  /// (ActorSystemOptions::withPlacementRun). An isolate out of range is the
  /// caller's to refuse.
  std::size_t isolateFor(const ActorOptions& options, std::optional<std::size_t> parentIsolate,
                         bool nearIsOurs);

 private:
  mutable std::mutex mutex_;
  std::vector<IsolatePlacement> placement_;  // guarded by mutex_
  const std::size_t isolates_;               // placement_.size()
  const std::size_t run_;                    // ActorSystemOptions::placementRun
  // Bound as the options ask: a pinning mode, or the NUMA node they name.
  const bool bindingWanted_;
  std::atomic<std::uint64_t> roundRobin_{0};
};

}  // namespace coreactor::detail
