// The system-wide reference namespace of the scheduler (SPEC S2): reference
// -> ScheduleHandle, behind the caller's lock.
//
// An open-addressing table with linear probing and backward-shift deletion
// (no tombstones), at most 70% full. A slot is 32 bytes, two to a cache
// line: the hash, the handle, and the name itself when it has at most
// kInlineName bytes (longer names live in one heap block each). Small slots
// matter more than short probe runs here: with a million schedules live
// the table competes for the cache with the scheduler's entries, and a
// table twice the size costs more misses than the probes it saves (bench
// "schedule/add+cancel/reference"). A schedule remembers its name's hash,
// so ending it erases by (hash, handle) without comparing strings.
//
// The table shrinks as well as grows: below a quarter full it is rehashed
// into the smallest size that leaves it at most half full, down to
// kShrinkFloor slots (512 KiB) at least. A table just shrunk grows again
// only past 70%, and one just grown shrinks again only below 25%, so a count
// swinging around one size does not rehash per swing. Both cost O(size)
// under the caller's lock, as often as the count halves or doubles: O(1)
// per call amortised. A table of 64 KiB or more lives on pages of its own
// (mapPages), so what a shrink gives back leaves the process.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

#include "coreactor/Schedule.hpp"
#include "runtime/Hash.hpp"

namespace coreactor::detail {

/// `bytes` (a multiple of the page size, 4 KiB) of zeroed memory straight
/// from the OS, for the scheduler's large arrays: its entry chunks and this
/// table. What unmapPages gives back leaves the process at once, where
/// malloc keeps a freed block mapped unless it ends its heap (or is above
/// its mmap threshold, which glibc raises to the largest block freed so
/// far). A system call each: for blocks taken and given back rarely.
/// Throws std::bad_alloc.
inline void* mapPages(std::size_t bytes) {
  void* pages = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) throw std::bad_alloc();
  return pages;
}

/// Gives back what mapPages(bytes) returned.
inline void unmapPages(void* pages, std::size_t bytes) noexcept {
  ::munmap(pages, bytes);
}

class ScheduleNames {
 public:
  /// Names of up to this many bytes are stored in the slot itself.
  static constexpr std::size_t kInlineName = 11;

  /// Never 0 (0 marks an empty slot); the low bits pick the slot.
  static std::uint64_t hashOf(std::string_view name) noexcept {
    std::uint64_t h = fnv1a(name);  // then a final mix
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return (h ^ (h >> 32)) | (std::uint64_t{1} << 63);
  }

  /// The slots of a new table (2 KiB).
  static constexpr std::size_t kMinSlots = 64;
  /// The table shrinks no further than this many slots (512 KiB, room for
  /// 11,468 names). Below it the memory is not worth a rehash down and up
  /// again each time a few thousand names come and go: bench
  /// schedule/add+cancel/reference binds 10,000 names and frees them all
  /// each round, and shrinking down to 64 slots and growing back every
  /// round made its calls 60% slower (69 -> 116-130 ns).
  static constexpr std::size_t kShrinkFloor = 16384;

  ScheduleNames() = default;
  ScheduleNames(const ScheduleNames&) = delete;
  ScheduleNames& operator=(const ScheduleNames&) = delete;
  ~ScheduleNames() {
    for (std::size_t i = 0; i < capacity_; ++i) {
      if (slots_[i].hash != 0) freeName(slots_[i]);
    }
    freeSlots(slots_, capacity_);
  }

  /// Binds `name` (hash `hash`, from hashOf) to `handle`; false if the name
  /// is bound. Allocates when the table grows, and for a name longer than
  /// kInlineName.
  bool insert(std::string_view name, std::uint64_t hash, ScheduleHandle handle) {
    if ((size_ + 1) * 10 > capacity_ * 7) rehash(capacity_ == 0 ? kMinSlots : capacity_ * 2);
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.hash == 0) {
        s.hash = hash;
        s.handle = handle;
        storeName(s, name);
        ++size_;
        return true;
      }
      if (s.hash == hash && nameOf(s) == name) return false;
    }
  }

  /// The handle bound to `name`, or nullptr.
  const ScheduleHandle* find(std::string_view name, std::uint64_t hash) const noexcept {
    if (size_ == 0) return nullptr;
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.hash == 0) return nullptr;
      if (s.hash == hash && nameOf(s) == name) return &s.handle;
    }
  }

  /// Unbinds the name of hash `hash` bound to `handle`; false if none is.
  /// Below a quarter full, the table shrinks (an allocation; without the
  /// memory for it, the table stays as it is).
  bool erase(std::uint64_t hash, ScheduleHandle handle) noexcept {
    if (size_ == 0) return false;
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.hash == 0) return false;
      if (s.hash == hash && s.handle == handle) {
        freeName(s);
        removeAt(i);
        if (size_ * 4 < capacity_ && capacity_ > kShrinkFloor) {
          try {
            rehash(std::max(kShrinkFloor, std::bit_ceil(size_ * 2)));
          } catch (const std::bad_alloc&) {
            // Kept as it is: still correct, only larger than it needs to be.
          }
        }
        return true;
      }
    }
  }

  std::size_t size() const noexcept { return size_; }
  /// Slots in the table (a power of two, or 0 before the first insert).
  std::size_t capacity() const noexcept { return capacity_; }
  /// Bytes the table holds: its slots and the blocks of its long names.
  std::size_t reservedBytes() const noexcept { return capacity_ * sizeof(Slot) + longBytes_; }
  /// Times the table was rehashed into a new size, up or down.
  std::uint64_t resizes() const noexcept { return resizes_; }

 private:
  // Trivially copyable: slots move by memcpy, and the heap block of a long
  // name is owned by whichever slot holds its pointer.
  struct alignas(32) Slot {
    std::uint64_t hash = 0;  // 0: empty
    ScheduleHandle handle;
    std::uint8_t length = 0;  // kLong: the name is in the heap block below
    char text[kInlineName] = {};
  };
  static_assert(sizeof(Slot) == 32);
  static constexpr std::uint8_t kLong = 0xFF;
  // A long name's block: its length, then its bytes.
  struct LongName {
    std::size_t length;
    char* bytes() noexcept { return reinterpret_cast<char*>(this + 1); }
  };

  static LongName* longName(const Slot& s) noexcept {
    LongName* block;
    std::memcpy(&block, s.text + 3, sizeof block);  // 8-aligned: offset 24 of the slot
    return block;
  }
  static std::string_view nameOf(const Slot& s) noexcept {
    if (s.length != kLong) return {s.text, s.length};
    LongName* block = longName(s);
    return {block->bytes(), block->length};
  }
  void storeName(Slot& s, std::string_view name) {
    if (name.size() <= kInlineName) {
      s.length = static_cast<std::uint8_t>(name.size());
      std::memcpy(s.text, name.data(), name.size());
      return;
    }
    auto* block = static_cast<LongName*>(::operator new(sizeof(LongName) + name.size()));
    block->length = name.size();
    std::memcpy(block->bytes(), name.data(), name.size());
    s.length = kLong;
    std::memcpy(s.text + 3, &block, sizeof block);
    longBytes_ += sizeof(LongName) + name.size();
  }
  void freeName(Slot& s) noexcept {
    if (s.length == kLong) {
      LongName* block = longName(s);
      longBytes_ -= sizeof(LongName) + block->length;
      ::operator delete(block);
    }
    s.length = 0;
  }

  std::size_t mask() const noexcept { return capacity_ - 1; }

  // Tables from 64 KiB up live on pages of their own (mapPages), the
  // smaller ones come from malloc.
  static constexpr std::size_t kPagedBytes = 64 << 10;
  static Slot* allocateSlots(std::size_t count) {
    const std::size_t bytes = count * sizeof(Slot);
    void* memory = bytes >= kPagedBytes ? mapPages(bytes)
                                        : ::operator new (bytes, std::align_val_t{alignof(Slot)});
    auto* slots = static_cast<Slot*>(memory);
    std::uninitialized_value_construct_n(slots, count);
    return slots;
  }
  static void freeSlots(Slot* slots, std::size_t count) noexcept {
    if (slots == nullptr) return;
    const std::size_t bytes = count * sizeof(Slot);
    if (bytes >= kPagedBytes) {
      unmapPages(slots, bytes);
    } else {
      ::operator delete (slots, std::align_val_t{alignof(Slot)});
    }
  }

  // Into a table of `count` slots (a power of two that holds size_).
  void rehash(std::size_t count) {
    Slot* old = slots_;
    const std::size_t oldCount = capacity_;
    slots_ = allocateSlots(count);  // on a throw, nothing has changed
    capacity_ = count;
    for (std::size_t k = 0; k < oldCount; ++k) {
      const Slot& s = old[k];
      if (s.hash == 0) continue;
      std::size_t i = s.hash & mask();
      while (slots_[i].hash != 0) i = (i + 1) & mask();
      slots_[i] = s;  // the long name's block moves with its pointer
    }
    freeSlots(old, oldCount);
    ++resizes_;
  }

  // Backward-shift deletion: later entries of the probe run move into the
  // hole when their home position allows it, so lookups stay tombstone-free.
  void removeAt(std::size_t hole) noexcept {
    --size_;
    for (std::size_t i = (hole + 1) & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.hash == 0) break;
      if (mayFillHole(hole, i, s.hash & mask())) {
        slots_[hole] = s;
        hole = i;
      }
    }
    slots_[hole] = Slot{};
  }

  Slot* slots_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
  std::size_t longBytes_ = 0;
  std::uint64_t resizes_ = 0;
};

}  // namespace coreactor::detail
