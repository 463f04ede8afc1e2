// The routes an isolate keeps for actors that moved (IsolateRuntime::routes):
// from an actor's id to the entry this isolate sends it to. Read on the
// send path of every message to an actor whose reference names another
// isolate, so it is a flat table: open addressing with linear probing over a
// power-of-two array, a multiplicative hash (no division), and deletion by
// shifting back (no tombstones; Hash.hpp's rule, as ScheduleNames'). Isolate-local.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "Hash.hpp"

namespace coreactor::detail {

struct Endpoint;

/// The routes of this isolate that end in an actor living on it, by the
/// actor's own id: what `routes` and the table would give, one load and
/// one compare away, so that a send to an actor that moved here waits on
/// as few loads as one to an actor spawned here (Delivery::toMoved).
/// Direct-mapped by the id's slot: an actor whose line another took is
/// found through its route again, which notes it anew. A line
/// goes when its actor leaves this isolate or stops (runtime/Move.cpp), the
/// two events that end such a route. Isolate-local.
class RouteCache {
 public:
  static constexpr std::size_t kLines = 256;
  /// The actor's cell, if its line holds it.
  Endpoint* find(std::uint64_t actor) const noexcept {
    const Line& line = lines_[lineOf(actor)];
    return line.actor == actor ? line.cell : nullptr;
  }
  /// `cell` lives here and this isolate's route to `actor` ends in it.
  void note(std::uint64_t actor, Endpoint* cell) noexcept {
    lines_[lineOf(actor)] = Line{actor, cell};
  }
  /// The actor leaves this isolate or stops.
  void forget(std::uint64_t actor) noexcept {
    Line& line = lines_[lineOf(actor)];
    if (line.actor == actor) line = Line{};
  }

 private:
  struct Line {
    std::uint64_t actor = ~std::uint64_t{0};
    Endpoint* cell = nullptr;
  };
  // The slot bits of the id (ActorRef::slot): neighbours spawned together
  // take neighbouring lines.
  static std::size_t lineOf(std::uint64_t actor) noexcept { return (actor >> 28) & (kLines - 1); }
  std::array<Line, kLines> lines_{};
};

class RouteMap {
 public:
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  /// The entry `actor` is sent to from here, or null.
  const std::uint64_t* find(std::uint64_t actor) const noexcept {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(actor);; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.key == actor) return &slot.value;
      if (slot.key == kEmpty) return nullptr;
    }
  }

  /// Sets (or replaces) the entry of `actor`, which is never ~0.
  void set(std::uint64_t actor, std::uint64_t entry) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    std::size_t i = home(actor);
    while (slots_[i].key != kEmpty && slots_[i].key != actor) i = (i + 1) & mask_;
    if (slots_[i].key == kEmpty) ++size_;
    slots_[i] = Slot{actor, entry};
  }

  /// Forgets `actor`'s entry, if it has one.
  void erase(std::uint64_t actor) noexcept {
    if (size_ == 0) return;
    std::size_t i = home(actor);
    while (slots_[i].key != actor) {
      if (slots_[i].key == kEmpty) return;
      i = (i + 1) & mask_;
    }
    // Shift back each later key of the run that may take the freed slot.
    for (std::size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      if (mayFillHole(i, j, home(slots_[j].key))) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].key = kEmpty;
    --size_;
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t key = kEmpty;
    std::uint64_t value = 0;
  };

  std::size_t home(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 16 : 2 * old.size();
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (const Slot& slot : old) {
      if (slot.key != kEmpty) set(slot.key, slot.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace coreactor::detail
