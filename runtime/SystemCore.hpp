// The inside of an ActorSystem: its isolates, their actor tables, the send
// paths, actor cells and ask slots. Nothing here is installed; users see
// include/coreactor/ActorSystem.hpp.
//
// Following one tell: ActorRef::deliver -> SystemCore::send -> (the target's
// isolate is this thread's) deliverLocal -> ActorTable::find -> ActorCell::enqueue
// -> Dispatcher::execute(cell) ... -> ActorCell::turn -> Actor::receive.
// From another of the system's isolates, send() pushes the envelope on the
// ring of that pair (Crossings, runtime/Crossings.cpp), which the target's
// isolate drains into the local path. From a thread that is no isolate, it
// wraps the envelope in a RemoteDelivery task posted to the target isolate's
// inbox.
#pragma once

#include <atomic>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <coroutine>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <spdlog/logger.h>

#include "ActorTable.hpp"
#include "AskTimeouts.hpp"
#include "CompactString.hpp"
#include "isolate/LineAllocator.hpp"
#include "Mailbox.hpp"
#include "ObjectRing.hpp"
#include "ScheduleNames.hpp"
#include "Scheduler.hpp"
#include "isolate/SegmentFifo.hpp"
#include "isolate/SmallBlocks.hpp"
#include "SpinLock.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/HybridDispatcher.hpp"
#include "coreactor/Isolate.hpp"
#include "transport/SpscRing.hpp"

namespace coreactor::detail {

class SystemCore;

// This thread's serial, 0 until threadSerial() first gives it one: a manual
// system keeps its creating thread's serial (that thread drives its loops),
// so any number of manual systems can share a thread and each knows its
// driver. A constant-initialised inline thread_local: one TLS load on the
// send path.
inline thread_local std::uint64_t tThreadSerial = 0;
/// This thread's serial (never 0), given on first use.
std::uint64_t threadSerial() noexcept;

/// Work to run inside a turn of an actor: an ask's reply, a coroutine's
/// resumption. Owned by the system message carrying it; freed unrun if the
/// actor is gone.
class Continuation {
 public:
  virtual ~Continuation() = default;
  virtual void run(ReceiveContext& ctx) = 0;
  /// The message it carries (an ask's reply), for a dead letter if it cannot run.
  virtual Message* carried() noexcept { return nullptr; }
  /// The incarnation of the actor it belongs to: a restart makes the old
  /// instance's continuations undeliverable (they capture the old instance).
  std::uint32_t incarnation = 0;
  /// The next in the cell's line of continuations (ActorCell::Rare).
  Continuation* next = nullptr;
};

struct SystemMessage {
  enum class Kind : std::uint8_t {
    Start,            // first turn: make the actor, preStart
    Stop,             // stop the actor and its subtree
    Watch,            // ref = the watcher
    Unwatch,          // ref = the watcher
    Failed,           // to a parent: ref = the failed child, cause
    Resume,           // to a failed child
    Restart,          // to a child: cause
    ChildTerminated,  // to a parent: ref = the child
    Continue,         // run `run` in a turn: an ask's reply, a coroutine's resumption
  };
  Kind kind;
  ActorRef ref;
  std::exception_ptr cause;
  std::unique_ptr<Continuation> continuation = {};
};

struct IsolateRuntime;

/// A system message crossing between isolates, carried in a Crossing's
/// message (inline: one owning pointer).
struct CrossingSystemMessage {
  std::unique_ptr<SystemMessage> message;
};

/// A user message whose sender belongs to another system, which no id can
/// name: it crosses whole, boxed (one allocation), through the same ring as
/// the sending isolate's other messages, so that it keeps its place among
/// them (SPEC A2).
struct CrossingWithForeignSender {
  Envelope envelope;
};

/// One message on its way from one isolate to another (SPEC X1): with the
/// ring cell's mark, which carries the target's id, one cache line (a big
/// item of the ring). References travel as ids (both ends are of this
/// system); a system message travels as a CrossingSystemMessage, a message
/// from another system's actor as a CrossingWithForeignSender.
struct Crossing {
  static constexpr std::uint64_t kNoSender = ~std::uint64_t{0};  // SystemCore::kNoRefId
  std::uint64_t sender = kNoSender;
  Message message;
};
static_assert(sizeof(Crossing) + sizeof(std::uint64_t) == 64,
              "a crossing and its cell's mark are one cache line");

/// A word (Message::kWord: trivially copyable, at most 8 bytes) on its way
/// to another isolate from an actor of this system or from none: with its
/// cell's mark, half a cache line (a small item of the ring), so a flood of
/// words moves half the lines a flood of crossings does.
struct WordCrossing {
  std::uint64_t sender;
  const MessageType* type;
  std::uint64_t word;
};
static_assert(sizeof(WordCrossing) + sizeof(std::uint64_t) == 32,
              "a word crossing and its cell's mark are half a cache line");

/// Words of one sender and one type to one target, sent one after another
/// (a flood): up to kWords of them cross as one Crossing whose message is
/// this run, a line for four words instead of half a line for each. How
/// many it holds is in the ring's key (Crossings::kRunShift).
struct WordRun {
  static constexpr std::uint32_t kWords = 4;
  const MessageType* type;
  std::uint64_t words[kWords];
};
static_assert(sizeof(WordRun) <= Message::kInlineSize, "a run of words is held inline");

/// The isolate-to-isolate transport of one isolate (runtime/Crossings.cpp):
/// as a receiver, the rings from the peers that have sent to it, drained in
/// batches each loop iteration; as a sender, a Peer for each isolate it has
/// sent to (made on first use, with its ring), an overflow list per peer for
/// when that ring is full (SPEC X3), and the wake-ups it owes peers, paid
/// once per loop iteration and before it sleeps. Isolate-local except where
/// noted.
///
/// Memory: O(isolates + ordered pairs that have talked). An isolate that
/// sends to no other holds this object alone (448 bytes), whatever the
/// system's size; each ordered pair that has talked holds its ring (2 x
/// ringSlots cells of 32 bytes, 64 KiB by default, and 384 bytes of
/// indices), the sender's Peer (192 bytes) and a few list entries; a
/// sender's first peer adds its peer table's directory (8 bytes per 64
/// isolates of the system, 512 at most), and its first peer among 64
/// consecutive isolates a page of it (512 bytes). bytesReserved() counts
/// it; docs/isolates.md, "What isolates cost in memory", has the figures.
class Crossings final : public Isolate::Poller {
 public:
  /// Words as small items (one 32-byte cell), everything else as big ones
  /// (a pair of cells, one line).
  using Ring = transport::SpscRing<WordCrossing, Crossing>;
  static constexpr std::size_t kBatch = 256;  // per peer and per loop iteration
  /// Per peer and look between units: what a unit handles at the default
  /// throughput, so that a receiver takes from its rings at the pace it
  /// handles messages and a flood waits in the bounded ring (and the
  /// sender's overflow list), not in the receiver's mailbox, which would
  /// grow, and move every message it holds each time it doubles.
  static constexpr std::size_t kBatchBetweenUnits = 16;
  /// A flood is taken in runs of this many cells (64 lines, 4 KiB), not as
  /// each word lands, so that the receiver never reads a line the sender is
  /// still filling (transport/SpscRing.hpp, "A consumer that chases").
  static constexpr std::size_t kStreamRun = 128;

  Crossings(SystemCore& core, IsolateRuntime& home, std::size_t isolates, std::size_t ringSlots,
            std::size_t overflowLimit);
  ~Crossings() override;

  /// Sends to an actor on `to` (another isolate). Never blocks: the ring,
  /// else the peer's overflow list, else (past its bound) a dead letter,
  /// counted. System messages are never refused.
  void send(IsolateRuntime& to, std::uint64_t target, Crossing&& crossing);
  /// send() of a word message (Message::kWord) from an actor of this system
  /// or from none, built in the ring's slot.
  void sendWord(IsolateRuntime& to, std::uint64_t target, std::uint64_t sender,
                const MessageType* type, std::uint64_t word);

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
  const std::atomic<bool>* attention() const noexcept override { return &doorbell_; }
  void beforeSleep() noexcept override { payWakes(); }
  bool pending() const noexcept override;
  /// pending() without telling a full ring that its producer waits: the
  /// idle window looks thousands of times a second, and the consumer of a
  /// ring flagged at each look would wake us at each of its takes.
  bool ready() const noexcept override;

  /// After every loop has stopped: what is in flight becomes dead letters.
  void drainAtTeardown() noexcept;

  // Written by the owning isolate only (a plain add, no locked instruction),
  // read from any thread.
  struct Stats {
    std::atomic<std::uint64_t> sent{0};        ///< crossings that entered a ring or overflow
    std::atomic<std::uint64_t> overflowed{0};  ///< of which went through an overflow list
    std::atomic<std::uint64_t> refused{0};     ///< dead-lettered: the overflow was at its bound
  };
  static void bump(std::atomic<std::uint64_t>& counter) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  static void unbump(std::atomic<std::uint64_t>& counter) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  }
  const Stats& stats() const noexcept { return stats_; }

  /// Bytes this transport holds for the pairs it serves, not for messages:
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
    const MessageType* type = nullptr;  // nullptr: no kind
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
      return Crossing{kind.sender, Message(kind.type, words[i])};
    }
  };
  /// What this isolate keeps for one isolate it sends to, made with the
  /// ring on the first send (makePeer). On lines of its own: it is written
  /// with every message to its isolate.
  struct alignas(64) Peer {
    Ring* ring = nullptr;  // ours to fill; owned by the peer's Crossings
    SegmentFifo<Waiting, kOverflowSegment> overflow;
    std::uint32_t sinceFlush = 0;  // crossings into the list since it last moved on
    bool owesWake = false;
    bool listed = false;  // in backlog_
    // Words to this peer. The first of a kind since the wake-ups were last
    // paid crosses alone at once (a request/response exchange pays no
    // wait); the next like it opens a run, which goes into the ring when
    // it is full, when anything else is sent to this peer, and when the
    // wake-ups are paid. A run is always older than what waits in the
    // overflow list: one that finds no room while the list is empty spills
    // into it as words; one made from the list's words (flushOverflow)
    // waits ahead of it.
    Gathering run;
    WordKind last;  // of the last word that crossed alone; none since the wake-ups were paid
    IsolateRuntime* to = nullptr;  // the isolate it stands for
    /// Neither a run nor the list waits: a crossing may go into the ring.
    bool nothingWaits() const noexcept { return run.count == 0 && overflow.empty(); }
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
  /// An incoming ring and the isolate that fills it.
  struct Incoming {
    Ring* ring;
    IsolateRuntime* from;
  };
  /// How many crossings go into an overflow list before a send moves what
  /// fits into the ring.
  static constexpr std::uint32_t kFlushEvery = 64;
  /// A ring's key for a target: its id without the isolate's bits, which
  /// are the ring's consumer's (the key has 63 bits, the id 64).
  static constexpr unsigned kIsolateShift = 52;  // ActorRef::isolateIndex()
  static std::uint64_t keyOf(std::uint64_t target) noexcept {
    return target & ((std::uint64_t{1} << kIsolateShift) - 1);
  }
  /// A run's key carries its count from this bit on (below the ring's 60).
  static constexpr unsigned kRunShift = 56;
  static constexpr std::uint64_t kRunKeyMask = (std::uint64_t{1} << kRunShift) - 1;
  /// sendWord() of all but a word that joins the run being gathered.
  [[gnu::noinline]] void sendWordOtherwise(IsolateRuntime& to, std::uint64_t target,
                                           std::uint64_t sender, const MessageType* type,
                                           std::uint64_t word);
  /// Pushes the run gathered for `peer` into its ring (a word alone when it
  /// holds one); false, the run kept, when the ring has no room.
  bool pushRun(Peer& peer) noexcept;
  /// Moves the run gathered for `peer` (that found no room) into its
  /// overflow list, word by word, in order.
  void spillRun(Peer& peer);
  /// Delivers the `count` words of a run that came through a ring.
  void deliverRun(std::uint64_t target, const Crossing& crossing, std::uint64_t count) noexcept;
  /// deliverWordInline() and deliverRun(): `count` words of `type` from
  /// `sender` into the unbounded mailbox of a living actor of this isolate,
  /// in place, after one look-up, with an idle actor's turn scheduled once;
  /// what the mailbox does not take in place goes through deliverWord(), in
  /// order.
  void deliverWords(std::uint64_t target, std::uint64_t sender, const MessageType* type,
                    const std::uint64_t* words, std::uint64_t count) noexcept;
  std::uint64_t targetOf(std::uint64_t key) const noexcept;
  /// Takes up to `batch` crossings from each incoming ring, moves the
  /// overflow lists on, pays the wake-ups owed. Only a look between units
  /// lowers the doorbell (kQuietLooks).
  void take(std::size_t batch, bool betweenUnits);
  /// The peer `to`: the memo's, else lookUp()'s (out of line: the common
  /// case saves no register for it).
  inline Peer& peerFor(IsolateRuntime& to);  // defined after IsolateRuntime
  /// The peer `to` from the peer table, made if it is not there; it becomes
  /// the memo's.
  [[gnu::noinline]] Peer& lookUp(IsolateRuntime& to);
  /// Makes the peer `to` and its ring, which it hands to `to` (adopt()).
  Peer& makePeer(IsolateRuntime& to);
  /// Receiver side, from the sender's thread: takes `ring`, filled by
  /// `from`, into the incoming list. Thread-safe (incomingMutex_).
  void adopt(std::unique_ptr<Ring> ring, IsolateRuntime& from);
  /// Calls f(const Incoming&) for each incoming ring, in the order they came.
  template <class F>
  void forEachIncoming(F&& f) const;
  /// Counts `bytes` more in bytesReserved(). Thread-safe.
  void charge(std::size_t bytes) noexcept { bytes_.fetch_add(bytes, std::memory_order_relaxed); }
  /// Moves `crossing` into the ring of `peer`: a word as a small item (half
  /// a line), anything else as a big one; untouched and false when full.
  bool tryRing(Peer& peer, std::uint64_t target, Crossing& crossing) noexcept;
  /// Counts a crossing sent to `peer` and owes it a wake-up.
  void counted(Peer& peer);
  /// Notes that `peer` is owed a wake-up (and rings our own doorbell).
  /// Out of line: once per peer and loop iteration, not per message.
  [[gnu::noinline]] void oweWake(Peer& peer);
  void deliver(std::uint64_t target, Crossing&& crossing) noexcept;
  void deliverWord(std::uint64_t target, const WordCrossing& word) noexcept;
  /// deliverWord()'s common case, inline in take()'s loop: into the unbounded
  /// mailbox of a living actor of this isolate, in place, with no call but
  /// the scheduling of an idle actor's turn.
  void deliverWordInline(std::uint64_t target, const WordCrossing& word) noexcept;
  /// Reports what a delivery threw (a full bounded mailbox with the Fail
  /// policy is already a dead letter: its sender is on another isolate).
  void deliveryFailed(const ActorRef& target) noexcept;
  /// What a crossing that goes into the overflow list was counted as before.
  enum class Counted : std::uint8_t {
    Nothing,        ///< a crossing being sent
    Sent,           ///< a word of a run that spills: sent when the run took it
    SentAndListed,  ///< such a word that had waited in the list before (flushOverflow)
  };
  /// The overflow list of `peer` after a crossing that did not go into its
  /// ring (SPEC X3): queued there, or past its bound refused.
  template <class Make>
  void overflowWith(Peer& peer, std::uint64_t target, bool system, Counted already, Make&& make);
  /// The user message a crossing carries, with its sender.
  Envelope unwrap(Crossing&& crossing) noexcept;
  void flushOverflow(Peer& peer);
  void payWakes() noexcept;
  bool backlogCanMove() const noexcept;
  /// A message waits in one of the incoming rings.
  bool anyIncoming() const noexcept;

  SystemCore& core_;
  IsolateRuntime& home_;
  std::size_t ringSlots_;
  std::size_t overflowLimit_;
  // The arrays written on the message path start and end on line boundaries.
  template <class T>
  using Lines = std::vector<T, LineAllocator<T>>;
  Memo memo_;
  // The directory: [index / kPeerPage], made on the first send (an isolate
  // that sends to no other pays nothing for it).
  Lines<std::unique_ptr<PeerPage>> pages_;
  std::uint32_t directorySize_;  // the directory's pages: the system's isolates / kPeerPage
  std::vector<std::unique_ptr<Peer>> peers_;  // every peer made, in that order
  // Each peer is in each list at most once (owesWake, listed): makePeer()
  // reserves room for all of them, so no push on the message path allocates.
  Lines<Peer*> owed_;             // peers owed a wake-up
  Lines<Peer*> backlog_;          // peers with an overflow list or a run waiting
  Lines<Peer*> stillBacklogged_;  // scratch of poll()
  std::uint32_t quietLooks_ = 0;  // looks between units in a row that found nothing
  Stats stats_;
  // The incoming rings: a list that only grows, appended to by senders
  // (adopt(), under incomingMutex_) and read by this isolate without a lock.
  // A sender writes the entry, then stores the count (release); a full
  // array is copied into one twice its size, published (release) before
  // the count that needs it, and kept until the end, as a reader may still
  // hold it. This isolate loads the count, then the array (acquire both):
  // whichever array it gets holds the entries the count covers. Read each
  // loop iteration, written once per pair: a line no message writes.
  alignas(64) std::atomic<std::uint32_t> incomingCount_{0};
  std::atomic<const Incoming*> incoming_{nullptr};
  std::atomic<std::size_t> bytes_{0};  // bytesReserved(); senders add their rings
  std::mutex incomingMutex_;
  std::vector<Lines<Incoming>> incomingArrays_;  // guarded; the last one is incoming_
  std::vector<std::unique_ptr<Ring>> owned_;     // guarded; the incoming rings, freed here
  // Rung by a peer that pushed to one of our rings (payWakes) and by us
  // (pollBetweenUnits says when), lowered by a look between units after
  // kQuietLooks quiet ones: one line that changes when traffic starts and
  // after it stops, not with every message.
  alignas(64) std::atomic<bool> doorbell_{false};
  /// Raises a doorbell; a bell already up is only read, not written again.
  static void ring(std::atomic<bool>& bell) noexcept {
    if (!bell.load(std::memory_order_relaxed)) bell.store(true, std::memory_order_release);
  }
};

// Aligned: the runtimes of a system's isolates are made one after the other
// on one thread, and each isolate writes its own (the actor table's free list)
// while the others read theirs.
struct alignas(64) IsolateRuntime {
  std::uint32_t index = 0;
  SystemCore* core = nullptr;
  std::unique_ptr<Isolate> isolate;
  std::shared_ptr<Dispatcher> dispatcher;  // the system default, one per isolate
  ActorTable table;
  std::unique_ptr<Crossings> crossings;
  std::unique_ptr<AskTimeouts> asks;     // goes before the isolate it arms
  std::unique_ptr<Scheduler> scheduler;  // last: goes before the isolate it arms
};

inline Crossings::Peer& Crossings::peerFor(IsolateRuntime& to) {
  if (to.index == memo_.index) [[likely]] {
    return *memo_.peer;
  }
  return lookUp(to);
}

// ---- the actor cell --------------------------------------------------------------

class ActorCell final : public Task, public Endpoint {
 public:
  enum class State : std::uint8_t { Created, Running, Suspended, Terminating, Dead };

  ActorCell(IsolateRuntime& home, ActorRef self, ActorRef parent, std::string_view path,
            const ActorOptions& options, ActorFactory&& factory, Dispatcher& dispatcher,
            std::uint32_t throughput, bool guardian);
  ~ActorCell();

  // Cells are made and freed in bursts (a fan-out spawned, a subtree
  // stopped): their blocks recycle through the thread's small-block lists.
  static void* operator new(std::size_t size) { return SmallBlocks::get(size); }
  static void operator delete(void* block, std::size_t size) noexcept {
    SmallBlocks::put(block, size);
  }

  /// A user message from the send path. Isolate-local. Inline: the common
  /// case is one push and, for an idle actor, one dispatcher call. `urgent`:
  /// it crossed from another isolate, and an idle actor's turn is handed
  /// over with Dispatcher::executeUrgent.
  void enqueue(Message&& message, const ActorRef& sender, bool urgent = false) {
    if (state_ < State::Terminating &&
        mailbox_.tryPushUnbounded(std::move(message), sender, home_.core)) [[likely]] {
      scheduleForMessage(urgent);
      return;
    }
    enqueueSlow(Envelope{std::move(message), sender});
  }
  /// enqueue() of a word message (Message::kWord), given as its type and
  /// word: false, and nothing done, unless it goes to an unbounded mailbox
  /// of a living actor (the caller then builds the Message and enqueues it).
  bool enqueueWord(const MessageType* type, std::uint64_t word, const ActorRef& sender,
                   bool urgent = false) {
    if (state_ >= State::Terminating || !mailbox_.tryPushWord(type, word, sender, home_.core)) {
      return false;
    }
    scheduleForMessage(urgent);
    return true;
  }
  /// The common case of enqueueWord(), with no call: false, and nothing
  /// done, unless the actor lives and its unbounded mailbox has room in
  /// place. Then wantsTurn() says whether scheduleTurn() must follow.
  /// `core`: this actor's system, which the caller holds already (the
  /// target's reference names it): read through the cell, it was two more
  /// loads, each waiting on the one before, on every tell.
  [[gnu::always_inline]] bool pushWordInPlace(const MessageType* type, std::uint64_t word,
                                              const ActorRef& sender, SystemCore* core) noexcept {
    assert(core == home_.core);
    return state_ < State::Terminating && mailbox_.tryPushWordInPlace(type, word, sender, core);
  }
  bool wantsTurn() const noexcept { return state_ == State::Running && !scheduled_; }
  /// Words that crossed from another isolate may be handled at once, in a
  /// turn of their own (turnOnCrossedWords): the actor runs on a hybrid
  /// dispatcher with no turn queued or running, no system message, no
  /// coroutine and nothing in its unbounded mailbox. Its turn would be an
  /// urgent unit (Dispatcher::executeUrgent): the next one while fewer than
  /// Isolate::kUrgentStreak ran in a row, after the same messages.
  bool idleForCrossedWords() const noexcept {
    return onHybrid_ && state_ == State::Running && !scheduled_ && pending_ == 0 && !hasAsync_ &&
           mailbox_.unboundedAndEmpty();
  }
  /// Precondition: idleForCrossedWords(), count > 0. Handles up to
  /// `throughput` of `words` (each a `type` from `sender`) in one turn, for
  /// as long as the actor runs and its mailbox stays empty, and counts in
  /// `handled` (0 on entry) how many it handled, also when the scheduling
  /// of its next turn throws: the caller queues the rest, in order. The
  /// cell may be gone afterwards (the turn stopped the actor).
  [[gnu::noinline]] void turnOnCrossedWords(const MessageType* type, const std::uint64_t* words,
                                            std::uint64_t count, const ActorRef& sender,
                                            std::uint64_t& handled);
  /// scheduleTurn() for a message that came from another isolate
  /// (Dispatcher::executeUrgent).
  void scheduleTurnUrgent() { scheduleUrgent(); }
  /// Hands a turn to the dispatcher. Out of line: the word path stays a
  /// leaf that saves no registers and calls this as its tail.
  [[gnu::noinline]] void scheduleTurn();
  /// A system message from the send path. Isolate-local.
  void enqueueSystem(SystemMessage&& message);
  /// A Continue (an ask's reply, a coroutine's resumption), isolate-local:
  /// enqueueSystem() without building a SystemMessage when none is queued.
  void enqueueContinue(std::unique_ptr<Continuation> continuation);

  inline ActorRef self() const noexcept;    // defined after SystemCore
  inline ActorRef parent() const noexcept;  // none for the guardian
  std::string_view path() const noexcept { return path_.view(); }
  std::string_view name() const noexcept;
  SystemCore& core() const noexcept { return *home_.core; }
  IsolateRuntime& home() const noexcept { return home_; }
  State state() const noexcept { return state_; }
  std::uint32_t incarnation() const noexcept { return incarnation_; }

  // Used by ReceiveContext.
  ActorRef spawnChild(std::string name, ActorOptions options, ActorFactory factory);
  std::vector<ActorRef> children() const;
  ActorRef child(std::string_view name) const;
  void requestStop() noexcept;
  /// Stops any actor; a child of ours gives its name back at once.
  void stopChild(const ActorRef& child);

  // Coroutine handlers (coreactor/Async.hpp).
  void runAsync(AsyncActor& actor, ReceiveContext& ctx);
  std::uint64_t runningCoroutine() const noexcept;
  bool coroutineLive(std::coroutine_handle<> h, std::uint64_t token) const noexcept;
  void resumeCoroutine(std::coroutine_handle<> h, std::uint64_t token);

  /// The anchor of this actor's schedules (made on first use, S6).
  std::uint32_t scheduleAnchor();
  /// A passivation check (SPEC A10): false once the actor was idle for its
  /// whole timeout and has been told to stop.
  bool passivationCheck();

  /// Tears the cell down without running any hook (system stop): its
  /// mailbox becomes dead letters. Only when no loop runs.
  void abandon() noexcept;

 private:
  struct Child {
    ActorRef ref;
    std::string name;
    std::uint64_t seq;
    std::vector<std::chrono::steady_clock::time_point> restarts;
  };
  struct Family {
    std::unordered_map<std::uint64_t, Child> byId;
    std::unordered_map<std::string, std::uint64_t> byName;
    std::uint64_t nextSeq = 0;
    std::uint64_t generatedNames = 0;
  };

  struct AsyncState;
  bool blocked() const noexcept { return hasAsync_ && asyncBlocked(); }
  bool asyncBlocked() const noexcept;
  void destroyCoroutines() noexcept;
  static void runTurn(Task& task);
  static void disposeTurn(Task& task) noexcept;
  void turn();
  [[gnu::noinline]] void turnOnWord();
  [[gnu::noinline]] void turnInGeneral();
  // The turn's messages, up to `n`: false when none is left.
  [[gnu::always_inline]] inline bool consumeMessages(ReceiveContext& ctx, std::uint32_t n);
  // consumeMessages() out of line, for the one-word turn whose handler queued more.
  [[gnu::noinline]] bool consumeMore(ReceiveContext& ctx, std::uint32_t n);
  // What every turn ends with; `more`: user messages are left.
  [[gnu::always_inline]] inline void endTurn(bool more);
  [[gnu::always_inline]] inline void finishIfStopping();
  [[gnu::noinline, gnu::cold]] bool turnFailed();
  [[gnu::noinline]] std::uint32_t consumeRun(ReceiveContext& ctx, std::uint32_t max);
  [[gnu::noinline]] void runSystemMessages();
  void schedule() {
    scheduled_ = true;
    if (onHybrid_) [[likely]] {
      // The default: no call through the vtable (HybridDispatcher is final).
      static_cast<HybridDispatcher*>(dispatcher_)->HybridDispatcher::execute(*this);
    } else {
      dispatcher_->execute(*this);
    }
  }
  void scheduleUrgent() {
    scheduled_ = true;
    dispatcher_->executeUrgent(*this);
  }
  /// A message was queued: a running actor with no turn queued gets one
  /// (`urgent`: it crossed from another isolate, Dispatcher::executeUrgent).
  void scheduleForMessage(bool urgent) {
    if (state_ != State::Running || scheduled_) return;
    if (urgent) {
      scheduleUrgent();
    } else {
      schedule();
    }
  }
  void enqueueSlow(Envelope&& envelope);
  [[gnu::always_inline]] inline void invoke(ReceiveContext& ctx, Message& message,
                                            const ActorRef& sender);
  void handleSystem(SystemMessage& message);
  void start();
  template <class Hook>
  bool becomeNewInstance(const char* what, Hook&& hook);
  void fail(std::exception_ptr cause);
  void supervise(const ActorRef& child, const std::exception_ptr& cause);
  void restart(const std::exception_ptr& cause);
  void beginStop();
  void finishStop();
  Family* family() const noexcept { return rare_ != nullptr ? rare_->family.get() : nullptr; }
  AsyncState* async() const noexcept { return hasAsync_ ? rare_->async.get() : nullptr; }
  bool hasSystem() const noexcept { return (pending_ & kSystemQueued) != 0; }
  /// Lines up a Continue while no other system message is queued.
  void pushContinuation(std::unique_ptr<Continuation> continuation);
  /// Runs the lined-up continuations, oldest first.
  void runContinuations();
  /// What a Continue does in a turn: runs it, holds it, or drops it.
  void handleContinue(std::unique_ptr<Continuation> continuation);
  /// The lined-up continuations of a cell that stopped: dropped (a reply, a dead letter).
  void dropContinuations(const char* reason);
  /// Queues a system message behind the pending flags, and says so in pending_.
  void pushSystem(SystemMessage&& message) {
    rare().system.push(std::move(message));
    pending_ |= kSystemQueued;
  }
  /// The oldest queued system message. Precondition: hasSystem().
  SystemMessage popSystem() {
    SystemMessage message = rare_->system.pop();
    if (rare_->system.empty()) pending_ &= ~kSystemQueued;
    return message;
  }
  bool hasChildren() const noexcept {
    const Family* f = family();
    return f != nullptr && !f->byId.empty();
  }
  void forgetChild(const ActorRef& child);
  void reportHookError(const char* hook, std::exception_ptr error) noexcept;

  // An idle actor is mostly this cell (bench actor/memory): 168 bytes, one
  // 176-byte malloc chunk. What few actors use lives in Rare.
  // Hot: touched on every message. The one-byte fields come first: they
  // fill the tail of the Endpoint base, after the Task base.
  State state_ = State::Created;
  bool scheduled_ = false;
  bool guardian_ = false;
  // What the turn must look at before the user messages, in one byte, so
  // that the common turn tests it once: a Start not yet handled, a Stop not
  // yet handled (enqueueSystem), and system messages in rare_->system.
  static constexpr std::uint8_t kStartPending = 1;
  static constexpr std::uint8_t kStopPending = 2;
  static constexpr std::uint8_t kSystemQueued = 4;
  static constexpr std::uint8_t kContinuePending = 8;  // rare_->firstContinuation is set
  // A cell starts with its Start pending: the Start message only wakes it,
  // so whatever reaches it first by another path (a Stop across isolates
  // overtaking a Start posted from a foreign thread) still finds preStart
  // ahead of it.
  std::uint8_t pending_ = kStartPending;
  bool active_ = false;    // handled a message since the last passivation check
  bool hasAsync_ = false;  // rare_->async is set: it has coroutine handlers
  bool onHybrid_;          // dispatcher_ is a HybridDispatcher (the default's kind)
  std::uint32_t throughput_;
  std::uint32_t incarnation_ = 0;  // bumped by each restart
  Mailbox mailbox_;
  Dispatcher* dispatcher_;
  std::unique_ptr<Actor> actor_;
  IsolateRuntime& home_;  // its core is the system's (core())
  std::uint64_t selfId_;
  std::uint64_t parentId_;  // SystemCore::kNoRefId for none
  // Cold.
  CompactString path_;
  ActorFactory factory_;
  // What few actors use, allocated on first use: an idle actor carries 8 bytes for it.
  // System messages the pending flags do not hold: the oldest in `first`
  // while the ring is empty, the rest in the ring. An asking actor's
  // replies (Continue) come one at a time and take no ring buffer, which
  // the ring would otherwise take and give back around every ask.
  struct SystemQueue {
    std::optional<SystemMessage> first;
    ObjectRing<SystemMessage> ring;
    bool empty() const noexcept { return !first && ring.empty(); }
    void push(SystemMessage&& message) {
      if (!first && ring.empty()) {
        first.emplace(std::move(message));
      } else {
        ring.push(std::move(message));
      }
    }
    /// Precondition: !empty().
    SystemMessage pop() {
      if (!first) return ring.pop();
      SystemMessage message = std::move(*first);
      first.reset();
      return message;
    }
    void shrinkIdle() noexcept { ring.shrinkIdle(); }
  };
  struct Rare {
    Rare() = default;
    Rare(const Rare&) = delete;
    Rare& operator=(const Rare&) = delete;
    ~Rare();
    SystemQueue system;
    // Continue messages (an ask's reply, a coroutine's resumption) that came
    // while no other system message was queued: a line through the
    // continuations themselves, owned, older than everything in `system`.
    // A reply moves no SystemMessage in or out of a queue.
    Continuation* firstContinuation = nullptr;
    Continuation* lastContinuation = nullptr;
    std::shared_ptr<Dispatcher> ownDispatcher;  // keeps a per-actor dispatcher alive
    std::vector<ActorRef> watchers;
    ObjectRing<SystemMessage> held;  // continuations held while suspended
    std::unique_ptr<Family> family;
    std::unique_ptr<AsyncState> async;  // only actors with coroutine handlers
    std::uint32_t scheduleAnchor = Scheduler::kNil;
    Clock::duration passivateAfter{0};  // 0: never
    std::uint32_t quietChecks = 0;
  };
  Rare& rare();  // made on first use (runtime/ActorCell.cpp, where AsyncState is complete)
  std::unique_ptr<Rare> rare_;
};

// ---- the reply slot of an ask ----------------------------------------------------

// The reply slot of one ask. From outside, its completion runs where the
// slot lives; from an actor, the slot itself becomes the continuation that
// carries the reply into the asker's turn (no further allocation).
class AskEndpoint final : public Endpoint,
                          public Task,
                          public Continuation,
                          public AskTimeouts::Entry {
 public:
  AskEndpoint(IsolateRuntime& home, std::uint32_t slot, AskCompletion completion);
  AskEndpoint(IsolateRuntime& home, std::uint32_t slot, const ActorRef& asker,
              AskContinuation continuation);
  ~AskEndpoint() override;
  AskEndpoint(const AskEndpoint&) = delete;
  AskEndpoint& operator=(const AskEndpoint&) = delete;
  void run(ReceiveContext& ctx) override;
  Message* carried() noexcept override { return &reply_; }
  /// Isolate-local: arms the timeout (in its isolate's AskTimeouts, or a
  /// timer of its own when those lanes are all taken).
  void arm(std::chrono::nanoseconds timeout);
  /// Completes once: cancels the timer, frees the slot, runs the completion, deletes itself.
  void complete(Message* reply, std::error_code error) noexcept;

  // Reply slots come and go at the rate of asks: their memory recycles
  // through the thread's block cache (its smallest class) instead of a
  // malloc and a free each (callgrind: 95 of an ask's ~1,700 instructions
  // went to operator delete alone). The caches hold plain blocks, so a
  // slot made on one thread (an ask from outside) may be freed on another.
  static void* operator new(std::size_t size) {
    static_assert(sizeof(AskEndpoint) <= BlockCache::kSmallest);
    static_cast<void>(size);
    return BlockCache::local().get(0);
  }
  static void operator delete(void* block) noexcept { BlockCache::local().put(block, 0); }

 private:
  static void onTimeout(Task& task);
  static void onDiscard(Task& task) noexcept;
  SystemCore& core() const noexcept;
  IsolateRuntime& home_;
  std::uint32_t slot_;
  ActorRef asker_;  // none for an ask from outside
  union {
    AskCompletion completion_;                      // from outside
    AskContinuation continuation_;  // from an actor (asker_)
  };
  Message reply_;
  // The outcome's error, set by complete(), in parts: a default
  // std::error_code would cost a call (std::system_category()) per ask.
  const std::error_category* errorCategory_ = nullptr;  // null: a reply
  int errorValue_ = 0;
  TimerId timer_;
  bool completing_ = false;
};

// ---- the system ------------------------------------------------------------------

class SystemCore {
 public:
  SystemCore(std::string name, ActorSystemOptions options);
  ~SystemCore();

  const std::string& name() const noexcept { return name_; }
  ActorSystem* owner() const noexcept { return owner_; }
  void setOwner(ActorSystem* owner) noexcept { owner_ = owner; }
  const ActorSystemOptions& options() const noexcept { return options_; }
  EventStream& events() noexcept { return events_; }
  spdlog::logger& log() noexcept { return *logger_; }
  const Clock& clock() const noexcept { return *clock_; }
  std::size_t isolateCount() const noexcept { return isolates_.size(); }
  std::vector<IsolatePlacement> placement() const;
  TransportStats transportStats() const noexcept;
  IsolateRuntime& runtime(std::size_t index);
  bool running() const noexcept { return state_.load(std::memory_order_acquire) == State::Running; }
  /// True on the thread that drives this manual-run system (the one that
  /// created it); false everywhere for a threaded system. One TLS load.
  bool drivenHere() const noexcept { return driver_ == tThreadSerial; }
  std::uint64_t deadLetterCount() const noexcept {
    return deadLetters_.load(std::memory_order_relaxed);
  }

  /// Starts the isolate threads (not in manual mode).
  void start();

  // The send paths: any thread.
  void send(const ActorRef& target, Message&& message, const ActorRef& sender) {
    if (target.isolateIndex() < isolates_.size() && !target.isNone()) [[likely]] {
      IsolateRuntime& rt = *isolates_[target.isolateIndex()];
      if (isLocal(rt)) [[likely]] {
        deliverLocal(rt, target, std::move(message), sender);
        return;
      }
    }
    sendElsewhere(target, Envelope{std::move(message), sender});
  }
  /// The fast path of a word's tell (Message::kWord): true when it went
  /// into the mailbox of an actor of this thread's isolate; false, and
  /// nothing done, when it must take send() as a Message.
  bool sendWord(const ActorRef& target, const MessageType* type, std::uint64_t word,
                const ActorRef& sender) {
    if (target.isolateIndex() >= isolates_.size()) return false;
    IsolateRuntime& rt = *isolates_[target.isolateIndex()];
    if (!isLocal(rt)) return sendWordAcross(rt, target, type, word, sender);
    Endpoint* endpoint = rt.table.find(target.slot(), target.generation());
    if (endpoint == nullptr) return false;
    if (endpoint->kind == Endpoint::Kind::Cell) [[likely]] {
      return static_cast<ActorCell*>(endpoint)->enqueueWord(type, word, sender);
    }
    replyWord(*static_cast<AskEndpoint*>(endpoint), type, word);  // an ask's reply slot
    return true;
  }
  /// The common case of sendWord(): what `target` names (an actor, or an
  /// ask's reply slot) on the isolate whose loop runs on this thread (or on
  /// the manual system this thread drives), or null for anything else. No
  /// call. On a loop thread the runtime comes from the thread
  /// (Isolate::currentUserData), not from the target: fewer loads that wait
  /// on one another.
  Endpoint* endpointHere(const ActorRef& target) const noexcept {
    const auto* here = static_cast<const IsolateRuntime*>(Isolate::currentUserData());
    if (here != nullptr && here->core == this && here->index == target.isolateIndex()) [[likely]] {
      return here->table.find(target.slot(), target.generation());
    }
    // Only this system mints its references, but a stale one (of a system
    // destroyed at this address) must not read past the isolates.
    if (!drivenHere() || target.isolateIndex() >= isolateCount_) return nullptr;
    return isolates_[target.isolateIndex()]->table.find(target.slot(), target.generation());
  }
  /// A word that answers an ask whose reply slot lives on this thread's isolate.
  void replyWord(AskEndpoint& endpoint, const MessageType* type, std::uint64_t word);
  /// sendWord() to an actor of another isolate, from one of this system's
  /// isolates: the word is built in the ring's slot (false, nothing done,
  /// from elsewhere, or with a sender of another system).
  bool sendWordAcross(IsolateRuntime& to, const ActorRef& target, const MessageType* type,
                      std::uint64_t word, const ActorRef& sender);
  /// For a word from one of this system's isolates (this thread's) to an
  /// actor of another of them, which goes straight into that pair's ring
  /// (sendWordAcrossFromHere): this thread's isolate. Null from anywhere
  /// else, to this isolate, for an index out of range, with a sender of
  /// another system, or in a manual system. No call.
  IsolateRuntime* crossingFromHere(const ActorRef& target, const ActorRef& sender) const noexcept {
    // A manual system's driving thread owns all of its isolates: there
    // sendWord() delivers in place, as the rest of that sender's messages
    // go (isLocal), and so must this word, to keep their order.
    IsolateRuntime* here = currentRuntime();
    if (here == nullptr || here->index == target.isolateIndex() ||
        target.isolateIndex() >= isolateCount_ || !carriesAsId(sender) || options_.manualRun()) {
      return nullptr;
    }
    return here;
  }
  /// The word of crossingFromHere() into the ring from `here`.
  void sendWordAcrossFromHere(IsolateRuntime& here, const ActorRef& target, const MessageType* type,
                              std::uint64_t word, const ActorRef& sender) {
    here.crossings->sendWord(*isolates_[target.isolateIndex()], target.id(), idOf(sender), type,
                             word);
  }
  /// Another isolate's (or no) actor: through the inbox, or a dead letter.
  void sendElsewhere(const ActorRef& target, Envelope&& envelope);
  void sendSystem(const ActorRef& target, SystemMessage&& message);
  /// A reference this system minted, naming one of its isolates (the actor
  /// may be gone): not none, not another system's.
  bool isOurs(const ActorRef& ref) const noexcept {
    return ref.system_ == this && ref.isolateIndex() < isolateCount_;
  }
  void deadLetter(const ActorRef& recipient, Envelope&& envelope, const char* reason);

  /// Spawns an actor under `parent` (nullptr: the user guardian, and the
  /// actor is top-level). The name is already checked and held by the
  /// caller; a top-level `topName` is bound to the new actor's id.
  ActorRef spawn(ActorCell* parent, std::string_view path, const ActorOptions& options,
                 ActorFactory&& factory, const std::string* topName = nullptr);
  ActorRef spawnTopLevel(std::string&& name, const ActorOptions& options, ActorFactory&& factory);
  void topLevelTerminated(const ActorRef& child);
  /// A top-level spawn that failed: its count goes.
  void uncountTopLevel();
  bool isTopLevel(const ActorRef& child);
  std::vector<ActorRef> topLevel();

  /// The reply slot lives on isolate `host` (the asker's; for asks from
  /// outside, the target's) and `completion` runs there.
  void ask(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
           AskCompletion completion);
  /// An ask from the actor `asker`, answered by a continuation in its turn.
  void askFromActor(const ActorRef& asker, std::uint32_t incarnation, const ActorRef& target,
                    Message&& message, std::chrono::nanoseconds timeout,
                    AskContinuation&& continuation);
  /// A continuation that cannot run: what it carries becomes a dead letter.
  void dropContinuation(const ActorRef& actor, std::unique_ptr<Continuation> continuation,
                        const char* reason);
  ActorRef makeRef(std::uint32_t isolate, std::uint32_t slot, std::uint32_t generation) noexcept {
    return ActorRef(this, isolate, slot, generation);
  }
  /// References kept as ids (a scheduler entry, a ring slot): kNoRefId for
  /// none. Only for references of this system.
  static constexpr std::uint64_t kNoRefId = ~std::uint64_t{0};
  static std::uint64_t idOf(const ActorRef& ref) noexcept {
    return ref.isNone() ? kNoRefId : ref.id();
  }
  /// The reference of an id that is not kNoRefId (no check: a cell's own id).
  ActorRef makeRef(std::uint64_t id) noexcept { return ActorRef(this, id); }
  ActorRef refOf(std::uint64_t id) noexcept {
    if (id == kNoRefId) return ActorRef();
    return ActorRef(this, id);
  }
  std::string pathOf(const ActorRef& ref);

  /// Graceful stop (ActorSystem::shutdown). From outside the system it
  /// waits for the graceful stop in progress, whoever began it, then stops
  /// the loops and tears down; from one of its own isolates it begins the
  /// stop and returns.
  void shutdown();
  /// Immediate stop (ActorSystem::stop); from one of its own isolates it
  /// stops the loops and returns, the teardown is left to the destructor.
  void stop();
  /// What the owner's destruction does from outside the system: waits for a
  /// graceful stop in progress (so every postStop runs once), then stop().
  void finish();
  /// True when the caller runs on one of this system's loops: a handler, a
  /// hook, a task posted to one of its isolates.
  bool onOwnIsolate() const noexcept;
  /// The owner was destroyed from inside one of its own handlers: the loops
  /// stop, and this core deletes itself once no loop of it runs any more
  /// (a thread of its own joins the isolate threads; a manual system is
  /// freed when the driving thread's runUntilIdle returns).
  void orphan();
  void runUntilIdle();

  // ---- the scheduler (runtime/Scheduling.cpp) -------------------------------------
  /// schedule()/scheduleOnce(); `owner` is the scheduling actor for a context call.
  ScheduleResult schedule(Message&& message, const ActorRef& target, std::chrono::nanoseconds every,
                          bool repeat, const ScheduleOptions& options, ActorCell* owner);
  ScheduleResult controlSchedule(Scheduler::Op op, ScheduleHandle handle);
  ScheduleResult controlSchedule(Scheduler::Op op, const std::string& reference);
  std::size_t scheduleCount() const noexcept;
  std::uint64_t skippedTickCount() const noexcept;
  std::uint64_t tickCount() const noexcept;
  std::uint64_t staleTickCount() const noexcept {
    return staleTicks_.load(std::memory_order_relaxed);
  }
  /// Unwraps a strict-cancel tick in place; false if it is stale (counted).
  bool admitTick(Message& message) noexcept;
  /// The actor has not fully stopped. Any thread (the tables are read atomically).
  bool isAlive(const ActorRef& ref) const noexcept;
  /// The system-wide reference namespace (S2). Binding sets `hash` (what
  /// forgetting takes) and fails when the reference is held.
  bool bindScheduleName(const std::string& reference, ScheduleHandle handle, std::uint64_t& hash);
  void forgetScheduleName(std::uint64_t hash, ScheduleHandle handle) noexcept;
  /// A passivation check of `target`, on its isolate.
  bool passivationCheck(const ActorRef& target);

  /// The error sink the system gives dispatchers with none: a log record and
  /// a DispatcherError event (actor: none).
  ErrorSink dispatcherSink();
  void reportDispatcherError(std::string_view dispatcherId, std::exception_ptr cause,
                             const ActorRef& actor) noexcept;

 private:
  enum class State { Running, ShuttingDown, Stopped };
  /// A reference that can cross between isolates as an id: none, or one of this system.
  bool carriesAsId(const ActorRef& ref) const noexcept {
    return ref.isNone() || ref.system_ == this;
  }
  bool isLocal(IsolateRuntime& rt) const noexcept {
    Isolate* here = Isolate::current();
    if (here == rt.isolate.get()) [[likely]] {
      return true;
    }
    // The thread driving a manual system owns all of its isolates.
    if (drivenHere()) return true;
    return (here == nullptr || options_.manualRun()) && rt.isolate->isLoopThread();
  }
  void deliverLocal(IsolateRuntime& rt, const ActorRef& target, Message&& message,
                    const ActorRef& sender, bool urgent = false) {
    Endpoint* endpoint = rt.table.find(target.slot(), target.generation());
    if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Cell) [[likely]] {
      static_cast<ActorCell*>(endpoint)->enqueue(std::move(message), sender, urgent);
      return;
    }
    deliverUncommon(rt, target, endpoint, Envelope{std::move(message), sender});
  }
  void deliverUncommon(IsolateRuntime& rt, const ActorRef& target, Endpoint* endpoint,
                       Envelope&& envelope);
  /// A word message (Message::kWord) that crossed from another isolate, for
  /// an actor of this one: false, and nothing done, unless it went into the
  /// unbounded mailbox of a living actor as its type and word (the caller
  /// then delivers it as a Message: a bounded mailbox, an ask's reply slot,
  /// a dead letter).
  bool deliverWordLocal(IsolateRuntime& rt, const ActorRef& target, const MessageType* type,
                        std::uint64_t word, std::uint64_t sender) {
    ActorCell* cell = cellOf(rt, target);
    return cell != nullptr && cell->enqueueWord(type, word, refOf(sender), /*urgent=*/true);
  }
  /// The living actor `target` names on `rt`, or null (gone, or an ask's
  /// reply slot). Isolate-local.
  ActorCell* cellOf(const IsolateRuntime& rt, const ActorRef& target) const noexcept {
    Endpoint* endpoint = rt.table.find(target.slot(), target.generation());
    if (endpoint == nullptr || endpoint->kind != Endpoint::Kind::Cell) return nullptr;
    return static_cast<ActorCell*>(endpoint);
  }
  void deliverSystemLocal(IsolateRuntime& rt, const ActorRef& target, SystemMessage&& message);
  /// What a system message to an actor that is not there (gone, or not of
  /// this system) comes to: a watcher hears Terminated at once.
  void deliverToNoActor(const ActorRef& target, SystemMessage&& message);
  void failAskOf(const ActorRef& sender, std::error_code error);
  /// failAskOf() when the reply slot lives on this thread's isolate; nothing
  /// otherwise (no task posted: a refused flood from another isolate would
  /// post one per message). True: `sender` was an ask's reply slot, now failed.
  bool failLocalAskOf(const ActorRef& sender, std::error_code error);
  /// Fails the ask whose reply slot `sender` is, on `rt` (this thread's
  /// isolate); false if it is no ask's (any more).
  bool failAskHere(IsolateRuntime& rt, const ActorRef& sender, std::error_code error);
  /// The isolate of a reference of this system, or null (none, another
  /// system's, an index out of range).
  IsolateRuntime* runtimeOfOurs(const ActorRef& ref) const noexcept;
  void startAsk(IsolateRuntime& rt, AskEndpoint* endpoint, std::uint32_t slot,
                std::uint32_t generation, const ActorRef& target, Message&& message,
                std::chrono::nanoseconds timeout);
  /// An ask's request, on the reply slot's isolate, with the slot as its sender.
  void sendRequest(const ActorRef& target, Message&& message, const ActorRef& replyTo);
  std::size_t placeTopLevel(const ActorOptions& options);
  void teardown() noexcept;
  void stopLoops() noexcept;
  /// Waits, from outside, for a graceful stop in progress to finish: every
  /// top-level actor stopped (each subtree's postStop run), or the loops
  /// stopped by an immediate stop.
  void awaitGracefulStop();
  void wakeShutdownWaiters() noexcept;
  /// Counts the driving thread's runUntilIdle() calls in progress (manual
  /// systems); the outermost frees an orphaned core as it returns.
  class DriveScope;
  friend class RemoteDelivery;
  friend class RemoteSystemDelivery;
  friend class Crossings;
  friend class AskEndpoint;
  /// The runtime of the isolate whose loop runs on this thread, if it is one
  /// of this system's.
  IsolateRuntime* currentRuntime() const noexcept {
    auto* rt = static_cast<IsolateRuntime*>(Isolate::currentUserData());
    return rt != nullptr && rt->core == this ? rt : nullptr;
  }
  friend class ActorCell;

  std::string name_;
  ActorSystem* owner_ = nullptr;
  // The serial of the thread that drives a manual-run system; for a
  // threaded one a value no thread has (tThreadSerial starts at 0).
  std::uint64_t driver_ = ~std::uint64_t{0};
  ActorSystemOptions options_;
  const Clock* clock_;
  std::shared_ptr<spdlog::logger> logger_;
  EventStream events_;
  std::vector<std::unique_ptr<IsolateRuntime>> isolates_;
  // isolates_.size() once they are all made (0 before): the send path's
  // bounds check in one compare.
  std::uint32_t isolateCount_ = 0;
  std::atomic<State> state_{State::Running};
  std::atomic<std::uint64_t> deadLetters_{0};
  std::atomic<std::uint64_t> staleTicks_{0};
  std::atomic<std::uint64_t> foreignBlocked_{0};
  ActorRef guardian_;

  std::mutex topMutex_;
  std::condition_variable topChanged_;
  // Top-level actors not yet stopped: counted at spawn, before they can
  // stop; the count drops under topMutex_ (topChanged_). Which they are is
  // in the actor tables' top-level flags.
  std::atomic<std::size_t> topLive_{0};
  std::atomic<std::size_t> topNamed_{0};  // entries of topNames_ (changed under topMutex_)
  std::unordered_map<std::string, std::uint64_t> topByName_;  // the user-named ones
  std::unordered_map<std::uint64_t, std::string> topNames_;
  std::atomic<std::uint64_t> topGenerated_{0};
  std::atomic<std::uint64_t> roundRobin_{0};
  mutable std::mutex placementMutex_;
  std::vector<IsolatePlacement> placement_;  // guarded by placementMutex_
  void planPlacement();
  void pinIsolate(std::size_t index) noexcept;
  SpinLock scheduleNamesLock_;
  ScheduleNames scheduleNames_;  // guarded by scheduleNamesLock_
  std::mutex stopMutex_;
  bool tornDown_ = false;            // guarded by stopMutex_
  std::uint32_t driving_ = 0;        // DriveScope: the driving thread's only
  bool orphaned_ = false;            // orphan(): the core frees itself
  bool stopLoopsWhenEmpty_ = false;  // guarded by topMutex_
};

// bench actor/memory counts on it: a cell that grows past 168 bytes takes
// the next malloc chunk (192), 16 more bytes for every idle actor.
static_assert(sizeof(ActorCell) <= 168, "an idle actor is mostly its cell");

inline ActorRef ActorCell::self() const noexcept {
  return home_.core->makeRef(selfId_);  // never none
}
inline ActorRef ActorCell::parent() const noexcept {
  return home_.core->refOf(parentId_);
}

}  // namespace coreactor::detail

namespace coreactor {

inline ReceiveContext::ReceiveContext(detail::ActorCell& cell) noexcept
    : cell_(cell), self_(cell.self()) {}

}  // namespace coreactor

namespace coreactor::detail {}  // namespace coreactor::detail
