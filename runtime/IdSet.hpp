// A set of actor ids (ActorRef::id()) for the system's registry of its
// top-level actors: open addressing with linear probing over a flat array of
// ids, at most 70% full, backward-shift deletion (no tombstones). Nothing is
// allocated per id, and an id costs about 12 bytes, where a node-based
// std::unordered_map costs a malloc'd node and a bucket (~56 bytes) per
// actor (bench actor/spawn and actor/memory). It shrinks as it empties.
// Not thread-safe: the caller's lock guards it.
#pragma once

#include <cstdint>
#include <vector>

#include "Hash.hpp"

namespace coreactor::detail {

class IdSet {
 public:
  /// The one id that cannot be stored (SystemCore::kNoRefId).
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  /// False if `id` was there already.
  bool insert(std::uint64_t id) {
    if ((size_ + 1) * 10 > slots_.size() * 7) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    for (std::size_t i = home(id);; i = (i + 1) & mask()) {
      if (slots_[i] == id) return false;
      if (slots_[i] == kEmpty) {
        slots_[i] = id;
        ++size_;
        return true;
      }
    }
  }

  bool contains(std::uint64_t id) const noexcept {
    if (size_ == 0) return false;
    for (std::size_t i = home(id);; i = (i + 1) & mask()) {
      if (slots_[i] == id) return true;
      if (slots_[i] == kEmpty) return false;
    }
  }

  /// False if `id` was not there.
  bool erase(std::uint64_t id) {
    if (size_ == 0) return false;
    std::size_t hole = home(id);
    while (slots_[hole] != id) {
      if (slots_[hole] == kEmpty) return false;
      hole = (hole + 1) & mask();
    }
    --size_;
    // Backward shift: later ids of the run move into the hole when their
    // home position allows it.
    for (std::size_t i = (hole + 1) & mask(); slots_[i] != kEmpty; i = (i + 1) & mask()) {
      if (mayFillHole(hole, i, home(slots_[i]))) {
        slots_[hole] = slots_[i];
        hole = i;
      }
    }
    slots_[hole] = kEmpty;
    if (slots_.size() > 64 && size_ * 8 < slots_.size()) rehash(slots_.size() / 2);
    return true;
  }

  template <class F>
  void forEach(F&& f) const {
    for (const std::uint64_t id : slots_) {
      if (id != kEmpty) f(id);
    }
  }

 private:
  std::size_t mask() const noexcept { return slots_.size() - 1; }
  // Fibonacci hashing: ids are structured (isolate, slot, generation bits),
  // the multiply spreads them; the top bits pick the slot.
  std::size_t home(std::uint64_t id) const noexcept {
    return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void rehash(std::size_t capacity) {
    std::vector<std::uint64_t> old(capacity, kEmpty);
    old.swap(slots_);
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
    for (const std::uint64_t id : old) {
      if (id == kEmpty) continue;
      std::size_t i = home(id);
      while (slots_[i] != kEmpty) i = (i + 1) & mask();
      slots_[i] = id;
    }
  }

  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace coreactor::detail
