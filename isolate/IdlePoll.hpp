// The idle poll window that adapts (IsolateOptions::idlePoll): how long a
// loop with nothing to do keeps looking for work before it sleeps, once it
// has seen how its last sleep ended. Pure arithmetic, so that the rule is
// tested apart from any clock (tests/isolate/IdlePollTest.cpp).
//
// A wake-up costs a system call on each side and, on a VM, the wake of a
// halted vCPU: tens of microseconds on a loaded machine. A loop whose
// partner answers just after its window ran out pays that on every message,
// and a chain of hops between two isolates can settle there for good. So:
//   - work from another thread that woke the loop soon after it fell asleep
//     (within the longest window) doubles the window: the next answer that
//     comes as late is caught while the loop still looks;
//   - a sleep longer than the longest window halves it, down to the
//     configured one: an isolate that is mostly idle spins as little as the
//     option says;
//   - a wake-up by a timer or by nothing changes nothing.
// The window stays between the configured one and kIdlePollGrowth times it;
// a configured window of zero (no spinning: isolates outnumber the CPUs, or
// a manual system) stays zero.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace coreactor::detail {

/// The longest window is this many times the configured one.
inline constexpr std::int64_t kIdlePollGrowth = 8;

/// The window after a sleep of `slept` that began when a window of `window`
/// ran out; `byWork`: the loop found work from another thread on waking.
inline std::chrono::nanoseconds nextIdlePoll(std::chrono::nanoseconds window,
                                             std::chrono::nanoseconds configured,
                                             std::chrono::nanoseconds slept, bool byWork) noexcept {
  if (configured.count() <= 0) return std::chrono::nanoseconds{0};
  const std::chrono::nanoseconds longest = configured * kIdlePollGrowth;
  window = std::clamp(window, configured, longest);
  if (slept >= longest) return std::max(configured, window / 2);
  if (byWork) return std::min(longest, window * 2);
  return window;
}

}  // namespace coreactor::detail
