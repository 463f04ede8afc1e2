// The system-wide reference namespace of the scheduler (SPEC S2): reference
// -> ScheduleHandle, behind the caller's lock.
//
// An open-addressing table with linear probing, one 64-byte slot per name
// (the hash, the handle, the name itself: short names stay inline in the
// string), at most half full. A lookup is a hash and usually one cache line;
// an insert allocates nothing for a short name; an erase shifts the probe run
// back instead of leaving a tombstone. A schedule remembers its name's hash,
// so ending it erases by (hash, handle) without comparing strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "Hash.hpp"
#include "coreactor/Schedule.hpp"

namespace coreactor::detail {

class ScheduleNames {
 public:
  static std::uint64_t hashOf(std::string_view name) noexcept {
    std::uint64_t h = fnv1a(name);  // then a final mix: the low bits pick the slot
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
  }

  /// Binds `name` (hash `hash`) to `handle`; false if the name is bound.
  bool insert(std::string_view name, std::uint64_t hash, ScheduleHandle handle) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (!s.used) {
        s.used = true;
        s.hash = hash;
        s.handle = handle;
        s.name.assign(name);
        ++size_;
        return true;
      }
      if (s.hash == hash && s.name == name) return false;
    }
  }

  /// The handle bound to `name`, or nullptr.
  const ScheduleHandle* find(std::string_view name, std::uint64_t hash) const noexcept {
    if (size_ == 0) return nullptr;
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.hash == hash && s.name == name) return &s.handle;
    }
  }

  /// Unbinds the name of hash `hash` bound to `handle`; false if none is.
  bool erase(std::uint64_t hash, ScheduleHandle handle) noexcept {
    if (size_ == 0) return false;
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (!s.used) return false;
      if (s.hash == hash && s.handle == handle) {
        removeAt(i);
        return true;
      }
    }
  }

  std::size_t size() const noexcept { return size_; }

 private:
  struct alignas(64) Slot {
    std::uint64_t hash = 0;
    ScheduleHandle handle;
    bool used = false;
    std::string name;
  };

  std::size_t mask() const noexcept { return slots_.size() - 1; }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_ = std::vector<Slot>(old.empty() ? 64 : old.size() * 2);
    size_ = 0;
    for (Slot& s : old) {
      if (!s.used) continue;
      for (std::size_t i = s.hash & mask();; i = (i + 1) & mask()) {
        if (!slots_[i].used) {
          slots_[i] = std::move(s);
          ++size_;
          break;
        }
      }
    }
  }

  // Backward-shift deletion: later entries of the probe run move into the
  // hole when their home position allows it, so lookups stay tombstone-free.
  void removeAt(std::size_t hole) noexcept {
    --size_;
    for (std::size_t i = (hole + 1) & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (!s.used) break;
      const std::size_t home = s.hash & mask();
      // Move s into the hole if its home is not in (hole, i] cyclically.
      const bool between = hole < i ? (home > hole && home <= i) : (home > hole || home <= i);
      if (!between) {
        slots_[hole] = std::move(s);
        hole = i;
      }
    }
    slots_[hole].used = false;
    slots_[hole].name.clear();
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace coreactor::detail
