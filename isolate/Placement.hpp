// Which CPUs each isolate of a system runs on (SPEC L5): the plan made from
// the pinning the options ask for and the machine's topology, and the
// pinning of an isolate's thread to its part of the plan.
//
// Thread-safety: planPlacement() is a pure function of its arguments;
// pinThread() binds the calling thread only and reads its affinity back.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "Topology.hpp"
#include "coreactor/Placement.hpp"

namespace coreactor::detail {

/// What a system asks of its placement.
struct PlacementRequest {
  std::size_t isolates = 0;  ///< 0: one per allowed CPU (one in a manual run)
  Pinning pinning = Pinning::None;
  std::optional<int> numaNode{};  ///< bind every isolate to this node's CPUs
  /// The idle poll window asked for; unset: `defaultIdlePoll` when each
  /// isolate can have a CPU of its own, else none.
  std::optional<std::chrono::nanoseconds> idlePoll{};
  std::chrono::nanoseconds defaultIdlePoll{0};
  bool manualRun = false;  ///< the caller's thread drives every loop: no pinning, no poll
};

/// One IsolatePlacement per isolate, `pinned` still false (pinThread() sets
/// it as each thread starts). A NUMA node (`numaNode`) binds as a pinning
/// mode does: each isolate to all the node's CPUs unless a mode says more.
/// Throws ErrInvalidOption for a node without a CPU in the topology (the
/// message lists the nodes that have one), and for more isolates than CPUs
/// when binding (a pinning mode, or a node).
std::vector<IsolatePlacement> planPlacement(const PlacementRequest& request,
                                            const Topology& machine = Topology::machine());

/// Binds the calling thread to `placement.cpus` when `wanted`, then reads
/// back from the kernel where the thread may run, so that the placement
/// says what the kernel does: `cpus` becomes the CPUs read back (left as
/// planned only if the kernel does not say); `pinned` is true only if the
/// binding was made and the kernel keeps the thread within the CPUs asked
/// for. An isolate not pinned has `numaNode` -1 and, when the binding was
/// wanted, a `note` that says why (the thread then runs where the kernel
/// puts it).
void pinThread(IsolatePlacement& placement, bool wanted,
               const Topology& machine = Topology::machine());

}  // namespace coreactor::detail
