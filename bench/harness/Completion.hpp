// bench/harness/Completion.hpp — the end of a round, raised on the thread
// that finished it (an isolate's, a CAF worker's) and awaited by the
// benchmark's thread. Header-only, and free of coreactor's runtime headers
// and CAF's, so that either arm can use it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace coreactor::bench {

/// Lives as long as what it belongs to (a rally, a workload) and is reset
/// between rounds. Not a std::promise made anew each round: replacing the
/// promise while the finishing thread may still be inside set_value() of
/// the last round's is a race on that promise and its shared state.
class Completion {
 public:
  /// Benchmark's thread, between rounds.
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    raised_ = false;
  }
  /// The finishing side.
  void raise() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      raised_ = true;
    }
    changed_.notify_all();
  }
  /// Benchmark's thread: false if `timeout` passed first.
  bool waitFor(std::chrono::nanoseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return raised_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool raised_ = false;
};

}  // namespace coreactor::bench
