// The inside of an ActorSystem: its isolates, their actor tables, the send
// paths, actor cells and ask slots. Nothing here is installed; users see
// include/coreactor/ActorSystem.hpp.
//
// Following one tell: ActorRef::deliver -> SystemCore::send -> (the target's
// isolate is this thread's) deliverLocal -> ActorTable::find -> ActorCell::enqueue
// -> Dispatcher::execute(cell) ... -> ActorCell::turn -> Actor::receive.
// From another of the system's isolates, send() pushes the envelope on the
// ring of that pair (the isolate's transport::Link, transport/Link.hpp),
// which the target's isolate drains into its CrossingReceiver
// (runtime/CrossingReceiver.cpp) and from there into the local path. From a thread that is no isolate, it
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
#include "CrossingReceiver.hpp"
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
    here.crossings->sendWord(*isolates_[target.isolateIndex()]->crossings, target.id(), idOf(sender), type,
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
  friend class CrossingReceiver;
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
