// The reply slots of asks from foreign threads to actors of
// other ranks (ActorSystem::ask from a plain thread, ActorSystem::lookup):
// they live on no loop. A reply comes back from the cluster's link; where
// it lands is the thread that takes it from the link (the link's own, or
// an isolate's loop doing the link's work between its turns), and the ask
// completes right there. A timeout fires on a thread of this table's own.
// So an actor of this rank in a long turn delays neither the reply of such
// an ask nor its timeout: an isolate's reply slot would wait for its loop.
//
// A slot is named by a reference of isolate 0 with the slot number
// kForeignAskSlot, which no actor table hands out, and the slot's number
// as its generation: the reference crosses the wire as any other, and the
// cluster's receiving side sends what comes for it here (complete()).
//
// Threads: every call is thread-safe (one mutex, held only to find or
// change an entry: completions run outside it). The timer thread starts
// with the first slot and sleeps on a condition variable until the next
// deadline: an idle table costs no CPU.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Message.hpp"

namespace coreactor::detail {

class ForeignAsks {
 public:
  /// The slot field of every reference that names one of these slots.
  static constexpr std::uint32_t kForeignAskSlot = 0xFFFFFE;

  ForeignAsks() = default;
  /// Fails what is still open with ErrActorSystemNotStarted and joins the timer thread.
  ~ForeignAsks();
  ForeignAsks(const ForeignAsks&) = delete;
  ForeignAsks& operator=(const ForeignAsks&) = delete;

  /// Any thread: a slot that completes `completion` (taken) once, with a
  /// reply, an error, or ErrAskTimeout after `timeout`; its number (never
  /// 0, at most 28 bits: a reference's generation). Once closed, 0, and
  /// `completion` is left as it was.
  std::uint32_t open(AskCompletion& completion, std::chrono::nanoseconds timeout);
  /// True for a reference that names one of these slots: the slot field
  /// kForeignAskSlot on isolate 0 (of the system whose table this is).
  static bool names(const ActorRef& ref) noexcept {
    return ref.isolateIndex() == 0 && ref.slot() == kForeignAskSlot;
  }
  /// Any thread: completes slot `id` with `reply` (or `error`); false if
  /// it is not open (answered, failed or timed out already).
  bool complete(std::uint32_t id, Message* reply, std::error_code error) noexcept;
  /// Any thread: closes slot `id` without completing it (its request was
  /// never sent: the call that opened it threw).
  void dismiss(std::uint32_t id) noexcept;
  /// Fails every open slot with `error` and stops the timer thread; open()
  /// refuses from then on. Idempotent.
  void close(std::error_code error) noexcept;
  /// Slots open now.
  std::size_t size() const;

 private:
  using Steady = std::chrono::steady_clock;
  using Deadlines = std::multimap<Steady::time_point, std::uint32_t>;
  struct Entry {
    AskCompletion completion;
    Deadlines::iterator deadline;  // erased with the entry
  };
  void timeLoop();
  /// Runs `completion` with the outcome; a throw is reported on stderr.
  static void finish(AskCompletion& completion, Message* reply, std::error_code error) noexcept;

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a new earliest deadline, or closed
  std::unordered_map<std::uint32_t, Entry> open_;
  Deadlines deadlines_;  // the open slots by deadline
  std::uint32_t next_ = 1;
  bool closed_ = false;
  std::thread timer_;  // started by the first open()
};

}  // namespace coreactor::detail
