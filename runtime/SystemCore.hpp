// The inside of an ActorSystem: its isolates and the send path between
// them, the references it mints, and the parts that have a class of their
// own, each a member reached by an accessor. Nothing here is installed;
// users see include/coreactor/ActorSystem.hpp. The actor cell is
// ActorCell.hpp, an ask's reply slot AskEndpoint.hpp, what the system keeps
// per isolate IsolateRuntime.hpp; the parts: the uncommon delivery paths,
// system messages and dead letters Delivery.hpp, moves Move.hpp, spawning,
// the top level and actors' paths Spawns.hpp, routers route/Routers.hpp,
// the asks Asks.hpp, running and stopping SystemStop.hpp, the scheduler's
// calls schedule/Scheduling.hpp, the metrics and the reports
// metrics/SystemMetrics.hpp, the other ranks of a cluster
// cluster/RemoteRoutes.hpp.
//
// Following one tell: ActorRef::tell -> ActorRef::send (runtime/Send.cpp) ->
// (an actor of this thread's isolate) ActorCell::pushInPlace, or
// SystemCore::send -> deliverLocal -> ActorTable::find -> ActorCell::enqueue;
// then Dispatcher::execute(cell) ... -> CellTurn::turn -> Actor::receive.
// The path is one for both forms a message takes on it: a detail::Word (a
// word-sized message as its type and value, in registers) or a Message; the
// mailbox and the ring store each in its own way. From another of the
// system's isolates, the message goes into the ring of that pair (the
// isolate's transport::Link, transport/Link.hpp), which the target's isolate
// drains into its CrossingReceiver (runtime/CrossingReceiver.cpp) and from
// there into the local path. From a foreign thread, it goes as a letter into
// the target isolate's foreign inbox (transport/ForeignInbox.hpp,
// runtime/ForeignReceiver.hpp).
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

#include "ActorCell.hpp"
#include "ActorTable.hpp"
#include "AskEndpoint.hpp"
#include "Asks.hpp"
#include "CrossingReceiver.hpp"
#include "Delivery.hpp"
#include "IsolateRuntime.hpp"
#include "Mailbox.hpp"
#include "Spawns.hpp"
#include "SystemMessage.hpp"
#include "SystemStop.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Isolate.hpp"
#include "runtime/balance/Balancer.hpp"
#include "runtime/metrics/SystemMetrics.hpp"
#include "runtime/route/Routers.hpp"
#include "runtime/schedule/Scheduler.hpp"
#include "runtime/schedule/Scheduling.hpp"

namespace coreactor::detail {

// This thread's serial, 0 until threadSerial() first gives it one: a manual
// system keeps its creating thread's serial (that thread drives its loops),
// so any number of manual systems can share a thread and each knows its
// driver. A constant-initialised inline thread_local: one TLS load on the
// send path.
inline thread_local std::uint64_t tThreadSerial = 0;
/// This thread's serial (never 0), given on first use.
std::uint64_t threadSerial() noexcept;

class RemoteRoutes;
struct RouterSetup;

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
  /// Isolate `index`, or ErrIsolateOutOfRange.
  IsolateRuntime& runtime(std::size_t index);
  /// Isolate `index` < isolateCount(), unchecked: for paths that checked it.
  IsolateRuntime& runtimeAt(std::size_t index) const noexcept { return *isolates_[index]; }
  bool running() const noexcept { return state_.load(std::memory_order_acquire) == State::Running; }
  /// True on the thread that drives this manual-run system (the one that
  /// created it); false everywhere for a threaded system. One TLS load.
  bool drivenHere() const noexcept { return driver_ == tThreadSerial; }
  /// True when the caller runs on one of this system's loops: a handler, a
  /// hook, a task posted to one of its isolates.
  bool onOwnIsolate() const noexcept;

  /// Starts the isolate threads (not in manual mode).
  void start();

  // The send path: any thread, either form of payload (detail::Word or
  // Message). ActorRef::send takes the common cases before it comes here.
  template <class P>
  void send(const ActorRef& target, P&& payload, const ActorRef& sender) {
    if (target.isolateIndex() < isolates_.size() && !target.isNone()) [[likely]] {
      IsolateRuntime& rt = *isolates_[target.isolateIndex()];
      if (isLocal(rt)) [[likely]] {
        deliverLocal(rt, target, std::forward<P>(payload), sender);
        return;
      }
      // From another of our isolates: the ring of that pair (SPEC X1).
      if (IsolateRuntime* here = currentRuntime(); here != nullptr && carriesAsId(sender)) {
        sendAcross(*here, target, std::forward<P>(payload), sender);
        return;
      }
    }
    delivery_.sendElsewhere(target, Envelope{asMessage(payload), sender});
  }
  /// What `target` names (an actor, or an ask's reply slot) on the isolate
  /// whose loop runs on this thread (or on the manual system this thread
  /// drives), or null for anything else. No call. On a loop thread the
  /// runtime comes from the thread (Isolate::currentUserData), not from the
  /// target: fewer loads that wait on one another.
  Endpoint* endpointHere(const ActorRef& target) const noexcept {
    const auto* here = static_cast<const IsolateRuntime*>(detail::IsolateHooks::currentUserData());
    if (here != nullptr && here->core == this && here->index == target.isolateIndex()) [[likely]] {
      return here->table.find(target.slot(), target.generation());
    }
    return endpointDriven(target);
  }
  /// endpointHere() past this thread's isolate: the target's entry when
  /// this thread drives the (manual-run) system, else null.
  Endpoint* endpointDriven(const ActorRef& target) const noexcept {
    // Only this system mints its references, but a stale one (of a system
    // destroyed at this address) must not read past the isolates.
    if (!drivenHere() || target.isolateIndex() >= isolateCount_) return nullptr;
    return isolates_[target.isolateIndex()]->table.find(target.slot(), target.generation());
  }
  /// A message that answers an ask whose reply slot lives on this thread's isolate.
  template <class P>
  void reply(AskEndpoint& endpoint, PayloadArg<P> payload);
  /// For a message from one of this system's isolates (this thread's) to
  /// an actor of another of them, which goes straight into that pair's
  /// ring (sendAcross): this thread's isolate. Null from anywhere else, to
  /// this isolate, for an index out of range, with a sender of another
  /// system, or in a manual system. No call.
  IsolateRuntime* crossingFromHere(const ActorRef& target, const ActorRef& sender) const noexcept {
    IsolateRuntime* here = currentRuntime();
    return here != nullptr && crossesFrom(*here, target, sender) ? here : nullptr;
  }
  /// crossingFromHere() for `here`, one of this system's isolates, known.
  bool crossesFrom(const IsolateRuntime& here, const ActorRef& target,
                   const ActorRef& sender) const noexcept {
    // A manual system's driving thread owns all of its isolates: there
    // send() delivers in place, as the rest of that sender's messages go
    // (isLocal), and so must this one, to keep their order.
    return here.index != target.isolateIndex() && target.isolateIndex() < isolateCount_ &&
           carriesAsId(sender) && !options_.manualRun();
  }
  /// Into the ring from `here` to the target's isolate, with a sender that
  /// travels as an id: a word (of either form) joins the ring's run of
  /// words, any other Message crosses as itself.
  template <class P>
  void sendAcross(IsolateRuntime& here, const ActorRef& target, P&& payload,
                  const ActorRef& sender) {
    if (!here.routes.empty()) [[unlikely]] {
      // Actors that moved gave this isolate entries of their own.
      using Payload = std::decay_t<P>;
      Delivery::toMoved<Payload>(target, PayloadArg<Payload>(std::move(payload)), sender, here);
      return;
    }
    sendOnLink(here, target, std::forward<P>(payload), sender);
  }
  /// The ring's part of sendAcross: to `target`'s isolate, no route looked at.
  template <class P>
  void sendOnLink(IsolateRuntime& here, const ActorRef& target, P&& payload,
                  const ActorRef& sender) {
    Link& to = *isolates_[target.isolateIndex()]->link;
    if constexpr (std::is_same_v<std::decay_t<P>, Word>) {
      here.link->send(to, target.id(), idOf(sender), payload);
    } else if (Word::in(payload)) {
      // A Message of a word type (a scheduled tick, an ask's request) is
      // stored as a word too: it may join a run.
      here.link->send(to, target.id(), idOf(sender), Word::of(payload));
    } else {
      here.link->send(to, target.id(), Crossing{idOf(sender), std::move(payload)});
    }
  }
  /// A send from this thread's isolate to `target`, whose entry here is a
  /// Forward (runtime/Send.cpp): in place when the actor lives here again in
  /// another entry; straight into the ring to where the entry leads, as
  /// Moves::forward would send it, when the entry has asked for this
  /// isolate's route already and the sender is no other isolate's (an actor
  /// living here, or none), whose message a relay record would have to
  /// follow; else the general path. Out of line, and reached by a jump: the
  /// send path saves no registers for it.
  template <class P>
  void sendToForward(const ActorRef& target, PayloadArg<P> payload, ActorRef sender);
  /// The send path from `sender` to the actor of `id` of this system, as
  /// ActorRef's tell takes it (Routers' tell of a routee).
  template <class P>
  void sendTo(std::uint64_t id, PayloadArg<P> payload, ActorRef sender) {
    ActorRef(this, id).send<P>(std::forward<PayloadArg<P>>(payload), sender);
  }

  // ---- references -------------------------------------------------------------------
  /// A reference this system minted, naming one of its isolates (the actor
  /// may be gone): not none, not another system's.
  bool isOurs(const ActorRef& ref) const noexcept {
    return ref.system_ == this && ref.isolateIndex() < isolateCount_;
  }
  /// A reference this system minted, whatever it names: one of its
  /// isolates, a router, another rank's isolate. Only SystemCore can read
  /// a reference's system (ActorRef befriends it alone): the parts ask here.
  bool minted(const ActorRef& ref) const noexcept { return ref.system_ == this; }
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

  // ---- the parts: each a class of its own, a member of this one ----------------------
  /// What the send path does not deliver itself (routers, other ranks,
  /// foreign threads, reply slots, moved actors' entries, no one), system
  /// messages, dead letters and their count (Delivery.hpp, Send.cpp).
  Delivery& delivery() noexcept { return delivery_; }
  /// The move call, where an actor that may have moved lives now, what
  /// comes to the entries of actors that moved, the routes and the flushes
  /// of moving senders (Move.hpp, Move.cpp).
  Moves& moves() noexcept { return moves_; }
  /// The spawns (the guardian, top-level actors, children), the top-level
  /// actors by name and their count, the placement, actors' paths
  /// (Spawns.hpp, Spawn.cpp).
  Spawns& spawns() noexcept { return spawns_; }
  /// The system's routers: which references are routers', and where a
  /// tell, an ask or a system message to a router goes (route/Routers.hpp).
  Routers& routers() noexcept { return routers_; }
  /// The ask calls, and the failures that complete a reply slot early
  /// (Asks.hpp, Ask.cpp).
  Asks& asks() noexcept { return asks_; }
  /// Driving a manual system, graceful shutdown, immediate stop, the
  /// owner's destruction, the teardown (SystemStop.hpp, Shutdown.cpp).
  SystemStop& systemStop() noexcept { return systemStop_; }
  /// The schedule calls, the reference namespace, the tick counts
  /// (schedule/Scheduling.hpp).
  Scheduling& scheduling() noexcept { return scheduling_; }
  /// The metrics snapshot and endpoint, the transport's counters, the
  /// errors dispatchers report (metrics/SystemMetrics.hpp, Metrics.cpp).
  SystemMetrics& metrics() noexcept { return metrics_; }
  /// The system's side of its cluster, or null: which references are other
  /// ranks' (RemoteRoutes::isRemote) and how messages reach them
  /// (cluster/RemoteRoutes.hpp).
  RemoteRoutes* remote() const noexcept { return remote_.get(); }

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
  template <class P>
  void deliverLocal(IsolateRuntime& rt, const ActorRef& target, P&& payload, const ActorRef& sender,
                    bool urgent = false) {
    Endpoint* endpoint = rt.table.find(target.slot(), target.generation());
    if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Cell) [[likely]] {
      static_cast<ActorCell*>(endpoint)->enqueue(std::forward<P>(payload), sender, urgent);
      return;
    }
    delivery_.deliverUncommon(rt, target, endpoint, Envelope{asMessage(payload), sender}, urgent);
  }
  /// The living actor `target` names on `rt`, or null (gone, or an ask's
  /// reply slot). Isolate-local.
  ActorCell* cellOf(const IsolateRuntime& rt, const ActorRef& target) const noexcept {
    Endpoint* endpoint = rt.table.find(target.slot(), target.generation());
    if (endpoint == nullptr || endpoint->kind != Endpoint::Kind::Cell) return nullptr;
    return static_cast<ActorCell*>(endpoint);
  }
  /// The isolate of a reference of this system, or null (none, another
  /// system's, an index out of range).
  IsolateRuntime* runtimeOfOurs(const ActorRef& ref) const noexcept;
  friend class CrossingReceiver;
  friend class ForeignReceiver;
  /// The runtime of the isolate whose loop runs on this thread, if it is one
  /// of this system's.
  IsolateRuntime* currentRuntime() const noexcept {
    auto* rt = static_cast<IsolateRuntime*>(detail::IsolateHooks::currentUserData());
    return rt != nullptr && rt->core == this ? rt : nullptr;
  }

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
  // The uncommon delivery paths, with the counts of dead letters and of
  // tells that waited for a foreign inbox.
  Delivery delivery_{*this};

  // Running and stopping (it writes state_). Before spawns_, whose registry
  // of top-level actors calls its stopLoops(): made before the registry and
  // gone after it.
  SystemStop systemStop_{*this};
  // The guardian, the registry of top-level actors, and the placer, which
  // plans the placement from options_ before any isolate is made.
  Spawns spawns_{*this};
  // The metrics, the endpoint that serves them (withMetricsEndpoint, on
  // isolate 0), the transport's counters, the errors of dispatchers.
  SystemMetrics metrics_{*this};
  /// The system's side of a cluster (withCluster), or null.
  std::unique_ptr<RemoteRoutes> remote_;
  /// Placement that learns (withBalancer), or null. After the isolates:
  /// gone first, once no loop runs.
  std::unique_ptr<Balancer> balancer_;
  friend class Routers;
  friend class Scheduling;
  friend class Asks;
  friend class SystemStop;
  friend class Spawns;
  friend class SystemMetrics;
  friend class Delivery;
  friend class Moves;
  Routers routers_{*this};
  Moves moves_{*this};
  Scheduling scheduling_{*this};
  Asks asks_{*this};
};

// Delivery's paths to an actor that moved, here where SystemCore is complete.

template <class P>
[[gnu::noinline]] void Delivery::toMoved(const ActorRef& target, PayloadArg<P> payload,
                                         ActorRef sender, IsolateRuntime& here) {
  // The common case makes no call but its tail, and the sender stays in
  // registers: the mailbox reads it back as one 16-byte value, which two
  // 8-byte stores before it would not forward.
  if constexpr (std::is_same_v<P, Word>) {
    if (Endpoint* moved = here.routeCache.find(target.id())) [[likely]] {
      if (static_cast<ActorCell*>(moved)->tellInPlace(Word(payload), sender, here.core))
          [[likely]] {
        return;
      }
    }
  }
  toMovedFurther<P>(here, target.id(), std::move(payload), sender);
}
template <class P>
[[gnu::noinline]] void Delivery::toMovedFurther(IsolateRuntime& here, std::uint64_t target,
                                                PayloadArg<P> payload, ActorRef sender) {
  SystemCore& core = *here.core;
  // In place, as ActorRef::send tells an actor of its own isolate.
  const auto tellHere = [&](ActorCell* cell) {
    if constexpr (std::is_same_v<P, Word>) {
      if (cell->tellInPlace(Word(payload), sender, &core)) [[likely]]
        return;
    }
    cell->enqueue(std::move(payload), sender);
  };
  if (Endpoint* moved = here.routeCache.find(target)) [[likely]] {
    tellHere(static_cast<ActorCell*>(moved));
    return;
  }
  const ActorRef to = core.refOf(target);
  const std::uint64_t* route = here.routes.find(target);
  if (route == nullptr) {
    core.sendOnLink(here, to, std::move(payload), sender);
    return;
  }
  const ActorRef entry = core.refOf(*route);
  if (entry.isolateIndex() == here.index) {
    Endpoint* endpoint = here.table.find(entry.slot(), entry.generation());
    if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Cell) {
      // From now on the cache finds it at once.
      here.routeCache.note(target, endpoint);
      tellHere(static_cast<ActorCell*>(endpoint));
      return;
    }
    if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Forward) [[unlikely]] {
      // The actor left the entry it gave this isolate. A Forward sends on
      // what comes to it at once, into the ring to where it leads (or in
      // place, here), so this isolate's sends may go there themselves in
      // the same order, with one look-up and one pass through the general
      // path less: the route leads there from now on (to the actor's own
      // entry: no route at all, and the send path's first test again).
      const std::uint64_t next = static_cast<Forward*>(endpoint)->to;
      if (next != target) {
        here.setRoute(target, next);
        toMovedFurther<P>(here, target, std::move(payload), sender);
        return;
      }
      here.dropRoute(target);
      core.send(to, std::move(payload), sender);
      return;
    }
  } else if (entry.isolateIndex() < core.isolateCount_) {
    core.sendOnLink(here, entry, std::move(payload), sender);
    return;
  }
  core.send(entry, std::move(payload), sender);
}

inline bool Routers::isRouter(const ActorRef& ref) const noexcept {
  // The isolate field first: the load of core_ is made for a router's reference only.
  return ref.isolateIndex() == kIsolate && core_.minted(ref) && any();
}

inline ActorCell* Moves::cellHere(const IsolateRuntime& rt, const ActorRef& ref) const noexcept {
  if (ref.isolateIndex() == rt.index) {
    if (ActorCell* cell = core_.cellOf(rt, ref)) return cell;
  }
  return guestHere(rt, ref);
}

inline ActorRef ActorCell::self() const noexcept {
  return home_->core->makeRef(selfId_);  // never none
}
inline ActorRef ActorCell::parent() const noexcept {
  return home_->core->refOf(parentId_);
}

}  // namespace coreactor::detail

namespace coreactor {

inline ReceiveContext::ReceiveContext(detail::ActorCell& cell) noexcept
    : cell_(cell), self_(cell.self()) {}

}  // namespace coreactor
