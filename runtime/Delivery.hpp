// The system's delivery beyond the common send path: runtime/Send.cpp. The
// common path, a message to an actor of this thread's isolate or into the
// ring to another of the system's isolates, stays SystemCore's
// (SystemCore::send, deliverLocal, sendAcross; ActorRef::send) and comes
// here for the rest: to a router, to another rank, from a foreign thread
// through the target isolate's foreign inbox, from another rank, to an
// ask's reply slot, to an entry a moved actor left, to no one (a dead
// letter); and every system message.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "coreactor/ActorRef.hpp"

namespace coreactor::detail {

class SystemCore;
struct Endpoint;
struct Envelope;
struct IsolateRuntime;
struct SystemMessage;

/// The uncommon delivery paths of a system, system messages and dead
/// letters. Any thread unless said; none is on the common send path.
class Delivery {
 public:
  explicit Delivery(SystemCore& core) noexcept : core_(core) {}
  Delivery(const Delivery&) = delete;
  Delivery& operator=(const Delivery&) = delete;

  /// What SystemCore::send does not deliver itself: to a router, to an
  /// actor of another rank, boxed into the ring from another of our
  /// isolates with a sender of another system, through the inbox from a
  /// foreign thread, or a dead letter.
  void sendElsewhere(const ActorRef& target, Envelope&& envelope);
  /// From a thread that is no loop: waits while `rt`'s foreign inbox holds
  /// the limit (ActorSystemOptions::withForeignInboxLimit) with `coming`
  /// more letters (SPEC X3); counted in TransportStats::foreignBlocked.
  void waitForForeignRoom(IsolateRuntime& rt, std::size_t coming);
  /// A message for `target` into `rt`'s foreign inbox, once there is room;
  /// `inTurn`: ForeignInbox::putInTurn; a positive `askTimeout`: the
  /// message is an ask's request (ForeignInbox::Letter::askTimeout). A dead letter if the
  /// isolate stopped, or if a graceful shutdown has begun and the message
  /// comes from a foreign thread (not from another rank, whose
  /// messages were sent before it heard of the shutdown).
  void putForeign(IsolateRuntime& rt, const ActorRef& target, Envelope&& envelope, bool inTurn,
                  std::chrono::nanoseconds askTimeout = {});
  /// A system message to `target`: in place on its isolate, into the ring
  /// from another of ours (never refused), into the foreign inbox from any
  /// other thread; to a router's head, across to another rank, or to no
  /// actor (deliverToNoActor).
  void sendSystem(const ActorRef& target, SystemMessage&& message);
  /// A message no actor takes: counted (the system's count and the
  /// recipient's isolate's), and published as a DeadLetter event if anyone
  /// subscribes.
  void deadLetter(const ActorRef& recipient, Envelope&& envelope, const char* reason);
  /// A message, or a lifecycle signal, from another rank: into the target
  /// isolate's foreign inbox as one producer (ForeignInbox::putInTurn)
  /// whichever thread hands it over (the link's, or an isolate's in the
  /// link's progress), so that each rank's units keep their order. One
  /// thread at a time: the holder of the link's work.
  void deliverFromRank(const ActorRef& target, Envelope&& envelope);
  void signalFromRank(const ActorRef& target, SystemMessage&& message);

  /// SystemCore::deliverLocal() to an ask's reply slot, to an entry a moved
  /// actor left (a Forward or a Hold: Moves), or to no one. `urgent`: from
  /// another isolate's ring (AskEndpoint::complete's `fromRing`).
  /// Isolate-local: on `rt`'s loop.
  void deliverUncommon(IsolateRuntime& rt, const ActorRef& target, Endpoint* endpoint,
                       Envelope&& envelope, bool urgent = false);
  /// A system message to `target` on `rt`, this thread's isolate: into the
  /// actor's cell, or the moves' entries. Isolate-local.
  void deliverSystemLocal(IsolateRuntime& rt, const ActorRef& target, SystemMessage&& message);
  /// What a system message to an actor that is not there (gone, or not of
  /// this system) comes to: a watcher hears Terminated at once.
  void deliverToNoActor(const ActorRef& target, SystemMessage&& message);
  /// sendSystem() to a target that is not on this thread's isolate:
  /// `ours` is its isolate (null for a router, another rank's actor or no
  /// actor of ours).
  [[gnu::noinline]] void sendSystemElsewhere(IsolateRuntime* ours, const ActorRef& target,
                                             SystemMessage&& message);

  /// SystemCore::sendAcross() from an isolate that keeps routes (RouteMap): to the
  /// entry the target's actor gave `here` if it moved, else on the link.
  /// An actor that lives here now is found in the RouteCache, as a local
  /// send finds its target, or else through its route, which fills the
  /// cache; for an entry on another isolate, into the ring to it
  /// (sendAcross's checks hold for the entry as for the target: same
  /// isolates, same sender); for a Forward here (the actor left the entry
  /// it gave this isolate), to where the Forward leads, the route pointed
  /// there for the sends after; else (a Hold here) as any send. Out
  /// of line, and reached by a jump: its arguments lie in the registers
  /// where ActorRef::send has its own (`target` where that has `this`), so
  /// the path across stays small and the local path moves none of them.
  /// Defined in SystemCore.hpp.
  template <class P>
  static void toMoved(const ActorRef& target, PayloadArg<P> payload, ActorRef sender,
                      IsolateRuntime& here);
  /// toMoved() past its common case.
  template <class P>
  static void toMovedFurther(IsolateRuntime& here, std::uint64_t target, PayloadArg<P> payload,
                             ActorRef sender);

  /// The dead letters so far (ActorSystem::deadLetterCount).
  std::uint64_t deadLetterCount() const noexcept {
    return deadLetters_.load(std::memory_order_relaxed);
  }
  /// The tells that waited for room in a foreign inbox so far
  /// (TransportStats::foreignBlocked).
  std::uint64_t foreignBlockedCount() const noexcept {
    return foreignBlocked_.load(std::memory_order_relaxed);
  }

 private:
  SystemCore& core_;
  std::atomic<std::uint64_t> deadLetters_{0};
  std::atomic<std::uint64_t> foreignBlocked_{0};
};

}  // namespace coreactor::detail
