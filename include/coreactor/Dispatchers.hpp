/// @file
/// `coreactor/Dispatchers.hpp` — the factories of the built-in dispatchers (requirement D9).
//
// Each call returns a fresh, unbound instance; a system binds one per isolate.
//   Dispatchers::Hybrid(1000)   fewer yields for a compute pipeline with no I/O
//   Dispatchers::Immediate()    a yield after every actor turn
// docs/dispatchers.md says when to pick which, with our measured costs.
#pragma once

#include <cstddef>
#include <memory>

#include "coreactor/HybridDispatcher.hpp"
#include "coreactor/ImmediateDispatcher.hpp"
#include "coreactor/MicrotaskDispatcher.hpp"
#include "coreactor/ThroughputDispatcher.hpp"

namespace coreactor {

/// The built-in dispatchers by name, each call a fresh, unbound instance.
struct Dispatchers {
  /// A HybridDispatcher: microtasks, and after every `yieldEvery` of them
  /// one unit through a macrotask. The default.
  static std::unique_ptr<Dispatcher> Hybrid(
      std::size_t yieldEvery = HybridDispatcher::kDefaultYieldEvery) {
    return std::make_unique<HybridDispatcher>(yieldEvery);
  }
  /// A MicrotaskDispatcher: every unit a microtask (for measurements: it can
  /// starve timers and I/O).
  static std::unique_ptr<Dispatcher> Microtask() { return std::make_unique<MicrotaskDispatcher>(); }
  /// An ImmediateDispatcher: every unit a macrotask.
  static std::unique_ptr<Dispatcher> Immediate() { return std::make_unique<ImmediateDispatcher>(); }
  /// A ThroughputDispatcher: up to `throughput` units per macrotask, from a
  /// queue of its own.
  static std::unique_ptr<Dispatcher> Throughput(
      std::size_t throughput = ThroughputDispatcher::kDefaultThroughput) {
    return std::make_unique<ThroughputDispatcher>(throughput);
  }
};

}  // namespace coreactor
