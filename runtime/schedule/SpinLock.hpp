// A lock for critical sections of a few dozen instructions that any thread
// may enter (the scheduler's reference namespace): one exchange to take it
// and one store to leave it, against a call and a locked instruction each
// way for std::mutex. A waiter spins politely (pause), then yields its CPU,
// so a holder that was preempted is not starved. BasicLockable: use it with
// std::lock_guard.
#pragma once

#include <atomic>
#include <thread>

namespace coreactor::detail {

class SpinLock {
 public:
  void lock() noexcept {
    unsigned spins = 0;
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins < kSpinsBeforeYield) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  void unlock() noexcept {
    locked_.store(false, std::memory_order_release);
  }

 private:
  static constexpr unsigned kSpinsBeforeYield = 64;
  std::atomic<bool> locked_{false};
};

}  // namespace coreactor::detail
