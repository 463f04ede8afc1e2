// The caches' trim timer (CacheTrim.hpp).
#include "CacheTrim.hpp"

#include <chrono>
#include <cstdint>
#include <thread>
#include <utility>

#include "BlockCache.hpp"
#include "SmallBlocks.hpp"
#include "coreactor/Isolate.hpp"

namespace coreactor::detail {

namespace {

// The thread's trim timer: the isolate it is armed on, and which arming it
// is. Trivially destructible, so that it outlives the thread's other
// thread_locals (a cache gives blocks back during their destruction).
struct TrimState {
  const Isolate* armedOn;  // null: no timer armed for this thread
  std::uint64_t serial;
  std::chrono::steady_clock::time_point armedAt;
  std::uint32_t looks;  // trimWillCome() calls while armed
};
thread_local TrimState tTrim{};

bool arm(Isolate& here) noexcept;
// trimWillCome() reads the clock once in this many calls + 1 while armed.
constexpr std::uint32_t kLooksBetweenChecks = 255;

// The timer's task. It acts only on the thread that armed it, and only for
// that thread's latest arming: a timer of an older arming, or one whose
// loop has moved to another thread, does nothing. Dropped unrun (its
// isolate stopped), it lets the next block above a bound arm anew.
class TrimTask {
 public:
  explicit TrimTask(std::uint64_t serial) noexcept
      : serial_(serial), owner_(std::this_thread::get_id()) {}
  TrimTask(TrimTask&& other) noexcept
      : serial_(std::exchange(other.serial_, 0)), owner_(other.owner_) {}
  TrimTask(const TrimTask&) = delete;
  TrimTask& operator=(const TrimTask&) = delete;
  TrimTask& operator=(TrimTask&&) = delete;
  ~TrimTask() {
    if (latest()) tTrim.armedOn = nullptr;
  }
  void operator()() noexcept {
    if (!latest()) return;
    serial_ = 0;
    tTrim.armedOn = nullptr;
    const bool blocksLeft = BlockCache::local().trim() | SmallBlocks::trim();
    if (Isolate* here = Isolate::current(); blocksLeft && here != nullptr) arm(*here);
  }

 private:
  bool latest() const noexcept {
    return serial_ != 0 && std::this_thread::get_id() == owner_ && tTrim.serial == serial_;
  }
  std::uint64_t serial_;  // 0: moved from, or already run
  std::thread::id owner_;
};

bool arm(Isolate& here) noexcept {
  try {
    here.setTimeout(kTrimPeriod, TrimTask(++tTrim.serial),
                    TimerOptions{.referenced = false, .coarse = true});
    tTrim.armedOn = &here;
    tTrim.armedAt = std::chrono::steady_clock::now();
    return true;
  } catch (...) {
    return false;  // a stopping isolate, or no memory for the timer
  }
}

}  // namespace

bool trimWillCome() noexcept {
  Isolate* here = Isolate::current();
  if (here == nullptr) return false;  // no loop to trim it
  if (tTrim.armedOn != nullptr) {
    // Armed for this thread, on this isolate or on another that this
    // thread runs (a manual system runs all of its isolates on one). Now
    // and then, make sure it has not gone stale: a timer whose isolate
    // moved to another thread, or was destroyed on one, does nothing and
    // tells no one. A timer three periods old has.
    if ((++tTrim.looks & kLooksBetweenChecks) != 0) return true;
    if (std::chrono::steady_clock::now() - tTrim.armedAt < 3 * kTrimPeriod) return true;
  }
  return arm(*here);
}

}  // namespace coreactor::detail
