/// @file
/// `coreactor/ImmediateDispatcher.hpp` — every unit as a macrotask (requirement D3).
//
// Timers and I/O get a look between every two actor turns: the fairest
// dispatcher, and the slowest for request/response traffic, which pays one loop
// iteration per message. Cost: one ring push per unit plus one loop iteration
// (bench: "hop/immediate").
#pragma once

#include "coreactor/Dispatcher.hpp"

namespace coreactor {

/// Every unit as a macrotask: timers and I/O get a look between any two units.
class ImmediateDispatcher final : public BoundDispatcher {
 public:
  std::string_view id() const noexcept override { return "immediate-dispatcher"; }
  using Dispatcher::execute;
  void execute(Task& task) override { detail::IsolateHooks::post(loop(), task, *this); }
  std::unique_ptr<Dispatcher> clone() const override;
};

}  // namespace coreactor
