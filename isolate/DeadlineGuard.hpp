// isolate/DeadlineGuard.hpp — whether a timer's deadline has surely not come
// yet, without reading the clock.
//
// A loop with a timer armed looks at the time on every iteration (is the
// earliest timer due?), and a steady-clock read costs about 26 ns on a VM
// (kvm-clock) against about 10 ns for the CPU's time-stamp counter. In a
// busy exchange between two isolates that read sits between a message's
// arrival and its answer. The guard keeps the last clock read and the
// counter read beside it, and bounds the time passed since from above:
// ticks x (ns per tick x 1.05). A deadline further away than that bound is
// surely later than now; anything else, the caller reads the clock.
//
// The rate is measured against the steady clock over the first millisecond
// of the guard's use (until then it never answers "surely later"), each end
// read in the order that can only make the rate look slower, so the bound
// errs towards reading the clock. Used only on a CPU whose counter ticks at
// one constant rate on every core (x86's invariant TSC, CPUID 0x80000007
// EDX bit 8); elsewhere the guard never answers and costs one branch.
// A counter that seems to go back (another core's, after a migration)
// makes the difference huge: the clock is read.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include "coreactor/Clock.hpp"

namespace coreactor::detail {

class DeadlineGuard {
 public:
  /// How long the rate is measured before the guard answers.
  static constexpr std::chrono::milliseconds kCalibration{1};
  /// The factor on the measured ns per tick: the bound on the time passed
  /// overshoots by this much, never undershoots.
  static constexpr double kMargin = 1.05;

  DeadlineGuard() noexcept : usable_(invariantCounter()) {}

  /// True if `deadline` is surely later than now. False tells nothing.
  bool surelyBefore(Clock::time_point deadline) const noexcept {
    if (nsPerTick_ == 0) return false;
    const auto ahead = (deadline - readAt_).count();
    if (ahead <= 0) return false;
    const std::uint64_t ticks = counter() - counterAtRead_;
    return static_cast<double>(ticks) * nsPerTick_ < static_cast<double>(ahead);
  }

  /// After the caller read `now` from the steady clock.
  void read(Clock::time_point now) noexcept {
    if (!usable_) return;
    const std::uint64_t ticks = counter();  // after the clock: its time is at most this late
    if (nsPerTick_ == 0) calibrate(now, ticks);
    readAt_ = now;
    counterAtRead_ = ticks;
  }

 private:
  static std::uint64_t counter() noexcept {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return 0;
#endif
  }

  static bool invariantCounter() noexcept {
#if defined(__x86_64__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (edx & (1u << 8)) != 0;
#else
    return false;
#endif
  }

  void calibrate(Clock::time_point now, std::uint64_t ticks) noexcept {
    if (calibrationStart_ == Clock::time_point{}) {
      // The start: the clock first, then the counter (a delay between them
      // shortens the ticks counted, so the rate looks slower).
      calibrationStart_ = now;
      calibrationTicks_ = ticks;
      return;
    }
    if (now - calibrationStart_ < kCalibration) return;
    // The end: the counter first, then the clock (a delay between them
    // lengthens the time measured).
    const std::uint64_t endTicks = counter();
    const Clock::time_point end = std::chrono::steady_clock::now();
    if (endTicks <= calibrationTicks_) {
      calibrationStart_ = Clock::time_point{};  // the counter went back: measure again
      return;
    }
    const double ns = static_cast<double>((end - calibrationStart_).count());
    nsPerTick_ = ns / static_cast<double>(endTicks - calibrationTicks_) * kMargin;
  }

  bool usable_;
  double nsPerTick_ = 0;  // 0: not measured yet, or not usable
  Clock::time_point readAt_{};
  std::uint64_t counterAtRead_ = 0;
  Clock::time_point calibrationStart_{};
  std::uint64_t calibrationTicks_ = 0;
};

}  // namespace coreactor::detail
