// Where the actors that moved live now, for the senders that are no isolate
// (plain threads, Feeders, the cluster's link): one table per system, from
// an actor's own id (the one its reference names) to the id of its entry on
// the isolate it lives on. Isolates write it when an actor arrives, comes
// back to the isolate its reference names, or stops (runtime/Move.cpp), a
// few times per move; senders read it through their StreamRoutes. It is a
// hint: a sender that reads an old entry reaches the actor through the
// Forward there, one hop more, and order never depends on it.
//
// Reading costs a sender nothing while no actor of the system lives away
// from its spawn entry (one load), and one more load while the actor it
// sends to hashes to a bucket no moved actor does; the lock is taken only
// for an actor that may have moved, and only when the table changed since
// the sender last looked (version()).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace coreactor::detail {

class Whereabouts {
 public:
  Whereabouts() = default;
  Whereabouts(const Whereabouts&) = delete;
  Whereabouts& operator=(const Whereabouts&) = delete;

  /// The actor `own` lives in the entry `entry` now (its own id: at home).
  void set(std::uint64_t own, std::uint64_t entry);
  /// The actor `own` stopped: it lives nowhere.
  void erase(std::uint64_t own);

  /// True while some actor lives away from its spawn entry. Any thread.
  bool any() const noexcept { return moved_.load(std::memory_order_acquire) != 0; }
  /// False if `own` surely lives in its spawn entry (or never lived). Any thread.
  bool mayHaveMoved(std::uint64_t own) const noexcept {
    return any() && buckets_[bucketOf(own)].load(std::memory_order_acquire) != 0;
  }
  /// Changes on every set() and erase(). Any thread.
  std::uint64_t version() const noexcept { return version_.load(std::memory_order_acquire); }
  /// The entry `own` lives in, as last written: `own` itself if it never
  /// moved, came back, or stopped. Any thread; takes the lock.
  std::uint64_t entryOf(std::uint64_t own) const;
  /// Tells this table from one made later at the same address.
  std::uint64_t serial() const noexcept { return serial_; }

 private:
  static std::uint64_t nextSerial() noexcept;

  static constexpr std::size_t kBuckets = 256;
  static std::size_t bucketOf(std::uint64_t own) noexcept {
    return static_cast<std::size_t>((own * 0x9E3779B97F4A7C15ull) >> 56);
  }

  const std::uint64_t serial_ = nextSerial();
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::uint64_t> entries_;  // own id -> entry, moved ones only
  std::atomic<std::uint64_t> moved_{0};                       // entries_.size()
  std::atomic<std::uint64_t> version_{0};
  std::array<std::atomic<std::uint32_t>, kBuckets> buckets_{};  // moved actors per bucket
};

}  // namespace coreactor::detail
