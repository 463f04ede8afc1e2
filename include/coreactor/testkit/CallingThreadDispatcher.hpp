/// @file
/// `coreactor/testkit/CallingThreadDispatcher.hpp` — runs units on the calling thread (requirement D13).
//
// FOR TESTS ONLY. execute() runs the unit before it returns, so a test can
// "send N, observe N" with no loop at all. A unit handed over while another
// runs on this dispatcher is queued and run right after it (no recursion, so
// two units volleying do not grow the stack), still before the outermost
// execute() returns. That is exactly why it is no production dispatcher: the
// caller waits for the callee, which the actor model promises never happens,
// and a volley never returns to its caller at all.
//
// Thread-safety: one thread at a time; it needs no isolate. A throw from a
// unit goes to this dispatcher's error sink (stderr when unset); the
// remaining units still run.
#pragma once

#include "coreactor/Dispatcher.hpp"
#include "coreactor/detail/RingBuffer.hpp"

namespace coreactor::testkit {

/// For tests only: runs each unit on the calling thread before execute()
/// returns (a unit handed over by a running one runs right after it).
class CallingThreadDispatcher final : public Dispatcher {
 public:
  std::string_view id() const noexcept override { return "calling-thread-dispatcher"; }
  using Dispatcher::execute;
  void execute(Task& task) override {
    queue_.push(&task);
    if (running_) return;
    running_ = true;
    while (!queue_.empty()) {
      Task* unit = queue_.pop();
      try {
        unit->run();
      } catch (...) {
        reportError(std::current_exception());
      }
    }
    running_ = false;
  }
  std::unique_ptr<Dispatcher> clone() const override {
    return withMySink(std::make_unique<CallingThreadDispatcher>());
  }

 private:
  bool running_ = false;
  detail::RingBuffer<Task*> queue_;
};

}  // namespace coreactor::testkit
