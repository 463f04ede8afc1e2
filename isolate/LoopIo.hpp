// What comes into an isolate's loop from outside its own queues: Asio's
// completions (runIo), the pollers that bring messages from other isolates
// (runPollers, lookBetweenUnits) and the inbox of tasks posted from other
// threads (drainInbox). The loop's phases 2, 3 and 3b
// (include/coreactor/Isolate.hpp). Functions of the isolate they are given;
// their state lives in Isolate::Cold (IsolateCold.hpp), the pollers in the
// isolate itself, which its hot path reads. The loop thread.
#pragma once

#include <cstddef>

#include "coreactor/Isolate.hpp"

namespace coreactor::detail {

/// The loop's intake from outside; Isolate's friend.
class LoopIo {
 public:
  /// Moves what other threads posted from the inbox to the macrotask queue.
  static void drainInbox(Isolate& isolate);
  /// The I/O phase: ready Asio completions, at most
  /// IsolateOptions::ioHandlersPerTurn of them, each followed by a microtask
  /// drain; a busy loop whose looks find nothing looks less often.
  static void runIo(Isolate& isolate);
  /// Every poller takes what arrived (detail::Poller::poll), each followed
  /// by a microtask drain; a throw is reported.
  static void runPollers(Isolate& isolate);
  /// The look of unit poller `poller` between two units of a drain
  /// (detail::Poller::pollBetweenUnits); a throw is reported.
  static void lookBetweenUnits(Isolate& isolate, std::size_t poller) noexcept;
};

}  // namespace coreactor::detail
