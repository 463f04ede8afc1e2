/// @file
/// `coreactor/Placement.hpp` — where isolates run: the pinning modes and the
/// report of each isolate's CPUs (requirement L5).
//
// A system asks for a placement with ActorSystemOptions::withPinning and
// withNumaNode, and reports it through ActorSystem::placement(). Values only:
// nothing here runs anything.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace coreactor {

/// How isolate threads are bound to CPUs (requirement L5).
enum class Pinning {
  None,         ///< the kernel schedules them anywhere (the default)
  PerCore,      ///< isolate i on the i-th allowed CPU, alone
  PerNumaNode,  ///< isolate i on all allowed CPUs of the (i mod nodes)-th node, by number
};

/// Where one isolate runs (requirement L5): logged at start, and through
/// ActorSystem::placement(). Until the isolate's thread starts it is the
/// plan; once it has started, what the kernel does: `cpus` is the thread's
/// affinity read back after the binding, and `pinned` is true only if the
/// binding was made and the kernel keeps the thread within the CPUs asked for.
struct IsolatePlacement {
  std::size_t isolate = 0;     ///< the isolate's index
  std::vector<unsigned> cpus;  ///< the CPUs it may run on (all allowed ones when unpinned)
  int numaNode = -1;           ///< its NUMA node when pinned to one; -1 otherwise
  bool pinned = false;         ///< bound to `cpus` (once its thread has started)
  std::string note;            ///< why it is not pinned, when it was asked to be
  /// How long its loop looks for work before it sleeps (ActorSystemOptions::withIdlePoll).
  std::chrono::nanoseconds idlePoll{0};
};

}  // namespace coreactor
