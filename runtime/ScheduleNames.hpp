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
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "Hash.hpp"
#include "coreactor/Schedule.hpp"

namespace coreactor::detail {

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

  ScheduleNames() = default;
  ScheduleNames(const ScheduleNames&) = delete;
  ScheduleNames& operator=(const ScheduleNames&) = delete;
  ~ScheduleNames() {
    for (Slot& s : slots_) {
      if (s.hash != 0) freeName(s);
    }
  }

  /// Binds `name` (hash `hash`, from hashOf) to `handle`; false if the name
  /// is bound.
  bool insert(std::string_view name, std::uint64_t hash, ScheduleHandle handle) {
    if ((size_ + 1) * 10 > slots_.size() * 7) grow();
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
  bool erase(std::uint64_t hash, ScheduleHandle handle) noexcept {
    if (size_ == 0) return false;
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.hash == 0) return false;
      if (s.hash == hash && s.handle == handle) {
        freeName(s);
        removeAt(i);
        return true;
      }
    }
  }

  std::size_t size() const noexcept { return size_; }

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
  static void storeName(Slot& s, std::string_view name) {
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
  }
  static void freeName(Slot& s) noexcept {
    if (s.length == kLong) ::operator delete(longName(s));
    s.length = 0;
  }

  std::size_t mask() const noexcept { return slots_.size() - 1; }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_ = std::vector<Slot>(old.empty() ? 64 : old.size() * 2);
    for (const Slot& s : old) {
      if (s.hash == 0) continue;
      std::size_t i = s.hash & mask();
      while (slots_[i].hash != 0) i = (i + 1) & mask();
      slots_[i] = s;  // the long name's block moves with its pointer
    }
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

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace coreactor::detail
