// The registry of a system's top-level actors (the user guardian's
// children): the names users gave them, and the count of those not yet
// stopped that a graceful shutdown waits for. Which actors are top-level is
// not kept here: the actor tables flag them (ActorTable.hpp), and
// Spawns::topLevel() reads the flags.
//
// Thread-safety: every call may come from any thread. The names, the wait
// and the stop of the loops are behind one mutex. count() and
// nextGenerated() are one atomic add each, with no lock (a generated name
// is in no map: it cannot collide with a user's, which never starts with
// '$'); terminated() takes the lock for the names only while some
// top-level actor has one, and uncount() only for the last actor left.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace coreactor::detail {

class TopLevelRegistry {
 public:
  /// `stopLoops` stops the system's loops; it runs under the registry's
  /// lock when the last top-level actor stops after stopLoopsWhenEmpty().
  explicit TopLevelRegistry(std::function<void()> stopLoops) : stopLoops_(std::move(stopLoops)) {}
  TopLevelRegistry(const TopLevelRegistry&) = delete;
  TopLevelRegistry& operator=(const TopLevelRegistry&) = delete;

  // ---- the count ----------------------------------------------------------------------
  /// One more top-level actor: counted at its spawn, before it can stop.
  void count() noexcept { live_.fetch_add(1, std::memory_order_relaxed); }
  /// One fewer: a top-level actor stopped, or its spawn failed. The last one
  /// wakes waitUntilEmpty() (and stops the loops after
  /// stopLoopsWhenEmpty()), under the lock.
  void uncount();
  /// Top-level actors counted and not yet stopped.
  std::size_t live() const noexcept { return live_.load(std::memory_order_relaxed); }

  // ---- the names ----------------------------------------------------------------------
  /// The number of the next generated name (`/user/$<n>`), from 1.
  std::uint64_t nextGenerated() noexcept {
    return generated_.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  /// Holds `name` for the spawn about to make its actor, so that two
  /// threads cannot both take it; false if it is taken.
  bool reserve(const std::string& name);
  /// The spawn that reserved `name` made the actor `id`: the name maps to
  /// it, before the actor can stop and give the name back.
  void bind(const std::string& name, std::uint64_t id);
  /// The spawn that reserved `name` failed: the name is free again.
  void unreserve(const std::string& name);
  /// The id of the actor named `name`; none while its spawn is under way.
  std::optional<std::uint64_t> named(const std::string& name);
  /// The top-level actor `id` stopped (its one ChildTerminated to the
  /// guardian): its name, if it had one, is free, and it is uncounted.
  void terminated(std::uint64_t id);

  // ---- a graceful shutdown ------------------------------------------------------------
  /// A shutdown from one of the system's loops, which cannot wait for
  /// itself: before the stops go out, so that the last top-level actor to
  /// stop stops the loops (uncount()).
  void stopLoopsWhenEmpty();
  /// After those stops went out: stops the loops if no top-level actor is
  /// left (none to do it in uncount()).
  void stopLoopsIfEmpty();
  /// Waits until no top-level actor is left or `stopped()` (checked under
  /// the lock; wakeWaiters() has it checked again), for at most `bound`.
  /// False if the bound passed first.
  bool waitUntilEmpty(std::chrono::nanoseconds bound, const std::function<bool()>& stopped);
  /// Has waitUntilEmpty() check again (the loops stopped). Under the lock,
  /// so that a waiter between its check and its sleep cannot miss the call.
  void wakeWaiters() noexcept;

 private:
  std::function<void()> stopLoops_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // Counted at spawn, before they can stop; the count drops under mutex_
  // (changed_) when it reaches 0.
  std::atomic<std::size_t> live_{0};
  std::atomic<std::size_t> named_{0};  // entries of names_ (changed under mutex_)
  std::unordered_map<std::string, std::uint64_t> byName_;  // guarded by mutex_; 0: reserved
  std::unordered_map<std::uint64_t, std::string> names_;   // guarded by mutex_
  std::atomic<std::uint64_t> generated_{0};
  bool stopLoopsWhenEmpty_ = false;  // guarded by mutex_
};

}  // namespace coreactor::detail
