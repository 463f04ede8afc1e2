/// @file
/// `coreactor/MicrotaskDispatcher.hpp` — every unit on the microtask queue (requirement D2).
//
// The fastest dispatcher and a measurement tool, not a production choice: the
// microtask queue drains to empty before the loop reaches timers or I/O, so
// two actors volleying on it starve every timer and socket of the isolate for
// as long as they volley (requirement L3). Use HybridDispatcher, which is this plus a
// bound. Cost: one ring push per unit (bench: "hop/microtask").
#pragma once

#include "coreactor/Dispatcher.hpp"

namespace coreactor {

/// Every unit on the microtask queue: the fastest, and unbounded (it can
/// starve timers and I/O); for measurements.
class MicrotaskDispatcher final : public BoundDispatcher {
 public:
  std::string_view id() const noexcept override { return "microtask-dispatcher"; }
  using Dispatcher::execute;
  /// Starts a cache line, as the loop's hot functions do.
  [[gnu::aligned(64)]] void execute(Task& task) override {
    detail::IsolateHooks::queueMicrotask(loop(), task, *this);
  }
  std::unique_ptr<Dispatcher> clone() const override;
};

}  // namespace coreactor
