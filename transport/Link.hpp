// The link of one isolate to the others of its system (SPEC X1-X3): the
// whole transport between isolates. As a receiver, it drains the rings its
// peers fill, in batches, from the isolate's loop (it is one of its
// detail::Pollers), and hands what it takes to its Receiver; as a sender, it
// keeps a Peer for each isolate it has sent to (made on first use, with its
// ring), an overflow list per peer for when that ring is full (SPEC X3), and
// the wake-ups it owes peers, paid once per loop iteration and before it
// sleeps. Isolate-local except where noted.
//
// The seam. The link knows rings, words, runs, overflow lists, doorbells and
// wake-ups, and nothing of actors: what it takes from a ring goes to its
// Receiver, which the runtime implements (runtime/CrossingReceiver.hpp):
//
//   void deliverWords(std::uint64_t target, std::uint64_t sender,
//                     const detail::MessageType* type, const std::uint64_t* words,
//                     std::uint64_t count) noexcept;      // 1 to WordRun::kWords words
//   void deliver(std::uint64_t target, Crossing&& crossing) noexcept;
//   void refuse(std::uint64_t target, Crossing&& crossing, Refusal why) noexcept;
//
// deliverWords() is called inline from the loop that drains a ring (a
// flood's every word passes there), so the Receiver is a template parameter,
// not a virtual interface: the runtime instantiates Link<CrossingReceiver>
// once (runtime/CrossingReceiver.cpp includes Link.ipp). A transport between
// processes plugs in beside it at the runtime's send path, with a receiver
// of the same three calls.
//
// Targets. A target is a 64-bit id that the runtime mints; its top 12 bits
// (kIsolateShift) are the receiving isolate's index, which the ring's key
// drops (the ring belongs to that isolate) and the receiving link puts back.
// Senders are ids the link carries untouched.
//
// Memory: O(isolates + ordered pairs that have talked). An isolate that
// sends to no other holds this object alone, whatever the system's size;
// each ordered pair that has talked holds its ring (2 x ringSlots cells of
// 32 bytes, 64 KiB by default, and 384 bytes of indices), the sender's Peer
// (192 bytes) and a few list entries; a sender's first peer adds its peer
// table's directory (8 bytes per 64 isolates of the system, 512 at most),
// and its first peer among 64 consecutive isolates a page of it (512
// bytes). bytesReserved() counts it; docs/isolates.md, "What isolates cost
// in memory", has the figures.
//
// Transport/Link.ipp holds the member definitions and says how waking, the
// doorbell and order work. Parts of the link have classes of their own:
// the incoming rings (IncomingRings.hpp), the backlog of peers waiting for
// room (PeerBacklog.hpp), the growth of rings for a flood (RingGrowth.hpp)
// and the doorbell (Doorbell.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "Crossing.hpp"
#include "Doorbell.hpp"
#include "IncomingRings.hpp"
#include "PeerBacklog.hpp"
#include "RingGrowth.hpp"
#include "SoleWriter.hpp"
#include "SpscRing.hpp"
#include "coreactor/Isolate.hpp"
#include "isolate/LineAllocator.hpp"
#include "isolate/SegmentFifo.hpp"

namespace coreactor::transport {

namespace linkdetail {

/// Counts one more in a statistic of a link (its isolate is the sole writer).
inline void bump(std::atomic<std::uint64_t>& counter) noexcept {
  addAsSoleWriter(counter, 1);
}
/// Counts one less.
inline void unbump(std::atomic<std::uint64_t>& counter) noexcept {
  addAsSoleWriter(counter, ~std::uint64_t{0});
}

}  // namespace linkdetail

template <class Receiver>
class Link final : public detail::Poller {
 public:
  /// Words as small items (one 32-byte cell), everything else as big ones
  /// (a pair of cells, one line).
  using Ring = LinkRing;
  static constexpr std::size_t kBatch = 256;  // per peer and per loop iteration
  /// Per peer and look between units: what a unit handles at the default
  /// throughput, so that a receiver takes from its rings at the pace it
  /// handles messages and a flood waits in the bounded ring (and the
  /// sender's overflow list), not in the receiver's mailbox, which would
  /// grow, and move every message it holds each time it doubles.
  static constexpr std::size_t kBatchBetweenUnits = 16;
  /// A flood is taken in runs of this many cells (64 lines, 4 KiB), not as
  /// each word lands, so that the receiver never reads a line the sender is
  /// still filling (SpscRing.hpp, "A consumer that chases").
  static constexpr std::size_t kStreamRun = 128;
  /// A target's bits above this one are its isolate's index (Targets, above).
  static constexpr unsigned kIsolateShift = 52;

  /// The link of isolate `index` (of `isolates`) that hands what it
  /// receives to `receiver` (kept by value: a couple of references) and
  /// wakes `isolate`. `ringSlots`: the lines of
  /// each ring it makes; `maxRingSlots`: the lines a ring may grow to while
  /// its sender floods it (Growing rings, Link.ipp; ringSlots or less: never);
  /// `overflowLimit`: the crossings each overflow list holds before it
  /// refuses (SPEC X3).
  Link(Receiver receiver, Isolate& isolate, std::uint32_t index, std::size_t isolates,
       std::size_t ringSlots, std::size_t maxRingSlots, std::size_t overflowLimit);
  ~Link() override;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  /// Sends to `target` on `to` (another isolate's link). Never blocks: the
  /// ring, else the peer's overflow list, else (past its bound, and only
  /// when `refusable`) the receiver's refuse(), counted.
  void send(Link& to, std::uint64_t target, Crossing&& crossing, bool refusable = true);
  /// send() of a word message (Message::kWord) from `sender`: it joins
  /// the run of words gathered for the same target, sender and type, or is
  /// built alone in the ring's slot. Refusable past the overflow list's
  /// bound, as send() is by default.
  void send(Link& to, std::uint64_t target, std::uint64_t sender, detail::Word word);

  void poll() override { take(kBatch, /*betweenUnits=*/false); }
  /// Between units, while the doorbell is up: takes what came and pays the
  /// wake-ups this isolate owes. The doorbell is up when a peer rang it,
  /// when a ring kept more than a look took, when this isolate owes a
  /// wake-up (it rings its own bell as it sends) and while an overflow list
  /// of its own waits for room; it stays up until kQuietLooks looks between
  /// units in a row found every ring empty.
  void pollBetweenUnits() override { take(kBatchBetweenUnits, /*betweenUnits=*/true); }
  /// How many looks between units in a row find nothing before the next
  /// one lowers the doorbell. While messages keep coming the bell stays up,
  /// and a peer that sends reads it up and writes nothing: a bell lowered
  /// after each message would cost a cache line from core to core per
  /// message, the peer's write. A busy chain with no traffic pays this many
  /// looks before its looks are one load again.
  static constexpr std::uint32_t kQuietLooks = 64;
  const std::atomic<bool>* attention() const noexcept override { return doorbell_.flag(); }
  void beforeSleep() noexcept override { payWakes(); }
  bool pending() const noexcept override;
  /// pending() without telling a full ring that its producer waits: the
  /// idle window looks thousands of times a second, and the consumer of a
  /// ring flagged at each look would wake us at each of its takes.
  bool ready() const noexcept override;

  /// After every loop has stopped: what is in flight (in the rings coming
  /// here, in this link's runs and overflow lists) goes to refuse(), with
  /// Refusal::Stopped.
  void drainAtTeardown() noexcept;

  // Written by the owning isolate only (a plain add, no locked instruction),
  // read from any thread.
  struct Stats {
    std::atomic<std::uint64_t> sent{0};        ///< crossings that entered a ring or overflow
    std::atomic<std::uint64_t> overflowed{0};  ///< of which went through an overflow list
    std::atomic<std::uint64_t> refused{0};     ///< refused: the overflow was at its bound
    std::atomic<std::uint64_t> received{0};    ///< taken from the rings into this isolate
    std::atomic<std::uint64_t> grown{0};       ///< rings of ours replaced by a larger one (a flood)
    std::atomic<std::uint64_t> shrunk{0};      ///< grown rings of ours given back (quiet since)
  };
  const Stats& stats() const noexcept { return stats_; }

  /// Bytes this link holds for the pairs it serves, not for messages:
  /// itself, its peer table, its Peers, the rings that come to it (made by
  /// their senders, freed here) and the list of them, the lists of peers it
  /// keeps. Not the crossings waiting in overflow lists (bounded apart,
  /// SPEC X3). Callable from any thread (a relaxed load): exact while no
  /// isolate makes a ring.
  std::size_t bytesReserved() const noexcept { return bytes_.load(std::memory_order_relaxed); }

 private:
  // An overflow list grows by 64 KiB blocks of 1,023 crossings (the block
  // cache's largest): a flood of 100,000 takes 98 blocks, not 1,588 of 4 KiB,
  // which went to malloc and back past what the cache parks.
  static constexpr std::uint32_t kOverflowSegment = 1023;
  /// How far ahead of the crossing it moves a flush of the overflow list prefetches.
  static constexpr std::uint32_t kPrefetchAhead = 6;
  /// A crossing in an overflow list, with its target (in a ring, the
  /// target is the slot's key).
  struct Waiting {
    std::uint64_t target;
    Crossing crossing;
  };
  /// What words of one run share: their target, sender and type.
  struct WordKind {
    std::uint64_t target = 0;
    std::uint64_t sender = 0;
    const detail::MessageType* type = nullptr;  // nullptr: no kind
    bool operator==(const WordKind&) const noexcept = default;
  };
  /// The words of a run being gathered for one peer (WordRun).
  struct Gathering {
    WordKind kind;
    std::uint32_t count = 0;   // 0: no run is being gathered
    std::uint32_t listed = 0;  // of them, the first that came from the overflow list
    std::uint64_t words[WordRun::kWords] = {};  // all set: pushRun() copies every one
    /// Word `i` as a crossing of its own (the run spilled or dropped).
    Crossing crossingAt(std::uint32_t i) const {
      return Crossing{kind.sender, detail::MessageAccess::make(kind.type, words[i])};
    }
  };
  /// What this isolate keeps for one isolate it sends to, made with the
  /// ring on the first send (makePeer). On lines of its own: it is written
  /// with every message to its isolate.
  struct alignas(64) Peer {
    Ring* ring = nullptr;  // ours to fill; owned by the peer's link
    // The larger ring that takes over once the switch to it is in `ring`
    // (RingGrowth::grow); owned by the peer's link already. Null: no growth waits.
    Ring* successor = nullptr;
    std::size_t baseCells = 0;  // the size of its first ring, which a grown one goes back to
    bool flooded = false;       // a crossing went into the overflow list since the last check
    bool shrinkArmed = false;   // a check of a grown ring is due (RingGrowth)
    detail::SegmentFifo<Waiting, kOverflowSegment> overflow;
    std::uint32_t sinceFlush = 0;  // crossings into the list since it last moved on
    bool owesWake = false;
    bool listed = false;  // in backlog_ (PeerBacklog)
    // Words to this peer. The first of a kind since the wake-ups were last
    // paid crosses alone at once (a request/response exchange pays no
    // wait); the next like it opens a run, which goes into the ring when
    // it is full, when anything else is sent to this peer, and when the
    // wake-ups are paid. A run is always older than what waits in the
    // overflow list: one that finds no room while the list is empty spills
    // into it as words; one made from the list's words (flushOverflow)
    // waits ahead of it.
    Gathering run;
    WordKind last;       // of the last word that crossed alone; none since the wake-ups were paid
    Link* to = nullptr;  // the isolate it stands for
    /// Neither a run nor the list waits: a crossing may go into the ring.
    bool nothingWaits() const noexcept { return run.count == 0 && overflow.empty(); }
    /// Something waits to go into the ring: a run, the list, or the switch
    /// to a larger ring (it keeps the peer in the backlog).
    bool backlogged() const noexcept { return !nothingWaits() || successor != nullptr; }
  };
  /// The peer table: isolate index -> Peer, in pages of kPeerPage pointers
  /// made on first use, behind a directory of one pointer per page, made
  /// on the first send. A sender that talks to a few isolates pays the
  /// directory (at most 512 bytes: 64 pages cover the 4,096 isolates a
  /// system may have) and a page or a few (512 bytes each), not a slot per
  /// isolate of the system. The peer sent to last is a memo (memo_): a
  /// flood or an exchange with one peer reads no page.
  static constexpr unsigned kPeerPageBits = 6;
  static constexpr std::uint32_t kPeerPage = std::uint32_t{1} << kPeerPageBits;
  struct alignas(64) PeerPage {
    Peer* peers[kPeerPage] = {};
  };
  /// The peer sent to last (none: an index no isolate has).
  struct Memo {
    std::uint32_t index = ~std::uint32_t{0};
    Peer* peer = nullptr;
  };
  template <class, class>
  friend class RingGrowth;
  using Growth = RingGrowth<Link, Peer>;
  using Incoming = typename IncomingRings<Link>::Incoming;
  /// How many crossings go into an overflow list before a send moves what
  /// fits into the ring.
  static constexpr std::uint32_t kFlushEvery = 64;
  /// A ring's key for a target: its id without the isolate's bits, which
  /// are the ring's consumer's.
  static std::uint64_t keyOf(std::uint64_t target) noexcept {
    return target & ((std::uint64_t{1} << kIsolateShift) - 1);
  }
  /// A run's key carries its count from this bit on (below the ring's 60).
  static constexpr unsigned kRunShift = 56;
  static constexpr std::uint64_t kRunKeyMask = (std::uint64_t{1} << kRunShift) - 1;
  /// The key of the switch to a larger ring (a big item whose sender field
  /// is the new ring; RingGrowth): above every target's key, with no run's count.
  static constexpr std::uint64_t kSwitchKey = std::uint64_t{1} << kIsolateShift;
  /// The target a key of one of this isolate's rings names.
  std::uint64_t targetOf(std::uint64_t key) const noexcept {
    return (std::uint64_t{index_} << kIsolateShift) | key;
  }
  /// send() of a word, for all but a word that joins the run being gathered.
  [[gnu::noinline]] void sendWordOtherwise(Link& to, std::uint64_t target, std::uint64_t sender,
                                           const detail::MessageType* type, std::uint64_t word);
  /// Pushes the run gathered for `peer` into its ring (a word alone when it
  /// holds one); false, the run kept, when the ring has no room.
  bool pushRun(Peer& peer) noexcept;
  /// Moves the run gathered for `peer` (that found no room) into its
  /// overflow list, word by word, in order.
  void spillRun(Peer& peer);
  /// Takes up to `batch` crossings from each incoming ring, moves the
  /// overflow lists on, pays the wake-ups owed. Only a look between units
  /// lowers the doorbell (kQuietLooks).
  void take(std::size_t batch, bool betweenUnits);
  /// The peer `to`: the memo's, else lookUp()'s (out of line: the common
  /// case saves no register for it).
  Peer& peerFor(Link& to) {
    if (to.index_ == memo_.index) [[likely]] {
      return *memo_.peer;
    }
    return lookUp(to);
  }
  /// The peer `to` from the peer table, made if it is not there; it becomes
  /// the memo's.
  [[gnu::noinline]] Peer& lookUp(Link& to);
  /// Makes the peer `to` and its ring, which it hands to `to` (its incoming_).
  Peer& makePeer(Link& to);
  /// Receiver side, from the sender's thread: owns `ring`, the larger ring
  /// that an incoming one will switch to (RingGrowth). Thread-safe.
  void adoptSuccessor(std::unique_ptr<Ring> ring) {
    charge(incoming_.adoptSuccessor(std::move(ring)));
  }
  /// Receiver side: `old`, whose last item was the switch, is replaced by
  /// `next` in the incoming list and freed (IncomingRings::switchRing), and
  /// no longer counted. Out of line: the drain loop keeps its registers.
  [[gnu::noinline]] void switchRing(Ring* old, Ring* next) {
    bytes_.fetch_sub(incoming_.switchRing(old, next), std::memory_order_relaxed);
  }
  /// Counts `bytes` more in bytesReserved(). Thread-safe.
  void charge(std::size_t bytes) noexcept { bytes_.fetch_add(bytes, std::memory_order_relaxed); }
  /// Moves `crossing` into the ring of `peer`: a word as a small item (half
  /// a line), anything else as a big one; untouched and false when full.
  bool tryRing(Peer& peer, std::uint64_t target, Crossing& crossing) noexcept;
  /// Counts a crossing sent to `peer` and owes it a wake-up.
  void counted(Peer& peer);
  /// Notes that `peer` is owed a wake-up, paid by payWakes(); true if it
  /// was not owed one yet.
  bool owe(Peer& peer) noexcept {
    if (peer.owesWake) return false;
    peer.owesWake = true;
    owed_.push_back(&peer);  // room reserved by makePeer(): does not throw
    return true;
  }
  /// Notes that `peer` is owed a wake-up (and rings our own doorbell).
  /// Out of line: once per peer and loop iteration, not per message.
  [[gnu::noinline]] void oweWake(Peer& peer);
  /// What a crossing that goes into the overflow list was counted as before.
  enum class Counted : std::uint8_t {
    Nothing,        ///< a crossing being sent
    Sent,           ///< a word of a run that spills: sent when the run took it
    SentAndListed,  ///< such a word that had waited in the list before (flushOverflow)
  };
  /// The overflow list of `peer` after a crossing that did not go into its
  /// ring (SPEC X3): queued there, or, past its bound and `refusable`,
  /// refused.
  template <class Make>
  void overflowWith(Peer& peer, std::uint64_t target, bool refusable, Counted already, Make&& make);
  void flushOverflow(Peer& peer);
  void payWakes() noexcept;

  Receiver receiver_;
  Isolate& isolate_;
  std::uint32_t index_;
  std::size_t ringSlots_;
  Growth growth_;  // a ring grows up to its maximum of cells
  std::size_t overflowLimit_;
  // The arrays written on the message path start and end on line boundaries.
  template <class T>
  using Lines = std::vector<T, detail::LineAllocator<T>>;
  Memo memo_;
  // The directory: [index / kPeerPage], made on the first send (an isolate
  // that sends to no other pays nothing for it).
  Lines<std::unique_ptr<PeerPage>> pages_;
  std::uint32_t directorySize_;  // the directory's pages: the system's isolates / kPeerPage
  std::vector<std::unique_ptr<Peer>> peers_;  // every peer made, in that order
  // Each peer is in each list at most once (owesWake, listed): makePeer()
  // reserves room for all of them, so no push on the message path allocates.
  Lines<Peer*> owed_;             // peers owed a wake-up
  PeerBacklog<Peer> backlog_;     // peers with an overflow list or a run waiting
  std::uint32_t quietLooks_ = 0;  // looks between units in a row that found nothing
  Stats stats_;
  // The incoming rings (IncomingRings.hpp): appended to by senders, read by
  // this isolate without a lock. Read each loop iteration, written once per
  // pair: a line no message writes.
  alignas(64) IncomingRings<Link> incoming_;
  std::atomic<std::size_t> bytes_{0};  // bytesReserved(); senders add their rings
  // Rung by a peer that pushed to one of our rings (payWakes) and by us
  // (pollBetweenUnits says when), lowered by a look between units after
  // kQuietLooks quiet ones: one line that changes when traffic starts and
  // after it stops, not with every message.
  alignas(64) Doorbell doorbell_;
};

}  // namespace coreactor::transport
