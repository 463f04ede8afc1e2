// Per-thread free lists of small heap blocks, by size class: where actor
// cells and actor objects come from and go back to.
//
// Why: actors are spawned and stopped in bursts (a hundred children at once,
// a fan-out of workers), and glibc's per-thread cache keeps only 7 blocks of
// a size. Past those, each malloc and free of a burst goes through malloc's
// bins: about 180 instructions to allocate a cell and as many to free it,
// and 570 of the 2,309 of an actor's whole life for its cell and its object
// together (callgrind, bench actor/spawn/100).
// Here a freed block waits on its thread's list for the next one of its
// class, and a burst costs a pointer swap a block. A thread keeps up to
// kParkBytes a class; one that runs an isolate's loop keeps what its bursts
// need, up to kParkCeiling, and gives back what stays unused within two
// trim periods (CacheTrim.hpp): spawning 100,000 actors again and again
// then reuses the same cells instead of faulting their pages in anew
// (bench actor/spawn/100000 with glibc's default thresholds: 2.2x slower).
//
// Classes are malloc's own usable sizes (24, 40, 56, ... bytes): a block is
// allocated at exactly its class's size, so it takes the same malloc chunk
// as a plain `new` of its object would, and an idle actor costs no byte more
// (bench actor/memory). Blocks are plain operator-new memory: one made on one
// thread may go back on another (a cell is made by whoever spawns and freed
// on its isolate).
//
// Thread-safety: each thread has its own lists. At thread exit they are
// freed, and blocks given back after that go straight to operator delete.
#pragma once

#include <array>
#include <cstddef>
#include <new>

#include "CacheTrim.hpp"

namespace coreactor::detail {

class SmallBlocks {
 public:
  /// The usable sizes of the classes: 24 + 16 k bytes.
  static constexpr std::size_t kClasses = 16;
  static constexpr std::size_t kLargest = 24 + 16 * (kClasses - 1);  // 264
  /// Bytes a thread keeps parked per class at all times.
  static constexpr std::size_t kParkBytes = std::size_t{256} << 10;
  /// Bytes an isolate's thread parks at most per class, between trims.
  static constexpr std::size_t kParkCeiling = std::size_t{64} << 20;

  static constexpr std::size_t classOf(std::size_t bytes) noexcept {
    return bytes <= 24 ? 0 : (bytes - 24 + 15) / 16;
  }
  static constexpr std::size_t bytesOf(std::size_t cls) noexcept { return 24 + 16 * cls; }

  /// A block of at least `bytes` bytes, aligned as operator new aligns.
  static void* get(std::size_t bytes) {
    if (bytes > kLargest) return ::operator new(bytes);
    const std::size_t cls = classOf(bytes);
    Lists& lists = tLists;
    if (Node* node = lists.heads[cls]) {
      lists.heads[cls] = node->next;
      if (--lists.counts[cls] < lists.lowest[cls]) lists.lowest[cls] = lists.counts[cls];
      return node;
    }
    return ::operator new(bytesOf(cls));
  }

  /// Gives back to the heap, class by class, the blocks above kParkBytes
  /// that no get() took since the last trim. True while blocks above it
  /// are left. CacheTrim's timer calls it.
  static bool trim() noexcept {
    Lists& lists = tLists;
    if (lists.gone) return false;
    bool left = false;
    for (std::size_t cls = 0; cls < kClasses; ++cls) {
      const std::size_t unused = unusedAbove(lists.counts[cls], lists.lowest[cls], kFixed[cls]);
      for (std::size_t n = 0; n < unused; ++n) {
        Node* node = lists.heads[cls];
        lists.heads[cls] = node->next;
        ::operator delete(node);
      }
      lists.counts[cls] -= unused;
      lists.lowest[cls] = lists.counts[cls];
      left = left || lists.counts[cls] > kFixed[cls];
    }
    return left;
  }

  /// Blocks this thread keeps parked in the class of `bytes`: for tests.
  static std::size_t parked(std::size_t bytes) noexcept { return tLists.counts[classOf(bytes)]; }

  /// Gives back a block that get(bytes) made (on any thread).
  static void put(void* block, std::size_t bytes) noexcept {
    if (bytes > kLargest) {
      ::operator delete(block);
      return;
    }
    const std::size_t cls = classOf(bytes);
    Lists& lists = tLists;
    if (lists.counts[cls] >= kFixed[cls]) [[unlikely]] {
      if (lists.gone || (lists.counts[cls] + 1) * bytesOf(cls) > kParkCeiling || !trimWillCome()) {
        ::operator delete(block);
        return;
      }
    }
    if (!lists.reaperArmed) armReaper();
    lists.heads[cls] = ::new (block) Node{lists.heads[cls]};
    ++lists.counts[cls];
  }

 private:
  struct Node {
    Node* next;
  };
  // Blocks each class keeps at all times: as many as hold less than
  // kParkBytes before the last one (defined below the class).
  static const std::array<std::size_t, kClasses> kFixed;
  // Trivially destructible, so that it outlives every other thread_local
  // of the thread: a block given back during their destruction still finds
  // it (and, once `gone`, is freed at once).
  struct Lists {
    Node* heads[kClasses];
    std::size_t counts[kClasses];
    std::size_t lowest[kClasses];  // the fewest parked since the last trim
    bool reaperArmed;
    bool gone;
  };
  static inline thread_local Lists tLists{};
  // Frees the parked blocks at thread exit; armed by the first block parked.
  struct Reaper {
    ~Reaper() {
      Lists& lists = tLists;
      for (std::size_t cls = 0; cls < kClasses; ++cls) {
        while (Node* node = lists.heads[cls]) {
          lists.heads[cls] = node->next;
          ::operator delete(node);
        }
        // Every later put() takes the slow path, which frees at once.
        lists.counts[cls] = kParkCeiling;
      }
      lists.gone = true;
    }
  };
  static void armReaper() noexcept {
    thread_local Reaper reaper;  // registered for destruction at this first use
    static_cast<void>(reaper);
    tLists.reaperArmed = true;
  }
};

inline constexpr std::array<std::size_t, SmallBlocks::kClasses> SmallBlocks::kFixed = [] {
  std::array<std::size_t, kClasses> fixed{};
  for (std::size_t cls = 0; cls < kClasses; ++cls) {
    fixed[cls] = (kParkBytes + bytesOf(cls) - 1) / bytesOf(cls);  // the ceiling
  }
  return fixed;
}();

}  // namespace coreactor::detail
