// The doorbell of one isolate's link (Link.hpp, Link.ipp "The doorbell"): a
// flag its peers raise when they have pushed to its rings, which the loop's
// look between units reads instead of every ring. Raised from any thread,
// lowered by the owning isolate.
#pragma once

#include <atomic>

namespace coreactor::transport {

class Doorbell {
 public:
  /// Raises the bell; a bell already up is only read, not written again.
  void ring() noexcept {
    if (!up_.load(std::memory_order_relaxed)) up_.store(true, std::memory_order_release);
  }
  /// Up now (a relaxed load).
  bool up() const noexcept { return up_.load(std::memory_order_relaxed); }
  /// Lowers the bell (a relaxed store: the caller fences before it reads the rings).
  void lower() noexcept { up_.store(false, std::memory_order_relaxed); }
  /// The flag itself, for the loop to read (Poller::attention()).
  const std::atomic<bool>* flag() const noexcept { return &up_; }

 private:
  std::atomic<bool> up_{false};
};

}  // namespace coreactor::transport
