/// @file
/// `coreactor/ActorOptions.hpp` — how one actor runs (ActorOptions) and how
/// its mailbox queues (MailboxOptions). How a whole system runs is
/// coreactor/ActorSystemOptions.hpp.
//
// Immutable values built fluently, as in the reference documents:
//   ActorOptions::create().withThroughput(32).withMailbox(MailboxOptions::bounded(100))
// Each with...() validates its argument at once and throws a named error
// (ErrInvalidThroughput, ErrInvalidCapacity, ...) rather than failing later.
//
// Thread-safety: values; build them anywhere.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Clock.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Placement.hpp"

namespace coreactor {

/// What a bounded mailbox does with a message that does not fit.
enum class OverflowPolicy {
  DropNewest,  ///< refuse the new message: it becomes a dead letter
  DropOldest,  ///< evict the oldest queued message (a dead letter) and queue the new one
  Fail,        ///< refuse the new message: the sender's tell throws ErrMailboxFull
               ///< (on the receiver's isolate; from elsewhere it is a dead letter)
};

/// How an actor's mailbox queues its messages: unbounded (the default),
/// bounded, or by priority. A value.
class MailboxOptions {
 public:
  /// The kind of mailbox.
  enum class Kind {
    Unbounded,  ///< FIFO, grows as needed
    Bounded,    ///< FIFO of at most capacity() messages; overflow() when full
    Priority,   ///< by priorityOf(), lowest first, stable
  };
  /// Lower numbers first; equal priorities keep their arrival order (stable).
  using PriorityOf = std::function<int(const Message&)>;

  /// FIFO on a ring buffer that grows as needed (the default).
  static MailboxOptions unbounded() { return MailboxOptions(); }
  /// FIFO holding at most `capacity` messages. Throws ErrInvalidCapacity for 0.
  static MailboxOptions bounded(std::size_t capacity,
                                OverflowPolicy policy = OverflowPolicy::DropNewest);
  /// Stable priority order: `priorityOf(message)`, lowest first.
  static MailboxOptions priority(PriorityOf priorityOf);

  /// Unbounded, bounded or priority.
  Kind kind() const noexcept { return kind_; }
  /// The bound of a bounded mailbox; 0 for the others.
  std::size_t capacity() const noexcept { return capacity_; }
  /// What a bounded mailbox does with a message that does not fit.
  OverflowPolicy overflow() const noexcept { return overflow_; }
  /// The priority of a priority mailbox; empty for the others.
  const PriorityOf& priorityOf() const noexcept { return priorityOf_; }

 private:
  Kind kind_ = Kind::Unbounded;
  std::size_t capacity_ = 0;
  OverflowPolicy overflow_ = OverflowPolicy::DropNewest;
  PriorityOf priorityOf_;
};

/// What a restart does with an actor's stash (ActorOptions::withStash).
enum class StashOnRestart : std::uint8_t {
  Keep,  ///< the new instance handles the stashed messages first, in the order stashed
  Drop,  ///< they become dead letters
};

/// How one actor runs: its dispatcher, throughput, mailbox, isolate and
/// passivation. An immutable value: each with...() returns a changed copy.
class ActorOptions {
 public:
  /// The defaults: the system's dispatcher and throughput, an unbounded
  /// mailbox, placed as the system places, no passivation.
  static ActorOptions create() { return ActorOptions(); }

  /// A dispatcher of the actor's own, bound to the actor's isolate (one
  /// instance serves one isolate: actors sharing it must live on the same one).
  ActorOptions withDispatcher(std::shared_ptr<Dispatcher> dispatcher) const;
  /// Messages handled per turn (requirement D7). Throws ErrInvalidThroughput for 0.
  ActorOptions withThroughput(std::size_t messagesPerTurn) const;
  /// The actor's mailbox (default: MailboxOptions::unbounded()).
  ActorOptions withMailbox(MailboxOptions mailbox) const;
  /// Places the actor on isolate `index` (checked at spawn: ErrIsolateOutOfRange).
  /// Placement (requirement X4): without any of the placement calls here,
  /// top-level actors spread over the isolates a run at a time
  /// (ActorSystemOptions::withPlacementRun) and a child lives on its
  /// parent's isolate.
  ActorOptions withIsolate(std::size_t index) const;
  /// Places the actor on the isolate `peer` lives on (spawn-near): actors
  /// that talk much keep their messages on one loop, where a send is a
  /// push and not a crossing. `peer` may have stopped (its isolate still
  /// counts); a reference of another system, or none, is ErrInvalidOption
  /// at spawn.
  ActorOptions withIsolateOf(const ActorRef& peer) const;
  /// Places the actor by key: the same key always lands on the same isolate
  /// (a stable 64-bit FNV-1a hash of the key, modulo the isolate count), so
  /// actors that belong together (one per user, per shard) meet.
  ActorOptions withKey(std::string key) const;
  /// Places the actor by the system's spread, as a top-level actor without a
  /// placement is placed (ActorSystemOptions::withPlacementRun), even as a child.
  ActorOptions withRoundRobin() const;
  /// Passivation (requirement A10): the actor stops itself (gracefully: postStop
  /// runs, watchers get Terminated) once it has handled no message for
  /// `idleTimeout`; it stops between 1 and 1.25 idle timeouts after its last
  /// message. Scheduler ticks are messages: a repeating schedule to it keeps
  /// it alive. Throws ErrInvalidOption for a timeout that is not positive.
  ActorOptions withPassivation(std::chrono::nanoseconds idleTimeout) const;
  /// Keeps the deepest the actor's mailbox has been (read at the start of
  /// each turn, where a backlog is deepest), reported by the system's
  /// metrics (coreactor/Metrics.hpp). Costs a test per turn, none per message.
  ActorOptions withMailboxHighWaterMark(bool keep = true) const {
    ActorOptions o = *this;
    o.mailboxHighWaterMark_ = keep;
    return o;
  }

  /// Pins the actor to the isolate it is spawned on: a move of it
  /// (ActorSystem::move, ReceiveContext::move, the balancer) is
  /// ErrNotMovable. Actors with a dispatcher of their own, and actors that
  /// used their isolate directly (ReceiveContext::isolate: timers, I/O
  /// objects), are pinned without it.
  ActorOptions withPinned(bool pinned = true) const {
    ActorOptions o = *this;
    o.pinned_ = pinned;
    return o;
  }

  /// The bound of the actor's stash (ReceiveContext::stash: ErrStashFull
  /// past it) and what a restart does with what is stashed. Without it: a
  /// bound of kDefaultStashCapacity, kept across a restart. Throws
  /// ErrInvalidCapacity for a capacity of 0.
  ActorOptions withStash(std::size_t capacity,
                         StashOnRestart onRestart = StashOnRestart::Keep) const;
  /// The stash bound an actor has without withStash().
  static constexpr std::size_t kDefaultStashCapacity = 10000;

  /// The actor's own dispatcher; nullptr: the system's default on its isolate.
  const std::shared_ptr<Dispatcher>& dispatcher() const noexcept { return dispatcher_; }
  /// Messages per turn; none: the system's default (ActorSystemOptions::throughput).
  const std::optional<std::size_t>& throughput() const noexcept { return throughput_; }
  /// The mailbox.
  const MailboxOptions& mailbox() const noexcept { return mailbox_; }
  /// The isolate asked for by withIsolate(); it wins over the others.
  const std::optional<std::size_t>& isolate() const noexcept { return isolate_; }
  /// The peer of withIsolateOf(); none if not asked. It wins over a key and round-robin.
  const ActorRef& near() const noexcept { return near_; }
  /// True after withIsolateOf(), whatever reference it was given.
  bool nearAsked() const noexcept { return nearAsked_; }
  /// The placement key of withKey(); it wins over round-robin.
  const std::optional<std::string>& key() const noexcept { return key_; }
  /// True after withRoundRobin().
  bool roundRobin() const noexcept { return roundRobin_; }
  /// The idle timeout of withPassivation(); 0: no passivation.
  std::chrono::nanoseconds passivation() const noexcept { return passivation_; }
  /// True after withMailboxHighWaterMark().
  bool mailboxHighWaterMark() const noexcept { return mailboxHighWaterMark_; }
  /// True after withPinned().
  bool pinned() const noexcept { return pinned_; }
  /// The stash bound (withStash); kDefaultStashCapacity without it.
  std::size_t stashCapacity() const noexcept { return stashCapacity_; }
  /// What a restart does with the stash (withStash).
  StashOnRestart stashOnRestart() const noexcept { return stashOnRestart_; }

 private:
  std::shared_ptr<Dispatcher> dispatcher_;
  std::optional<std::size_t> throughput_;
  MailboxOptions mailbox_;
  std::optional<std::size_t> isolate_;
  ActorRef near_;
  bool nearAsked_ = false;
  std::optional<std::string> key_;
  bool roundRobin_ = false;
  std::chrono::nanoseconds passivation_{0};
  bool mailboxHighWaterMark_ = false;
  bool pinned_ = false;
  StashOnRestart stashOnRestart_ = StashOnRestart::Keep;
  std::size_t stashCapacity_ = kDefaultStashCapacity;
};

}  // namespace coreactor
