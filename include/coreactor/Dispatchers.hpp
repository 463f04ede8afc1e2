// coreactor/Dispatchers.hpp — the factories of the built-in dispatchers (SPEC D9).
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

struct Dispatchers {
  static std::unique_ptr<Dispatcher> Hybrid(
      std::size_t yieldEvery = HybridDispatcher::kDefaultYieldEvery) {
    return std::make_unique<HybridDispatcher>(yieldEvery);
  }
  static std::unique_ptr<Dispatcher> Microtask() { return std::make_unique<MicrotaskDispatcher>(); }
  static std::unique_ptr<Dispatcher> Immediate() { return std::make_unique<ImmediateDispatcher>(); }
  static std::unique_ptr<Dispatcher> Throughput(
      std::size_t throughput = ThroughputDispatcher::kDefaultThroughput) {
    return std::make_unique<ThroughputDispatcher>(throughput);
  }
};

}  // namespace coreactor
