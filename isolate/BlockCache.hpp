// A per-thread cache of blocks in power-of-two size classes, 256 B to
// 64 KiB: the mailboxes' and the overflow lists' segments, the system-message
// rings' buffers, and the asks' reply slots. An idle actor gives its blocks
// back and takes one again with its next message, and a burst that fills a
// mailbox and drains it again recycles the same blocks, for a few
// nanoseconds each instead of a malloc and a free. Blocks for objects
// aligned to a cache line (a cross-isolate Crossing) have lists of their
// own: an aligned allocation costs more than a plain one, so only they pay
// for it.
//
// How much a thread keeps parked, per class: up to a fixed bound
// (kParkSmallest, kParkEach); on a thread that runs an isolate's loop, as
// much as its bursts need, up to kParkCeiling, and what stays unused goes
// back to the heap within two trim periods (CacheTrim.hpp). A burst of
// 100,000 messages into one mailbox drains into 6 MiB of segments: given
// back to glibc, they were trimmed from the heap and faulted in again by the
// next burst, and a message cost ~15x more (docs/mailboxes.md, "Bursts and
// memory").
//
// Thread-safety: each thread has its own cache (local()).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

namespace coreactor::detail {

class BlockCache {
 public:
  static constexpr std::size_t kSmallest = 256;
  static constexpr std::size_t kClasses = 9;  // 256 B, 512 B, ..., 64 KiB
  static constexpr std::size_t kLargest = kSmallest << (kClasses - 1);
  /// Bytes a thread parks at all times in the smallest class (the idle
  /// actors' buffers) and in each larger one.
  static constexpr std::size_t kParkSmallest = std::size_t{1} << 20;
  static constexpr std::size_t kParkEach = std::size_t{512} << 10;
  /// Bytes an isolate's thread parks at most in a class, between trims.
  static constexpr std::size_t kParkCeiling = std::size_t{64} << 20;

  /// The class of a buffer of `bytes` (at most kLargest).
  static constexpr std::size_t classOf(std::size_t bytes) noexcept {
    std::size_t k = 0;
    while ((kSmallest << k) < bytes) ++k;
    return k;
  }
  static constexpr std::size_t bytesOf(std::size_t cls) noexcept { return kSmallest << cls; }

  /// The alignment of a `lineAligned` block.
  static constexpr std::size_t kLineAlignment = 64;

  BlockCache() noexcept = default;
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  /// A block of class `cls`, aligned to kLineAlignment if `lineAligned`
  /// (else to the default of operator new).
  void* get(std::size_t cls, bool lineAligned = false) {
    const std::size_t i = cls + (lineAligned ? kClasses : 0);
    Node*& head = heads_[i];
    if (head == nullptr) [[unlikely]] {
      return lineAligned ? ::operator new(bytesOf(cls), std::align_val_t(kLineAlignment))
                         : ::operator new(bytesOf(cls));
    }
    if (--counts_[i] < lowest_[i]) lowest_[i] = counts_[i];
    return std::exchange(head, head->next);
  }
  /// Gives back a block that get(cls, lineAligned) made.
  void put(void* block, std::size_t cls, bool lineAligned = false) noexcept {
    const std::size_t i = cls + (lineAligned ? kClasses : 0);
    if (counts_[i] >= kFixed[i]) [[unlikely]] {
      if (!parkAboveFixed(i)) {
        release(block, i);
        return;
      }
    }
    heads_[i] = ::new (block) Node{heads_[i]};
    ++counts_[i];
  }

  /// Gives back to the heap, class by class, the blocks above the fixed
  /// bound that no get() took since the last trim. True while blocks above
  /// the bound are left (the next trim may give them back). CacheTrim's
  /// timer calls it.
  bool trim() noexcept;
  /// Blocks parked in class `cls`: for tests.
  std::size_t parked(std::size_t cls, bool lineAligned = false) const noexcept {
    return counts_[cls + (lineAligned ? kClasses : 0)];
  }

  static BlockCache& local() noexcept {
    thread_local BlockCache cache;
    return cache;
  }

 private:
  struct Node {
    Node* next;
  };
  // The fixed bound of each list, in blocks: [cls] plain, [kClasses + cls]
  // aligned (defined below the class).
  static const std::array<std::size_t, 2 * kClasses> kFixed;
  static void release(void* block, std::size_t i) noexcept {
    if (i >= kClasses) {
      ::operator delete(block, std::align_val_t(kLineAlignment));
    } else {
      ::operator delete(block);
    }
  }
  // put() past the fixed bound: true if the block may be parked (below the
  // ceiling, on a loop whose trim timer will come).
  bool parkAboveFixed(std::size_t i) const noexcept;

  // [cls]: plain blocks; [kClasses + cls]: line-aligned ones.
  Node* heads_[2 * kClasses] = {};
  std::size_t counts_[2 * kClasses] = {};
  std::size_t lowest_[2 * kClasses] = {};  // the fewest parked since the last trim
  bool gone_ = false;                      // destroyed (thread exit): put() frees at once
};

inline constexpr std::array<std::size_t, 2 * BlockCache::kClasses> BlockCache::kFixed = [] {
  std::array<std::size_t, 2 * kClasses> fixed{};
  for (std::size_t i = 0; i < fixed.size(); ++i) {
    const std::size_t cls = i % kClasses;
    fixed[i] = (cls == 0 ? kParkSmallest : kParkEach) / bytesOf(cls);
  }
  return fixed;
}();

}  // namespace coreactor::detail
