// How one isolate's link grows the rings it fills for a flood and shrinks
// them back (Link.ipp, "Growing rings"): a part of the link's sending side
// that works on one Peer at a time, through the link that holds it.
// Isolate-local, on the sending isolate.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <new>

#include "Crossing.hpp"
#include "IncomingRings.hpp"
#include "SoleWriter.hpp"
#include "coreactor/Isolate.hpp"

namespace coreactor::transport {

/// The growth of the rings of `Link`'s peers (`Peer`, its per-isolate record).
template <class Link, class Peer>
class RingGrowth {
 public:
  /// A ring grows this many times over at each step.
  static constexpr std::size_t kGrowth = 4;
  /// How long a grown ring carries no flood (nothing into the overflow
  /// list) before it goes back to its first size.
  static constexpr std::chrono::milliseconds kQuietBeforeShrink{1000};

  /// The growth of the rings `link` fills, up to `maxCells` cells each.
  RingGrowth(Link& link, std::size_t maxCells) noexcept : link_(link), maxCells_(maxCells) {}
  RingGrowth(const RingGrowth&) = delete;
  RingGrowth& operator=(const RingGrowth&) = delete;

  /// The overflow list of `peer` holds half a ring or more, its ring may
  /// grow, and no larger one waits already.
  bool outgrown(const Peer& peer) const noexcept {
    return peer.successor == nullptr && peer.overflow.size() >= peer.ring->capacity() / 2 &&
           peer.ring->capacity() < maxCells_;
  }
  /// Makes the larger ring that takes over from the full ring of `peer`
  /// (the switch goes in when it fits: pushSwitch).
  void grow(Peer& peer) noexcept;
  /// Puts the switch to the successor of `peer` into its ring and sends
  /// into the successor from now on; false when the ring is full.
  bool pushSwitch(Peer& peer) noexcept;

 private:
  /// Makes a ring of `cells` cells that takes over from the ring of `peer`
  /// once the switch to it is in (pushSwitch), owned by the peer's link;
  /// false, nothing made, without the memory for it.
  bool makeSuccessor(Peer& peer, std::size_t cells) noexcept;
  /// Arms the check of the grown ring of `peer` (checkShrink),
  /// kQuietBeforeShrink from now, on this isolate's loop (an unreferenced
  /// timer: it keeps no loop running).
  void armShrink(Peer& peer) noexcept;
  /// The ring of `peer` goes back to its first size if no flood came since
  /// the last check and the receiver has taken all of it; else the check
  /// is armed again.
  void checkShrink(Peer& peer) noexcept;

  Link& link_;
  std::size_t maxCells_;  // a ring grows up to this many cells
};

template <class Link, class Peer>
bool RingGrowth<Link, Peer>::makeSuccessor(Peer& peer, std::size_t cells) noexcept {
  try {
    auto ring = std::make_unique<LinkRing>(cells, Link::kStreamRun);
    LinkRing* const made = ring.get();
    peer.to->adoptSuccessor(std::move(ring));
    peer.successor = made;
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

template <class Link, class Peer>
void RingGrowth<Link, Peer>::grow(Peer& peer) noexcept {
  const std::size_t cells = std::min(peer.ring->capacity() * kGrowth, maxCells_);
  // Without memory for a larger ring, the flood goes on through the list.
  if (cells > peer.ring->capacity()) makeSuccessor(peer, cells);
}

template <class Link, class Peer>
void RingGrowth<Link, Peer>::armShrink(Peer& peer) noexcept {
  try {
    link_.isolate_.setTimeout(
        kQuietBeforeShrink, [this, &peer] { checkShrink(peer); },
        TimerOptions{.referenced = false, .coarse = true});
    peer.shrinkArmed = true;
  } catch (...) {
    // A loop that stops, or no memory for the timer: the ring keeps its size.
  }
}

template <class Link, class Peer>
void RingGrowth<Link, Peer>::checkShrink(Peer& peer) noexcept {
  peer.shrinkArmed = false;
  if (peer.ring->capacity() <= peer.baseCells) return;
  // A larger ring that waits for its switch counts as a flood: it is the
  // newest need of this pair.
  const bool quiet = !peer.flooded && !peer.backlogged();
  peer.flooded = false;
  if (!quiet || !peer.ring->drained() || !makeSuccessor(peer, peer.baseCells)) {
    armShrink(peer);
    return;
  }
  // The ring is empty: the switch fits, and the wake-up it owes is paid by
  // this iteration's poll or before the loop sleeps.
  pushSwitch(peer);
}

template <class Link, class Peer>
bool RingGrowth<Link, Peer>::pushSwitch(Peer& peer) noexcept {
  LinkRing* const next = peer.successor;
  const bool grew = next->capacity() > peer.ring->capacity();
  // Once the switch is in, the receiver may take it and free the old ring
  // at any moment: nothing here touches that ring after the push.
  const bool pushed = peer.ring->tryPushLastBigWith(Link::kSwitchKey, [&](void* at) noexcept {
    ::new (at) Crossing{reinterpret_cast<std::uint64_t>(next), {}};
  });
  if (!pushed) return false;
  peer.ring = next;
  peer.successor = nullptr;
  addAsSoleWriter(grew ? link_.stats_.grown : link_.stats_.shrunk, 1);
  if (grew && !peer.shrinkArmed) armShrink(peer);
  link_.owe(peer);
  return true;
}

}  // namespace coreactor::transport
