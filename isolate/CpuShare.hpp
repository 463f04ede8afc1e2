// Which CPUs the process's awake loops are on, so that a loop in its idle
// poll window does not spin on a CPU another awake loop needs
// (IdleWait::pollWhileIdle).
//
// Two loops on one CPU take turns at the scheduler's pace: one that spins in
// its window holds the CPU until the kernel preempts it (milliseconds), while
// the message it waits for sits with the other loop, runnable on the same
// CPU. Threads that are not pinned land that way whenever something else
// (another process, another system) takes a CPU: the scheduler puts the
// busy outsider alone and the two loops, which sleep now and then, together.
// A loop therefore counts itself on its CPU while it is awake (running or
// polling), and a window that finds another loop counted there yields the
// CPU at each look (sched_yield) instead of pausing: the other loop runs at
// once, and the window still ends where it would have.
//
// The count is process-wide, one cache line per CPU, written when a loop
// starts, sleeps, wakes or stops, or is found on another CPU: a loop reads
// its CPU (sched_getcpu, a load from the kernel's rseq area) at each
// iteration and, in a window, with its clock. A count goes stale only while
// a loop that moved runs one long iteration: meanwhile a loop on its old CPU
// yields where it could have paused (each yield returns at once when no one
// else waits), or the reverse.
#pragma once

#include <sched.h>

namespace coreactor::detail {

class CpuShare {
 public:
  /// No CPU: the loop is not counted anywhere.
  static constexpr int kNone = -1;
  /// Counts the calling thread's loop on the CPU it runs on now, moving it
  /// from `counted` (kNone: it was not counted) if that differs. Returns the
  /// CPU it is counted on (kNone if the CPU cannot be told or is past the
  /// count's table).
  static int settle(int counted) noexcept {
    const int cpu = sched_getcpu();
    return cpu == counted ? counted : move(counted, cpu);
  }
  /// Uncounts a loop counted on `counted`; returns kNone.
  static int leave(int counted) noexcept;
  /// Another awake loop is counted on `cpu`.
  static bool crowded(int cpu) noexcept;

 private:
  /// settle() when the loop is not counted where it runs (`cpu`, or -1).
  static int move(int counted, int cpu) noexcept;
};

}  // namespace coreactor::detail
