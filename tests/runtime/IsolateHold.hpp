// Holds one isolate of a threaded system inside a handler, so that it takes
// nothing from its inbox or its rings until release(): for tests that need
// work sent to that isolate to stay pending (a full ring, a result not yet
// complete). The held actor can also be sent to.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>

#include "coreactor/ActorSystem.hpp"

namespace coreactor::test {

class IsolateHold {
 public:
  /// Spawns the holding actor on `isolate` and returns once it holds it;
  /// held() is false if that did not happen within 30 s. `name`: the
  /// holding actor's, unique among the system's top-level actors.
  IsolateHold(ActorSystem& system, std::size_t isolate, const std::string& name = "hold")
      : gate_(release_.get_future().share()) {
    // The gate is copied into the handler: the hold may be destroyed right
    // after release(), while the handler is still waking up from wait().
    actor_ = system.spawn(
        name,
        [this, gate = gate_](ReceiveContext& ctx) {
          if (!ctx.is<Hold>()) return;
          holding_.set_value();
          gate.wait();
        },
        ActorOptions::create().withIsolate(isolate));
    actor_.tell(Hold{});
    held_ = holding_.get_future().wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  }
  IsolateHold(const IsolateHold&) = delete;
  IsolateHold& operator=(const IsolateHold&) = delete;
  ~IsolateHold() { release(); }

  bool held() const noexcept { return held_; }
  /// The holding actor: messages to it wait (in its mailbox or the rings).
  const ActorRef& actor() const noexcept { return actor_; }
  /// Lets the isolate go on. Idempotent.
  void release() {
    if (!released_) {
      released_ = true;
      release_.set_value();
    }
  }

 private:
  struct Hold {};
  std::promise<void> release_;
  std::shared_future<void> gate_;
  std::promise<void> holding_;
  ActorRef actor_;
  bool held_ = false;
  bool released_ = false;
};

}  // namespace coreactor::test
