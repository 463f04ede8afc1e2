// Over 600 lines on purpose: the member definitions of one class template,
// in one file so that the drain loop and its receiver inline together.
// The link's member definitions (SPEC X1-X3). Read Link.hpp first. Included
// once, by the translation unit that instantiates Link<Receiver> for its
// receiver (runtime/CrossingReceiver.cpp).
//
// Waking. A receiver raises its sleeping flag, fences, and looks at its rings
// once more before it sleeps (IdleWait::waitForWork, pending()). A sender
// pushes, and at the end of its loop iteration (or before it sleeps itself)
// fences once and wakes each peer it pushed to that sleeps (Isolate::wake).
// Either the sender sees the flag or the receiver sees the message: no
// wake-up is lost, a busy receiver is never sent one, and a burst of sends
// costs one fence per peer and iteration, not one per message.
//
// The doorbell. A busy receiver looks between its microtask units too
// (Isolate::kPollEveryUnits), but reading every incoming ring there would
// cost a load per peer and unit. So a sender, when it pays its wake-ups,
// also rings the receiver's doorbell, and the look between units reads
// only that. The full poll of each loop iteration, the idle poll window
// and the look before sleeping read every ring regardless (a ring's next
// slot says whether it holds a message): a doorbell rung late delays a
// message by an iteration at most, never loses it. The bell stays up while
// messages flow and is lowered only after kQuietLooks looks between units
// found nothing, so that a steady exchange writes no bell at all.
//
// Order. Everything one isolate sends to another goes through the same ring
// (or, when it is full, the overflow list in front of it, which keeps the
// ring's order): messages between one sender and one receiver keep their
// order (SPEC A2), system messages included.
//
// Growing rings. A flood larger than its ring waits in the overflow list,
// and every crossing of it is then written twice and read twice (into the
// list, out of it into the ring) on the sender's core: a burst of all-to-all
// requests crossed ~20% slower that way than through a ring that held it.
// So once a list holds half a ring's worth, the sender (RingGrowth.hpp)
// makes a ring kGrowth times larger (up to maxRingSlots), hands it to the
// receiver's link (adoptSuccessor) and, when the full ring has room for one more item,
// writes the switch into it: a big item keyed kSwitchKey that carries the
// new ring. From then on it sends into the new ring only. The receiver takes
// the old ring's items up to the switch, which is its last, then reads the
// new ring in its place and frees the old one (switchRing). Order holds: the
// switch follows everything sent into the old ring and precedes everything
// sent into the new one. Once a grown ring has carried no flood for
// kQuietBeforeShrink and is empty, the sender switches back to a ring of
// the first size the same way (RingGrowth::armShrink, checkShrink).
#pragma once

#include <algorithm>
#include <cassert>
#include <new>
#include <utility>

#include "Link.hpp"

namespace coreactor::transport {

template <class Receiver>
Link<Receiver>::Link(Receiver receiver, Isolate& isolate, std::uint32_t index, std::size_t isolates,
                     std::size_t ringSlots, std::size_t maxRingSlots, std::size_t overflowLimit)
    : receiver_(std::move(receiver)),
      isolate_(isolate),
      index_(index),
      ringSlots_(ringSlots),
      growth_(*this, 2 * std::max(ringSlots, maxRingSlots)),
      overflowLimit_(overflowLimit),
      directorySize_(static_cast<std::uint32_t>((isolates + kPeerPage - 1) / kPeerPage)) {
  charge(sizeof(Link));
}

template <class Receiver>
Link<Receiver>::~Link() {
  drainAtTeardown();
}

template <class Receiver>
typename Link<Receiver>::Peer& Link<Receiver>::lookUp(Link& to) {
  assert(to.index_ / kPeerPage < directorySize_);
  Peer* peer = nullptr;
  if (!pages_.empty()) {  // else this isolate has sent to no other yet
    if (const PeerPage* page = pages_[to.index_ >> kPeerPageBits].get()) {
      peer = page->peers[to.index_ & (kPeerPage - 1)];
    }
  }
  if (peer == nullptr) [[unlikely]] {
    peer = &makePeer(to);
  }
  memo_ = Memo{to.index_, peer};
  return *peer;
}

// Everything is allocated before anything is published: a throw (out of
// memory) leaves no peer half made, at worst a ring adopted by `to` that
// no one fills.
template <class Receiver>
typename Link<Receiver>::Peer& Link<Receiver>::makePeer(Link& to) {
  std::size_t bytes = 0;
  if (pages_.empty()) {
    pages_.resize(directorySize_);
    bytes += pages_.capacity() * sizeof(pages_[0]);
  }
  std::unique_ptr<PeerPage>& page = pages_[to.index_ >> kPeerPageBits];
  if (page == nullptr) {
    page = std::make_unique<PeerPage>();
    bytes += sizeof(PeerPage);
  }
  auto peer = std::make_unique<Peer>();
  peer->to = &to;
  bytes += sizeof(Peer);
  const std::size_t peers = peers_.size() + 1;
  linkdetail::reserveCounted(peers_, peers, bytes);
  linkdetail::reserveCounted(owed_, peers, bytes);
  backlog_.reserve(peers, bytes);
  // A slot of ringSlots_ is a line: one crossing, or two words.
  auto ring = std::make_unique<Ring>(2 * ringSlots_, kStreamRun);
  peer->ring = ring.get();
  peer->baseCells = ring->capacity();
  to.charge(to.incoming_.adopt(std::move(ring), *this));
  Peer& made = *peer;
  peers_.push_back(std::move(peer));  // room reserved: does not throw
  page->peers[to.index_ & (kPeerPage - 1)] = &made;
  charge(bytes);
  return made;
}

// A crossing that did not go into the ring (full, or a run or the overflow
// list already waits, which keeps the ring's order) is built by
// make(void* at) where it is kept, in the overflow list, not moved there.
// Past the list's bound, a refusable crossing goes to the receiver's
// refuse() (counted); one that is not (a system message, to the runtime)
// never is refused. `already`: what the crossing was counted as
// before (a word of a run that spills), so that each is counted once.
template <class Receiver>
template <class Make>
void Link<Receiver>::overflowWith(Peer& peer, std::uint64_t target, bool refusable, Counted already,
                                  Make&& make) {
  if (refusable && peer.overflow.size() >= overflowLimit_) {
    alignas(Crossing) unsigned char storage[sizeof(Crossing)];
    make(static_cast<void*>(storage));
    Crossing& crossing = *std::launder(reinterpret_cast<Crossing*>(storage));
    linkdetail::bump(stats_.refused);
    // It never crossed.
    if (already != Counted::Nothing) linkdetail::unbump(stats_.sent);
    if (already == Counted::SentAndListed) linkdetail::unbump(stats_.overflowed);
    receiver_.refuse(target, std::move(crossing), Refusal::Backpressure);
    crossing.~Crossing();
    return;
  }
  backlog_.add(peer);
  peer.overflow.pushWith([&](void* at) noexcept {
    auto* waiting = ::new (at) Waiting{target, {}};
    waiting->crossing.~Crossing();
    make(static_cast<void*>(&waiting->crossing));
  });
  peer.flooded = true;
  if (already == Counted::Nothing) {
    linkdetail::bump(stats_.overflowed);
    counted(peer);
  } else {
    if (already == Counted::Sent) linkdetail::bump(stats_.overflowed);
    oweWake(peer);
  }
  if (growth_.outgrown(peer)) [[unlikely]] {
    growth_.grow(peer);
  }
  // A flood sent from one long turn would otherwise wait in the list until
  // the turn ends, with the receiver idle: every kFlushEvery crossings that
  // went to the list, move what fits into the ring and pay the wake-up.
  if (++peer.sinceFlush == kFlushEvery) {
    peer.sinceFlush = 0;
    flushOverflow(peer);
    payWakes();
  }
}

// A flood's common case, the word joins the run gathered for its kind,
// which has room and nothing waiting ahead of it, is a leaf: every other
// case (a run to push or start, a word alone, the overflow list) is the
// tail call, so this path saves no registers (callgrind, a flood of words
// across that the ring holds: 48.8 -> 36.3 instructions a word for the two).
template <class Receiver>
void Link<Receiver>::send(Link& to, std::uint64_t target, std::uint64_t sender,
                          detail::Word message) {
  const detail::MessageType* const type = message.type;
  const std::uint64_t word = message.value;
  // The ring's key drops the target's isolate, which must be the ring's consumer.
  assert((target >> kIsolateShift) == to.index_);
  // A flood goes to the peer sent to last: the memo's.
  if (to.index_ == memo_.index) [[likely]] {
    Peer& peer = *memo_.peer;
    Gathering& run = peer.run;
    if (run.count - 1 < WordRun::kWords - 1 && run.kind == WordKind{target, sender, type} &&
        peer.overflow.empty()) [[likely]] {
      run.words[run.count++] = word;
      linkdetail::bump(stats_.sent);
      if (!peer.owesWake) [[unlikely]] {
        oweWake(peer);
      }
      return;
    }
  }
  sendWordOtherwise(to, target, sender, type, word);
}

template <class Receiver>
void Link<Receiver>::sendWordOtherwise(Link& to, std::uint64_t target, std::uint64_t sender,
                                       const detail::MessageType* type, std::uint64_t word) {
  Peer& peer = peerFor(to);
  if (peer.overflow.empty()) [[likely]] {
    Gathering& run = peer.run;
    const WordKind kind{target, sender, type};
    if (run.count != 0) {
      // A run is gathered: this word joins it (pushing it first when it is
      // full), or ends it.
      if (run.kind == kind) {
        if (run.count < WordRun::kWords || pushRun(peer)) {
          run.words[run.count++] = word;
          counted(peer);
          return;
        }
        spillRun(peer);
      } else if (!pushRun(peer)) {
        spillRun(peer);
      }
    } else if (peer.last == kind) {
      // The second word like the last one: a flood starts.
      run.kind = kind;
      run.words[run.count++] = word;
      counted(peer);
      return;
    }
    // Alone, built in the ring's cell, half a line: no Message on the way.
    // Not while a run waits: a spill above can leave one (its periodic
    // flush gathers the list's words again) for want of a pair of cells
    // when this word's one cell is free.
    if (peer.nothingWaits() && peer.ring->tryPushWith(keyOf(target), [&](void* at) noexcept {
          ::new (at) WordCrossing{sender, type, word};
        })) [[likely]] {
      peer.last = kind;
      counted(peer);
      return;
    }
  }
  overflowWith(peer, target, /*refusable=*/true, Counted::Nothing, [&](void* at) noexcept {
    ::new (at) Crossing{sender, detail::MessageAccess::make(type, word)};
  });
}

template <class Receiver>
bool Link<Receiver>::pushRun(Peer& peer) noexcept {
  Gathering& run = peer.run;
  bool pushed;
  const WordKind& kind = run.kind;
  if (run.count == 1) {
    pushed = peer.ring->tryPushWith(keyOf(kind.target), [&](void* at) noexcept {
      ::new (at) WordCrossing{kind.sender, kind.type, run.words[0]};
    });
  } else {
    // Built field by field in the cell, all four words whatever the count
    // (the key says it): a copy of `count` words was a call to memcpy (so
    // is std::copy_n into the cell), and a run built on the stack first was
    // read back across its stores.
    pushed = peer.ring->tryPushBigWith(
        keyOf(kind.target) | (std::uint64_t{run.count} << kRunShift), [&](void* at) noexcept {
          auto* crossing = ::new (at) Crossing{kind.sender, {}};
          auto* words = ::new (detail::MessageAccess::storage(crossing->message)) WordRun;
          words->type = kind.type;
          static_assert(WordRun::kWords == 4);
          const std::uint64_t w0 = run.words[0], w1 = run.words[1], w2 = run.words[2],
                              w3 = run.words[3];
          words->words[0] = w0;
          words->words[1] = w1;
          words->words[2] = w2;
          words->words[3] = w3;
          detail::MessageAccess::setType(crossing->message,
                                         detail::MessageAccess::typeOf<WordRun>());
        });
  }
  if (pushed) run.count = run.listed = 0;
  return pushed;
}

template <class Receiver>
void Link<Receiver>::spillRun(Peer& peer) {
  const Gathering run = peer.run;
  peer.run.count = 0;
  peer.run.listed = 0;
  peer.last = {};
  for (std::uint32_t i = 0; i < run.count; ++i) {
    overflowWith(peer, run.kind.target, /*refusable=*/true,
                 i < run.listed ? Counted::SentAndListed : Counted::Sent,
                 [&](void* at) noexcept { ::new (at) Crossing(run.crossingAt(i)); });
  }
}

template <class Receiver>
void Link<Receiver>::send(Link& to, std::uint64_t target, Crossing&& crossing, bool refusable) {
  assert((target >> kIsolateShift) == to.index_);
  Peer& peer = peerFor(to);
  // What was sent before goes first: a run being gathered ends here. One
  // that finds no room goes to the list, unless the list already waits
  // behind it (flushOverflow() moves it first).
  if (peer.run.count != 0 && !pushRun(peer) && peer.overflow.empty()) spillRun(peer);
  peer.last = {};
  if (peer.nothingWaits() && tryRing(peer, target, crossing)) {
    counted(peer);
    return;
  }
  overflowWith(peer, target, refusable, Counted::Nothing,
               [&crossing](void* at) noexcept { ::new (at) Crossing(std::move(crossing)); });
}

template <class Receiver>
bool Link<Receiver>::tryRing(Peer& peer, std::uint64_t target, Crossing& crossing) noexcept {
  const Message& m = crossing.message;
  if (detail::Word::in(m)) {
    const detail::Word w = detail::Word::of(m);
    return peer.ring->tryPush(WordCrossing{crossing.sender, w.type, w.value}, keyOf(target));
  }
  return peer.ring->tryPushBig(std::move(crossing), keyOf(target));
}

template <class Receiver>
void Link<Receiver>::counted(Peer& peer) {
  linkdetail::bump(stats_.sent);
  oweWake(peer);
}

template <class Receiver>
void Link<Receiver>::oweWake(Peer& peer) {
  if (owe(peer)) doorbell_.ring();  // our own: the look after this unit pays the wake-up
}

template <class Receiver>
void Link<Receiver>::take(std::size_t batch, bool betweenUnits) {
  // Lowered, then a full fence, before the rings are read, against the
  // peer's fence between its push and its look at the bell (payWakes):
  // either the peer sees the bell down and rings it, or this read of the
  // rings sees its push.
  if (betweenUnits && quietLooks_ >= kQuietLooks && doorbell_.up()) {
    doorbell_.lower();
    // The marks are read with acquire loads: only a full fence keeps them
    // from being read before the lowered bell is visible.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    quietLooks_ = 0;
  }
  bool leftBehind = false;
  bool tookAny = false;
  incoming_.forEach([&](const Incoming& incoming) noexcept {
    // A receiver that wants to know whose crossings it is given is told.
    if constexpr (requires(Receiver & r) { r.takingFrom(std::uint32_t{}); }) {
      receiver_.takingFrom(incoming.from->index_);
    }
    Ring* ring = incoming.ring;
    Ring* next = nullptr;  // the switch was taken: the ring that follows
    const std::size_t taken = ring->consume(
        [this](WordCrossing&& w, std::uint64_t key) noexcept -> std::size_t {
          receiver_.deliverWords(targetOf(key), w.sender, w.type, &w.word, 1);
          return 1;
        },
        // A run counts its words against the batch: a look takes about as
        // many messages as a turn handles, whatever came in runs.
        [this, &next](Crossing&& c, std::uint64_t key) noexcept -> std::size_t {
          if (const std::uint64_t count = key >> kRunShift; count != 0) {
            const WordRun& run = *c.message.get<WordRun>();
            receiver_.deliverWords(targetOf(key & kRunKeyMask), c.sender, run.type, run.words,
                                   count);
            return count;
          }
          if (key == kSwitchKey) [[unlikely]] {
            next = reinterpret_cast<Ring*>(c.sender);
            return 1;
          }
          receiver_.deliver(targetOf(key), std::move(c));
          return 1;
        },
        batch);
    if (taken != 0) {
      stats_.received.store(stats_.received.load(std::memory_order_relaxed) + taken,
                            std::memory_order_relaxed);
      tookAny = true;
    }
    // More than a batch, or pushed while this batch was taken: empty()
    // reads the next slot's mark.
    if (!ring->empty()) leftBehind = true;
    // A producer that sleeps on a full ring is woken once half of it is
    // free: a wake-up is a system call on each side, so it should move half
    // a ring, not the few slots one batch freed. It went to sleep only with
    // less than half free, and this ring is drained to empty in the end.
    if (taken != 0 && ring->consumerHalfFree() && ring->takeWaiting()) {
      incoming.from->isolate_.wake();  // its sender sleeps on a full ring: room now
    }
    // The switch is the old ring's last item: what follows is in the next.
    if (next != nullptr) [[unlikely]] {
      switchRing(ring, next);
      leftBehind = true;
    }
  });
  if constexpr (requires(Receiver & r) { r.takingFrom(std::uint32_t{}); }) {
    receiver_.takingFrom(~std::uint32_t{0});  // none of the peers' any more
  }
  if (!backlog_.empty()) backlog_.moveOn([this](Peer& peer) { flushOverflow(peer); });
  payWakes();
  if (tookAny) {
    quietLooks_ = 0;
  } else if (betweenUnits) {
    ++quietLooks_;
  }
  // What is left in a ring, and an overflow list of ours still waiting for
  // room, bring the next look between units back even if no peer rings.
  if (leftBehind || !backlog_.empty()) doorbell_.ring();
}

template <class Receiver>
void Link<Receiver>::flushOverflow(Peer& peer) {
  Gathering& run = peer.run;
  // The switch to a larger ring first: the list's crossings go into that
  // one. Then a run gathered before: it was sent before the list's words.
  bool room =
      (peer.successor == nullptr || growth_.pushSwitch(peer)) && (run.count == 0 || pushRun(peer));
  // The list is cold by now (a flood's tail was written long before): ask
  // for the lines a few crossings ahead while this one moves.
  while (room && !peer.overflow.empty()) {
    peer.overflow.prefetch(kPrefetchAhead);
    Waiting& front = peer.overflow.front();
    const Message& m = front.crossing.message;
    if (detail::Word::in(m)) {
      // Words like the one before gather into a run here too, so that a
      // flood that waited in the list still crosses four words a line.
      const WordKind kind{front.target, front.crossing.sender, detail::MessageAccess::type(m)};
      if (run.count != 0 && (run.count == WordRun::kWords || !(run.kind == kind))) {
        if (!(room = pushRun(peer))) break;
      }
      if (run.count == 0) run.kind = kind;
      run.words[run.count++] = detail::MessageAccess::storedWord(m);
      ++run.listed;  // a run filled here starts empty: all its words so far are the list's
    } else {
      if (run.count != 0 && !(room = pushRun(peer))) break;
      if (!(room = tryRing(peer, front.target, front.crossing))) break;
    }
    peer.overflow.dropFront();
  }
  if (peer.overflow.empty()) {
    peer.overflow.shrinkIdle();  // an emptied list gives its segment back
  } else if (growth_.outgrown(peer)) {
    growth_.grow(peer);  // a flood whose turn has ended waits here too
  }
  // What is left of a run waits for room ahead of the list (take() keeps
  // this peer in the backlog while it does).
  if (room && run.count != 0) pushRun(peer);
  owe(peer);
}

template <class Receiver>
void Link<Receiver>::payWakes() noexcept {
  for (Peer* owed : owed_) {
    Peer& to = *owed;
    to.owesWake = false;
    // The run being gathered goes now; one that finds no room waits with
    // the overflow lists (take() moves it on, pending() wakes us for it).
    if (to.run.count != 0 && !pushRun(to)) backlog_.add(to);
    to.last = {};
    // What this iteration pushed is whole: a streaming consumer takes it.
    to.ring->flush();
    Link& peer = *to.to;
    peer.isolate_.wake();  // fences; a syscall only if it sleeps
    // After that fence: a peer that cleared its doorbell before our pushes
    // were visible sees it rung now (or has seen the pushes).
    peer.doorbell_.ring();
  }
  owed_.clear();
}

template <class Receiver>
bool Link<Receiver>::pending() const noexcept {
  // Undelivered overflow is work as long as a ring has half its slots free.
  // With less than that in every ring the loop may sleep: each ring is told
  // its producer waits, and its consumer wakes us once half of it is free.
  if (!backlog_.empty() && backlog_.canMoveElseWait()) return true;
  return incoming_.anyWaiting();
}

template <class Receiver>
bool Link<Receiver>::ready() const noexcept {
  return (!backlog_.empty() && backlog_.canMove()) || incoming_.anyWaiting();
}

template <class Receiver>
void Link<Receiver>::drainAtTeardown() noexcept {
  const auto drop = [this](std::uint64_t target, Crossing&& c) noexcept {
    receiver_.refuse(target, std::move(c), Refusal::Stopped);
  };
  Ring* next = nullptr;  // a switch taken from the ring being drained
  const auto dropTaken = [&](Crossing&& c, std::uint64_t key) noexcept {
    if (key == kSwitchKey) {
      next = reinterpret_cast<Ring*>(c.sender);
      return;
    }
    if (const std::uint64_t count = key >> kRunShift; count != 0) {
      const WordRun& run = *c.message.get<WordRun>();
      for (std::uint64_t i = 0; i < count; ++i) {
        drop(targetOf(key & kRunKeyMask),
             Crossing{c.sender, detail::MessageAccess::make(run.type, run.words[i])});
      }
      return;
    }
    drop(targetOf(key), std::move(c));
  };
  const auto dropWord = [&](WordCrossing&& w, std::uint64_t key) noexcept {
    drop(targetOf(key), Crossing{w.sender, detail::MessageAccess::make(w.type, w.word)});
  };
  incoming_.forEach([&](const Incoming& incoming) noexcept {
    Ring* ring = incoming.ring;
    for (;;) {
      while (ring->consume(dropWord, dropTaken, kBatch) != 0) {
      }
      if (next == nullptr) break;
      // What was sent after the switch is in the ring that followed.
      Ring* const old = ring;
      ring = std::exchange(next, nullptr);
      switchRing(old, ring);
    }
  });
  for (const std::unique_ptr<Peer>& made : peers_) {
    Peer& peer = *made;
    for (std::uint32_t i = 0; i < peer.run.count; ++i) {
      drop(peer.run.kind.target, peer.run.crossingAt(i));
    }
    peer.run.count = peer.run.listed = 0;
    while (!peer.overflow.empty()) {
      Waiting& front = peer.overflow.front();
      drop(front.target, std::move(front.crossing));
      peer.overflow.dropFront();
    }
    peer.overflow.shrinkIdle();
    peer.listed = false;
  }
  backlog_.clear();
  owed_.clear();
}

}  // namespace coreactor::transport
