// Isolate::Cold: the state of an isolate's loop that the hot path (a unit, a
// drain, a macrotask) does not touch: the timers, the cross-thread inbox,
// sleeping and waking, Asio, the idle poll window and the idle time. Read by
// Isolate.cpp and by the loop's parts: LoopTimers (the timers), LoopIo (I/O,
// pollers, the inbox) and IdleWait (waiting for work).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

#include <concurrentqueue/concurrentqueue.h>

#include "CpuShare.hpp"
#include "LoopTimers.hpp"
#include "SleepCensus.hpp"
#include "coreactor/Asio.hpp"
#include "coreactor/Isolate.hpp"

namespace coreactor {

// Everything the hot path does not touch: timers, the cross-thread inbox, Asio.
struct Isolate::Cold {
  using SteadyPoint = std::chrono::steady_clock::time_point;

  // ---- timers (LoopTimers.hpp) ----------------------------------------------
  detail::LoopTimers timers;

  // ---- the inbox: tasks posted from other threads ---------------------------
  moodycamel::ConcurrentQueue<Unit> inbox;
  std::atomic<int> remoteWriters{0};  // posts between their stop check and enqueue

  // ---- sleeping and waking --------------------------------------------------
  // The loop raises `sleeping`, fences, and re-checks the inbox before it
  // blocks; a poster enqueues, fences, and wakes only a loop that sleeps
  // (one wake per sleep, via `wakePending`). Either the poster sees the flag
  // or the loop sees the task: no lost wake-up, and no syscall per post to a
  // busy loop.
  // A line of their own: every sender reads `sleeping` on every wake-up it
  // owes, and the loop writes its own fields all the time (false sharing
  // there cost a line transfer per crossing).
  //
  // Where the loop sleeps: in Asio's run_one() (its mutex and condition
  // variable, or its reactor), or, while nothing can reach the loop through
  // Asio (no one has asked for ioContext(), so no I/O object or handler can
  // exist), on `wakeSeq` with a futex: one syscall to wake, one to sleep,
  // as a raw eventfd round trip takes. Asio's condition variable costs a
  // third each time (glibc marks the mutex contended after a wait, so its
  // unlock is a futex wake that finds no one): one to two microseconds more
  // per wake-up on a VM (bench isolates/pingpong/idle).
  enum Sleep : std::uint8_t { kAwake = 0, kInAsio = 1, kOnFutex = 2 };
  alignas(64) std::atomic<std::uint8_t> sleeping{kAwake};
  std::atomic<bool> wakePending{false};
  std::atomic<std::uint32_t> wakeSeq{0};  // the futex word: bumped by each futex wake
  std::atomic<bool> ioHandedOut{false};   // ioContext() was called: sleep in Asio

  // ---- I/O --------------------------------------------------------------------
  // Concurrency hint 1: one thread runs it, while posts from others (our wake)
  // stay safe.
  alignas(64) boost::asio::io_context io{1};
  // ---- the idle poll window (IdleWait.hpp, IdlePoll.hpp) ----------------------
  std::chrono::nanoseconds idlePoll{0};  // the window now; set from the options
  SteadyPoint windowRanOut{};            // when the last window ran out, before a sleep
  int cpu = detail::CpuShare::kNone;     // where the loop counts itself awake (CpuShare.hpp)
  bool crowded = false;      // another awake loop was counted there at the window's last look
  bool reactorSeen = false;  // Asio has a reactor: I/O objects exist (LoopIo::runIo)
  std::uint32_t sinceIoCheck = 0;
  // ---- idle time, measured on request (IsolateHooks::measureIdle) ------------
  // Two clock reads around each wait for work, so only while someone asks
  // (an actor system's balancer): the loop's thread adds, and reads.
  std::atomic<bool> measureIdle{false};
  std::uint64_t idleNanos = 0;
  // The group whose sleeps are counted together (IsolateHooks::countSleeps), or null.
  detail::SleepCensus* census = nullptr;
  std::uint32_t ioPollEvery = 1;  // a busy loop polls the reactor every this many iterations
  std::uint32_t sinceIoPoll = 0;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
};

}  // namespace coreactor
