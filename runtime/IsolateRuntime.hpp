// What a system keeps for each of its isolates: the loop, the default
// dispatcher's instance, the actor table, the link to the other isolates,
// the ask timeouts and the scheduler. Made and owned by SystemCore.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ActorTable.hpp"
#include "AskTimeouts.hpp"
#include "CrossingReceiver.hpp"
#include "Move.hpp"
#include "RouteMap.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Isolate.hpp"
#include "runtime/ForeignReceiver.hpp"
#include "runtime/schedule/Scheduler.hpp"

namespace coreactor::detail {

class SystemCore;
class ActorCell;
struct RouterCursor;
struct Sampling;

// Aligned: the runtimes of a system's isolates are made one after the other
// on one thread, and each isolate writes its own (the actor table's free list)
// while the others read theirs.
struct alignas(64) IsolateRuntime {
  std::uint32_t index = 0;
  SystemCore* core = nullptr;
  std::unique_ptr<Isolate> isolate;
  std::shared_ptr<Dispatcher> dispatcher;  // the system default, one per isolate
  ActorTable table;
  std::unique_ptr<Link> link;
  std::unique_ptr<ForeignInbox> foreign;  // from foreign threads
  std::unique_ptr<AskTimeouts> asks;      // goes before the isolate it arms
  std::unique_ptr<Scheduler> scheduler;   // last: goes before the isolate it arms

  // What the metrics read (coreactor/Metrics.hpp, runtime/metrics/Metrics.cpp).
  // The isolate's thread alone counts turns and messages, plain, and the
  // metrics read them on that thread; the other two may change from any
  // thread (a spawn, a dead letter), off the message path. On a cache line
  // of their own: the fields above are read by every isolate that sends
  // here, and a counter written each turn beside them would make each of
  // those reads a miss (bench isolates/pingpong/busy: 1.2-1.4x).
  struct alignas(64) Counts {
    std::uint64_t turns = 0;
    std::uint64_t messages = 0;
    // Not read by the metrics: with a balancer, the messages left until
    // its next sample (Sampling::nextGap). The turn counts it down here,
    // on the line it writes `messages` to anyway.
    std::uint32_t untilSample = 0;
    std::atomic<std::uint64_t> liveActors{0};
    std::atomic<std::uint64_t> deadLetters{0};
    std::atomic<std::uint64_t> movesIn{0};    // actors that arrived here by a move
    std::atomic<std::uint64_t> forwarded{0};  // messages and signals sent on by a Forward
    // Of those, the ones that took a way around: they came to the Forward
    // from another isolate, or from a sender here with no route yet (not
    // this isolate's own sends to an actor spawned here, which a Forward
    // passes straight to where the actor is).
    std::atomic<std::uint64_t> detoured{0};
    std::atomic<std::uint64_t> routes{0};         // routes.size(), for other threads to read
    std::atomic<std::uint64_t> balancerMoves{0};  // moves of the balancer that arrived here
    std::atomic<std::uint64_t> poolsGrown{0};     // resizer decisions of router heads here
    std::atomic<std::uint64_t> poolsShrunk{0};
    std::atomic<std::uint64_t> busyPermille{0};  // the balancer's last estimate
  };
  Counts counts;
  // The cells that keep their mailbox's high-water mark
  // (ActorOptions::withMailboxHighWaterMark). Isolate-local.
  std::vector<ActorCell*> watchedMailboxes;
  // The actors living here that were spawned elsewhere, or came back by a
  // move (runtime/Move.cpp), by their own id: Moves::cellHere.
  // Isolate-local.
  std::unordered_map<std::uint64_t, ActorCell*> guests;
  // Where this isolate sends actors spawned elsewhere that moved, by their
  // own id: the entry their isolate gave this one (runtime/Move.cpp).
  // Isolate-local; read on the send path only while not empty.
  // Changed only through setRoute() and dropRoute(), which keep
  // counts.routes, what the metrics read, up to date.
  RouteMap routes;
  void setRoute(std::uint64_t actor, std::uint64_t entry) {
    routes.set(actor, entry);
    counts.routes.store(routes.size(), std::memory_order_relaxed);
  }
  void dropRoute(std::uint64_t actor) noexcept {
    routes.erase(actor);
    counts.routes.store(routes.size(), std::memory_order_relaxed);
  }
  // The routes above that end in an actor living here, a load away
  // (Delivery::toMoved). Isolate-local.
  RouteCache routeCache;
  // Bumped when a cell of this isolate stops, leaves or arrives: the
  // routers' views of their routees here (RouterCursor) are made anew
  // before a routed tell trusts a cell they hold. Isolate-local.
  std::uint64_t cellsChanged = 0;
  // The routers told from here lately, by their slot's low bits: the
  // reference's id and this isolate's cursor of that router, which holds
  // its view. A routed tell that finds its router here skips the routers'
  // table (Routers::routeHere); a router's state never moves while the
  // system lives, and one that stops makes every view stale. Isolate-local.
  struct RouterHit {
    std::uint64_t router = 0;  // no router's id is 0
    RouterCursor* cursor = nullptr;
  };
  static constexpr std::uint32_t kRouterHits = 16;
  std::array<RouterHit, kRouterHits> routerHits{};
  RouterHit& routerHitOf(std::uint32_t routerSlot) noexcept {
    return routerHits[routerSlot & (kRouterHits - 1)];
  }
  // Whose messages a Forward here sends on at the moment: kOwnSends (this
  // isolate's actors and timers, and the letters of its foreign inbox,
  // which it forwards as its own), a peer's index while its ring is taken.
  static constexpr std::uint32_t kOwnSends = ~std::uint32_t{0};
  std::uint32_t source = kOwnSends;
  /// The isolate whose sends a Forward here passes on now: `source`, with
  /// kOwnSends read as this isolate's index.
  std::uint32_t sendsOf() const noexcept { return source == kOwnSends ? index : source; }
  // Barrier acknowledgements that came before the cell they are for, by
  // the id of the entry it will take (runtime/Move.cpp).
  std::unordered_map<std::uint64_t, std::uint32_t> earlyAcks;
  // Whose messages this isolate passed on where, its open Holds and the
  // flushes of moving senders open here (runtime/Move.hpp). Isolate-local.
  Relays relays;
  // The balancer's samples of this period (runtime/balance/Balancer.hpp);
  // null without a balancer, and then the message path samples nothing.
  std::unique_ptr<Sampling> sampling;
};

}  // namespace coreactor::detail
