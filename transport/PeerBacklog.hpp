// The backlog of one isolate's link (Link.hpp): the peers whose overflow
// list, run or switch to a larger ring waits for room in their ring, which
// each poll moves on and which keeps the loop awake while a ring has room
// for it. Isolate-local, on the sending isolate.
#pragma once

#include <cstddef>
#include <vector>

#include "IncomingRings.hpp"  // linkdetail::reserveCounted
#include "isolate/LineAllocator.hpp"

namespace coreactor::transport {

/// The peers (`Peer`, a link's per-isolate record: its `ring`, its `listed`
/// flag and its backlogged()) that have something waiting.
template <class Peer>
class PeerBacklog {
 public:
  bool empty() const noexcept { return peers_.empty(); }
  /// Lists `peer` unless it is listed already. Does not allocate once
  /// reserve() has made room for every peer.
  void add(Peer& peer) {
    if (!peer.listed) {
      peer.listed = true;
      peers_.push_back(&peer);
    }
  }
  /// Makes room for `peers` peers; counts what it grew by in `bytes`.
  void reserve(std::size_t peers, std::size_t& bytes) {
    linkdetail::reserveCounted(peers_, peers, bytes);
    linkdetail::reserveCounted(still_, peers, bytes);
  }
  /// Calls flush(Peer&) for each listed peer, and keeps listed those that
  /// are still backlogged() after it.
  template <class F>
  void moveOn(F&& flush) {
    still_.clear();
    for (Peer* peer : peers_) {
      flush(*peer);
      if (peer->backlogged()) {
        still_.push_back(peer);
      } else {
        peer->listed = false;
      }
    }
    peers_.swap(still_);
  }
  /// A listed peer's ring has half its slots free: what waits can move.
  bool canMove() const noexcept {
    for (const Peer* peer : peers_) {
      if (peer->ring->producerHalfFree()) return true;
    }
    return false;
  }
  /// canMove(); when not, each listed ring is told that its producer waits
  /// (its consumer wakes us once half of it is free), and it is asked again.
  bool canMoveElseWait() const noexcept {
    if (canMove()) return true;
    for (const Peer* peer : peers_) peer->ring->markProducerWaiting();
    return canMove();
  }
  /// Forgets every peer (their `listed` flags are the caller's).
  void clear() noexcept { peers_.clear(); }

 private:
  // The arrays written on the message path start and end on line boundaries.
  template <class T>
  using Lines = std::vector<T, detail::LineAllocator<T>>;

  Lines<Peer*> peers_;  // peers with an overflow list or a run waiting
  Lines<Peer*> still_;  // scratch of moveOn()
};

}  // namespace coreactor::transport
