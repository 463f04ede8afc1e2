// Routing on the sender's thread (coreactor/Router.hpp): a tell to a
// router picks its routee here, from the router's state (RouterTable.hpp),
// and goes on as a tell to that routee, so that a routed message takes the
// same path (and keeps the same order per sender and routee) as a direct
// one. Also the making of routers, and where asks and system messages to a
// router go.
#include <algorithm>
#include <cmath>

#include "runtime/SystemCore.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"
#include "runtime/route/RouterHead.hpp"

namespace coreactor::detail {

namespace {

// SplitMix64's finalizer: the random logic's draw from its state.
std::uint64_t spread(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A consistent-hash key, mixed before its slot (the top bits) is read: the
// high half folded into the low, then a Fibonacci multiply, which spreads
// keys 1, 2, 3 ... evenly over the slots. Both steps are one-to-one, so no
// two keys are made one. Three instructions: the pick waits on this chain
// for every message.
std::uint64_t mixKey(std::uint64_t x) noexcept {
  return (x ^ (x >> 31)) * 0x9E3779B97F4A7C15ull;
}

const MessageType* typeOf(const Word& word) noexcept {
  return word.type;
}
const MessageType* typeOf(const Message& message) noexcept {
  return MessageAccess::type(message);
}

// This thread's cursor: its isolate's, or the one other threads share.
RouterCursor& cursorOf(RouterState& r, const IsolateRuntime* here, bool& shared) noexcept {
  shared = here == nullptr || here->index + 1 >= r.cursorCount;
  return r.cursors[shared ? r.cursorCount - 1 : here->index];
}

// The next routee in turn, below n: an isolate's cursor wraps by a compare
// (a division costs more than the rest of the pick), the shared one counts.
std::uint32_t nextTurn(RouterCursor& c, bool shared, std::uint32_t n) noexcept {
  if (shared) return static_cast<std::uint32_t>(c.turn.fetch_add(1, std::memory_order_relaxed) % n);
  auto turn = static_cast<std::uint32_t>(c.turn.load(std::memory_order_relaxed));
  if (turn >= n) turn = 0;                                               // the pool shrank
  c.turn.store(turn + 1 < n ? turn + 1 : 0, std::memory_order_relaxed);  // one writer: its isolate
  return turn;
}

std::uint32_t nextRandom(RouterCursor& c, std::uint32_t n) noexcept {
  // xorshift64: three shifts and xors, whose high half is scaled to [0, n)
  // (a multiply, no division). A mix of two multiplies after the state's
  // step (SplitMix64) put a dozen cycles more between the pick and the
  // routee's cell, on every message: a random pool's tell cost 5-10% more.
  // The state is seeded odd, so never 0 (the one state xorshift keeps).
  // Threads that are no isolate share a state, raced benignly.
  std::uint64_t x = c.random.load(std::memory_order_relaxed);
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  c.random.store(x, std::memory_order_relaxed);
  return static_cast<std::uint32_t>((x >> 32) * n >> 32);
}

// The routee with the fewest queued messages, looked at from a turning
// start so that ties spread; it counts one more at once, so that the next
// pick from here sees it.
[[gnu::always_inline]] inline std::uint32_t smallest(RouterState& r, RouterCursor& c, bool shared,
                                                     std::uint32_t n) noexcept {
  const RouteeArray* a = r.routees.load(std::memory_order_acquire);
  std::uint32_t at = nextTurn(c, shared, n);
  std::uint32_t best = at;
  std::uint32_t least = ~std::uint32_t{0};
  for (std::uint32_t k = 0; k < n; ++k) {
    const RouteeGauge* g = a->slots[at].gauge.load(std::memory_order_relaxed);
    const std::uint32_t depth = g != nullptr ? g->depth.load(std::memory_order_relaxed) : 0;
    if (depth < least) {
      least = depth;
      best = at;
      if (depth == 0) break;
    }
    if (++at == n) at = 0;
  }
  if (RouteeGauge* g = a->slots[best].gauge.load(std::memory_order_relaxed)) {
    g->depth.store(least + 1, std::memory_order_relaxed);
  }
  return best;
}

[[noreturn, gnu::cold]] void throwNoKey(std::string_view type) {
  throwError(Error::ErrNoRouteKey,
             "a " + std::string(type) +
                 " told to a consistent-hash router gives no key: wrap it in HashKeyed, or "
                 "name its key with RouterOptions::withHashKey<" +
                 std::string(type) + ">");
}

template <class P>
[[gnu::always_inline]] inline std::uint64_t keyOf(const RouterState& r, const P& payload) {
  const MessageType* type = typeOf(payload);
  for (const RouterOptions::HashKeyOf& k : r.keys) {
    if (k.type != type) continue;
    if constexpr (std::is_same_v<P, Word>) {
      if (k.wordKeyCall != nullptr) return mixKey(k.wordKeyCall(payload.value));
      return mixKey(k.wordKey ? k.wordKey(payload.value) : k.key(payload.message()));
    } else {
      return mixKey(k.key(payload));
    }
  }
  throwNoKey(type != nullptr ? type->name : std::string_view("(empty)"));
}

// The routee of a message of the per-message logics.
template <class KeyOf>
std::uint32_t pick(RouterState& r, const IsolateRuntime* here, std::uint32_t n, KeyOf&& key) {
  bool shared;
  RouterCursor& c = cursorOf(r, here, shared);
  switch (r.logic) {
    case RoutingLogic::Random:
      return nextRandom(c, n);
    case RoutingLogic::ConsistentHash:
      return r.hashed(key(), n);
    case RoutingLogic::SmallestMailbox:
      return smallest(r, c, shared, n);
    default:
      return nextTurn(c, shared, n);
  }
}

// A message the router acts on itself (Broadcast, HashKeyed, the
// management messages): route() takes it. A word has a type.
bool routedSpecially(const Word& word) noexcept {
  return word.type->routedSpecially;
}
bool routedSpecially(const Message& message) noexcept {
  const MessageType* type = MessageAccess::type(message);
  return type != nullptr && type->routedSpecially;
}

// The per-message logics that pick with no key (route()'s common case).
bool keyless(RoutingLogic logic) noexcept {
  return logic == RoutingLogic::RoundRobin || logic == RoutingLogic::Random ||
         logic == RoutingLogic::SmallestMailbox;
}

bool perMessage(RoutingLogic logic) noexcept {
  return keyless(logic) || logic == RoutingLogic::ConsistentHash;
}

}  // namespace

// ---- the tell ----------------------------------------------------------------------

namespace {

// The routee `id` told the general way (ActorRef::send). Out of line, and
// reached by a jump: its arguments fit the registers, so route()'s common
// case makes no call and saves no registers.
template <class P>
[[gnu::noinline]] void tellRouteeFurther(SystemCore* core, std::uint64_t id, PayloadArg<P> payload,
                                         ActorRef sender) {
  core->sendTo<P>(id, std::move(payload), sender);
}

// This isolate's view of the routees (its cursor `c`) holds: made at the
// router's current version, and no cell here stopped, left or arrived since.
bool viewHolds(const RouterCursor& c, const IsolateRuntime& here) noexcept {
  return c.viewVersion == c.version.load(std::memory_order_acquire) &&
         c.viewEpoch == here.cellsChanged;
}

// Makes this isolate's view of `r`'s routees anew: the cell of each that
// lives here, as ActorRef::send would find it (its entry here, by its id),
// null for the others. None while the router has no routee.
void makeView(RouterState& r, RouterCursor& c, IsolateRuntime& here) {
  const std::uint64_t version = c.version.load(std::memory_order_acquire);
  const std::uint32_t n = r.count.load(std::memory_order_acquire);
  c.viewVersion = 0;
  if (n == 0) return;
  if (c.cellCapacity < n) {
    const std::uint32_t capacity = std::max<std::uint32_t>(n, 8);
    c.cells = std::make_unique<ActorCell*[]>(capacity);
    c.cellCapacity = capacity;
  }
  const RouteeArray* a = r.routees.load(std::memory_order_acquire);
  for (std::uint32_t i = 0; i < n; ++i) {
    const ActorRef routee = here.core->makeRef(a->slots[i].id.load(std::memory_order_relaxed));
    ActorCell* cell = nullptr;
    if (routee.isolateIndex() == here.index) {
      Endpoint* e = here.table.find(routee.slot(), routee.generation());
      if (e != nullptr && e->kind == Endpoint::Kind::Cell) cell = static_cast<ActorCell*>(e);
    }
    c.cells[i] = cell;
  }
  c.cellCount = n;
  if (r.logic == RoutingLogic::Random) c.randomAhead = nextRandom(c, n);
  c.viewEpoch = here.cellsChanged;
  c.viewVersion = version;
}

// Routee `i` of the view told from `here`: its cell, when it lives here
// and has room in place, else by its id the general way.
template <class P>
[[gnu::always_inline]] inline void tellRouteeAt(RouterState& r, RouterCursor& c,
                                                IsolateRuntime& here, std::uint32_t i,
                                                PayloadArg<P> payload, ActorRef sender) {
  SystemCore* core = here.core;
  if (ActorCell* cell = c.cells[i]; cell != nullptr) [[likely]] {
    if (cell->tellInPlace(std::move(payload), sender, core)) [[likely]]
      return;
  }
  tellRouteeFurther<P>(core, r.routee(i), std::move(payload), sender);
}

// smallest()'s pick and its tell, for route(): a loop, out of line, reached
// by a jump (its arguments fit the registers), so that route() keeps no
// more registers for it. The view holds.
template <class P>
[[gnu::noinline]] void routeSmallest(RouterState* r, IsolateRuntime* here, PayloadArg<P> payload,
                                     ActorRef sender) {
  RouterCursor& c = r->cursors[here->index];
  const std::uint32_t i = smallest(*r, c, false, c.cellCount);
  tellRouteeAt<P>(*r, c, *here, i, std::move(payload), sender);
}

// A consistent-hash pick (its key's function called) and its tell, for
// route(): out of line and reached by a jump, as routeSmallest().
template <class P>
[[gnu::noinline]] void routeHashed(RouterState* r, IsolateRuntime* here, PayloadArg<P> payload,
                                   ActorRef sender) {
  RouterCursor& c = r->cursors[here->index];
  const std::uint32_t i = r->hashed(keyOf(*r, payload), c.cellCount);
  tellRouteeAt<P>(*r, c, *here, i, std::move(payload), sender);
}

}  // namespace

// The common case, a logic that picks per message, from an isolate whose
// view of the routees holds, in as few steps and registers as it takes:
// it makes no call and saves few registers (a key's function call, or
// smallest()'s loop, would make every pick keep more); everything else in
// route(), reached by a jump. The routee count is the view's: a resize
// makes a new view first.
template <class P>
[[gnu::always_inline]] inline void Routers::routeHere(const ActorRef& router, PayloadArg<P> payload,
                                                      ActorRef sender, IsolateRuntime& here) {
  // The router's cursor, as this isolate kept it: no look-up in the table.
  const IsolateRuntime::RouterHit& hit = here.routerHitOf(router.slot());
  // An isolate's view is made for per-message logics only (route()).
  if (hit.router == router.id() && !routedSpecially(payload)) [[likely]] {
    RouterCursor& c = *hit.cursor;
    if (viewHolds(c, here)) [[likely]] {
      RouterState* r = c.state;
      // The logics in the order of their cost: the cheap ones test least.
      const std::uint32_t n = c.cellCount;
      if (c.logic == RoutingLogic::RoundRobin) {
        tellRouteeAt<P>(*r, c, here, nextTurn(c, false, n), std::move(payload), sender);
        return;
      }
      if (c.logic == RoutingLogic::Random) {
        const std::uint32_t i = c.randomAhead;
        c.randomAhead = nextRandom(c, n);
        tellRouteeAt<P>(*r, c, here, i, std::move(payload), sender);
        return;
      }
      if (c.logic == RoutingLogic::SmallestMailbox) {
        routeSmallest<P>(r, &here, std::move(payload), sender);
        return;
      }
      if constexpr (std::is_same_v<P, Word>) {
        // A key that is a member of the word: read from it, no call.
        if (payload.type == r->fieldType) {
          const std::uint32_t i = r->hashed(mixKey(r->field.of(payload.value)), n);
          tellRouteeAt<P>(*r, c, here, i, std::move(payload), sender);
          return;
        }
      }
      routeHashed<P>(r, &here, std::move(payload), sender);
      return;
    }
  }
  route<P>(router, std::move(payload), sender);
}

template <class P>
[[gnu::noinline]] void Routers::route(const ActorRef& router, PayloadArg<P> payload,
                                      ActorRef sender) {
  RouterState* r = table_.find(router.slot(), router.generation());
  IsolateRuntime* here = core_.currentRuntime();
  if (r == nullptr) [[unlikely]] {
    unrouted(router, Envelope{asMessage(payload), sender}, "the router has stopped");
    return;
  }
  const MessageType* type = typeOf(payload);
  if (type != nullptr && type->routedSpecially) [[unlikely]] {
    routeSpecially(*r, router, asMessage(payload), sender);
    return;
  }
  const std::uint32_t n = r->count.load(std::memory_order_acquire);
  if (n == 0) [[unlikely]] {
    unrouted(router, Envelope{asMessage(payload), sender}, "the router has no routee");
    return;
  }
  if (!perMessage(r->logic)) [[unlikely]] {
    if (r->logic == RoutingLogic::Broadcast) {
      broadcast(*r, router, asMessage(payload), sender);
    } else {
      // Scatter-gather and tail-chopping wait for replies: the head's work.
      core_.makeRef(r->headId).deliver(asMessage(payload), sender);
    }
    return;
  }
  if (here != nullptr) {
    // An isolate's view was stale, or not made yet: made now, and the
    // common case takes it from here on.
    RouterCursor& c = r->cursors[here->index];
    makeView(*r, c, *here);
    if (c.viewVersion != 0) {
      // The next tell from here finds the cursor at once (routeHere).
      here->routerHitOf(router.slot()) = {router.id(), &c};
      const std::uint32_t i = pick(*r, here, c.cellCount, [&] { return keyOf(*r, payload); });
      tellRouteeAt<P>(*r, c, *here, i, std::move(payload), sender);
      return;
    }
  }
  const std::uint32_t i = pick(*r, here, n, [&] { return keyOf(*r, payload); });
  tellRouteeFurther<P>(&core_, r->routee(i), std::move(payload), sender);
}

template void Routers::route<Word>(const ActorRef&, Word, ActorRef);
template void Routers::route<Message>(const ActorRef&, Message&&, ActorRef);

}  // namespace coreactor::detail

namespace coreactor {

// ActorRef::send's way to a router, defined here so that route() is inlined
// into it: no call between the reference and the pick.
template <class P>
[[gnu::noinline]] void ActorRef::sendRouted(detail::PayloadArg<P> payload, ActorRef sender,
                                            detail::IsolateRuntime* here) const {
  system_->routers().routeHere<P>(*this, std::move(payload), sender, *here);
}

template void ActorRef::sendRouted<detail::Word>(detail::Word, ActorRef,
                                                 detail::IsolateRuntime*) const;
template void ActorRef::sendRouted<Message>(Message&&, ActorRef, detail::IsolateRuntime*) const;

}  // namespace coreactor

namespace coreactor::detail {

void Routers::routeSpecially(RouterState& r, const ActorRef& router, Message&& message,
                             const ActorRef& sender) {
  if (Broadcast* b = message.get<Broadcast>()) {
    broadcast(r, router, std::move(b->message), sender);
    return;
  }
  if (HashKeyed* keyed = message.get<HashKeyed>()) {
    Message inner = std::move(keyed->message);
    if (r.logic != RoutingLogic::ConsistentHash) {
      route<Message>(router, std::move(inner), sender);  // the key means nothing here
      return;
    }
    const std::uint32_t n = r.count.load(std::memory_order_acquire);
    if (n == 0) {
      unrouted(router, Envelope{std::move(inner), sender}, "the router has no routee");
      return;
    }
    const std::uint64_t key = mixKey(keyed->key);
    core_.makeRef(r.routee(r.hashed(key, n))).deliver(std::move(inner), sender);
    return;
  }
  // PoisonPill, GetRoutees, AdjustPoolSize: the head's.
  core_.makeRef(r.headId).deliver(std::move(message), sender);
}

void Routers::broadcast(RouterState& r, const ActorRef& router, Message&& message,
                        const ActorRef& sender) {
  const std::uint32_t n = r.count.load(std::memory_order_acquire);
  if (n == 0) {
    unrouted(router, Envelope{std::move(message), sender}, "the router has no routee");
    return;
  }
  if (n > 1 && !message.copyable()) {
    throwError(Error::ErrInvalidOption, "a broadcast of " + std::string(message.typeName()) +
                                            ", which cannot be copied, to " + std::to_string(n) +
                                            " routees");
  }
  for (std::uint32_t i = 0; i + 1 < n; ++i)
    core_.makeRef(r.routee(i)).deliver(message.clone(), sender);
  core_.makeRef(r.routee(n - 1)).deliver(std::move(message), sender);
}

void Routers::unrouted(const ActorRef& router, Envelope&& envelope, const char* reason) {
  // An ask need not time out.
  core_.asks().failAskOf(envelope.sender, make_error_code(Error::ErrDead));
  core_.delivery().deadLetter(router, std::move(envelope), reason);
}

// ---- asks and system messages ------------------------------------------------------

ActorRef Routers::resolve(const ActorRef& router, Message& message) {
  RouterState* r = table_.find(router.slot(), router.generation());
  if (r == nullptr) return ActorRef();
  if (HashKeyed* keyed = message.get<HashKeyed>(); keyed != nullptr && perMessage(r->logic)) {
    Message inner = std::move(keyed->message);
    const std::uint64_t key = mixKey(keyed->key);
    message = std::move(inner);
    const std::uint32_t n = r->count.load(std::memory_order_acquire);
    if (n == 0) return ActorRef();
    // The key picks for consistent hashing; the other logics pick as they do.
    return core_.makeRef(r->routee(pick(*r, core_.currentRuntime(), n, [&] { return key; })));
  }
  const MessageType* type = MessageAccess::type(message);
  if ((type != nullptr && type->routedSpecially) || !perMessage(r->logic)) {
    return core_.makeRef(r->headId);  // it acts on it, broadcasts it or gathers the replies
  }
  const std::uint32_t n = r->count.load(std::memory_order_acquire);
  if (n == 0) return ActorRef();
  return core_.makeRef(
      r->routee(pick(*r, core_.currentRuntime(), n, [&] { return keyOf(*r, message); })));
}

ActorRef Routers::headOf(const ActorRef& router) {
  RouterState* r = table_.find(router.slot(), router.generation());
  return r != nullptr ? core_.makeRef(r->headId) : ActorRef();
}

// ---- making a router -----------------------------------------------------------------

ActorRef Routers::spawn(ActorCell* parent, std::string name, const RouterOptions& options,
                        ActorFactory routee, std::vector<ActorRef> group) {
  const bool pool = static_cast<bool>(routee);
  if (core_.isolateCount_ > kIsolate) {
    throwError(Error::ErrInvalidOption, "a router in a system of " +
                                            std::to_string(core_.isolateCount_) +
                                            " isolates: routers need at most 4095");
  }
  std::size_t n = 0;
  if (pool) {
    n = options.size() != 0 ? options.size() : options.perIsolate() * core_.isolateCount_;
    if (const auto& resizer = options.resizer()) {
      // A resizing pool starts at its lower bound unless given a size.
      n = options.size() != 0 ? std::clamp(n, resizer->lower(), resizer->upper())
                              : std::max<std::size_t>(resizer->lower(), 1);
    }
    if (n == 0 || n > RouterOptions::kMaxRoutees) {
      throwError(Error::ErrInvalidPoolSize, "a pool of " + std::to_string(n) + " routees: 1 to " +
                                                std::to_string(RouterOptions::kMaxRoutees));
    }
    if (options.routeeOptions().dispatcher() != nullptr && core_.isolateCount_ > 1) {
      throwError(Error::ErrInvalidOption,
                 "a pool's routees share one dispatcher instance, but they spread over " +
                     std::to_string(core_.isolateCount_) + " isolates");
    }
  } else {
    n = group.size();
    if (n == 0 || n > RouterOptions::kMaxRoutees) {
      throwError(Error::ErrInvalidPoolSize, "a group of " + std::to_string(n) + " routees: 1 to " +
                                                std::to_string(RouterOptions::kMaxRoutees));
    }
    for (const ActorRef& ref : group) {
      if (!reachable(core_, ref)) {
        throwError(Error::ErrInvalidOption, "a group's routee " + ref.path() +
                                                " is none, another system's actor, or a router");
      }
    }
    if (options.logic() == RoutingLogic::SmallestMailbox) {
      throwError(Error::ErrInvalidOption,
                 "smallest-mailbox routing reads its routees' queues: a pool only");
    }
    if (options.resizer() != nullptr) {
      throwError(Error::ErrInvalidResizer, "a group is given its routees: it does not resize");
    }
  }
  const std::uint32_t slot = table_.open();
  if (slot == RouterTable::kFull) {
    throwError(Error::ErrInvalidOption,
               "this system has made its most routers (" +
                   std::to_string(RouterTable::kChunk * RouterTable::kChunks) + ")");
  }
  RouterState& r = table_.at(slot);
  r.logic = options.logic();
  r.gauged = pool && (options.logic() == RoutingLogic::SmallestMailbox || options.resizer());
  r.keys = options.hashKeys();
  for (std::size_t i = 0; i < r.keys.size(); ++i) {
    // The first key of a type is the one keyOf() takes.
    const auto& k = r.keys[i];
    const bool first = std::none_of(r.keys.begin(), r.keys.begin() + static_cast<std::ptrdiff_t>(i),
                                    [&](const auto& e) { return e.type == k.type; });
    if (k.field.inWord && first) {
      r.fieldType = k.type;
      r.field = k.field;
      break;
    }
  }
  if (r.logic == RoutingLogic::ConsistentHash) {
    r.slots = std::make_unique<std::atomic<std::uint8_t>[]>(RouterState::kSlots);
  }
  r.cursorCount = core_.isolateCount_ + 1;
  r.cursors = std::make_unique<RouterCursor[]>(r.cursorCount);
  for (std::uint32_t i = 0; i < r.cursorCount; ++i) {
    r.cursors[i].turn.store(i, std::memory_order_relaxed);  // isolates start apart
    r.cursors[i].random.store(spread(slot * 0x10001ull + i + 1) | 1, std::memory_order_relaxed);
    r.cursors[i].state = &r;
    r.cursors[i].logic = r.logic;
    r.cursors[i].version.store(r.version.load(std::memory_order_relaxed),
                               std::memory_order_relaxed);
  }
  const ActorRef router = core_.makeRef(kIsolate, slot, RouterState::kOpen);
  auto setup = std::make_shared<const RouterSetup>(
      RouterSetup{&core_, slot, router, options, std::move(routee)});
  ActorFactory headFactory(
      [setup] { return std::unique_ptr<Actor>(std::make_unique<RouterHead>(setup)); });
  // The routees are in place, and the head stands for the router, before
  // any thread can see the head.
  const std::function<void(ActorCell&)> takeRoutees = [&](ActorCell& head) {
    head.standFor(router.id());
    r.headId = head.self().id();
    for (std::uint32_t i = 0; i < n; ++i) {
      if (pool) {
        spawnRoutee(head, r, i, setup);
      } else {
        r.setRoutee(i, group[i].id(), nullptr);
      }
    }
    r.setCount(static_cast<std::uint32_t>(n));
  };
  const SpawnExtras extras{nullptr, &takeRoutees};
  const ActorOptions headOptions = ActorOptions::create().withPinned();
  if (parent != nullptr) {
    parent->family().spawn(std::move(name), headOptions, std::move(headFactory), extras);
  } else {
    core_.spawns().spawnTopLevel(std::move(name), headOptions, std::move(headFactory), extras);
  }
  r.generation.store(RouterState::kOpen, std::memory_order_release);
  return router;
}

void Routers::spawnRoutee(ActorCell& head, RouterState& r, std::uint32_t index,
                          const std::shared_ptr<const RouterSetup>& setup) {
  RouteeGauge* gauge = r.newGauge();
  const std::string name = "$" + std::to_string(r.nextName++);
  const ActorOptions options =
      setup->options.routeeOptions().withIsolate(index % core_.isolateCount_);
  const ActorRef ref =
      core_.spawns().spawn(&head, std::string(head.path()) + "/" + name, options,
                           ActorFactory(setup->routee), nullptr, SpawnExtras{gauge, nullptr});
  head.family().adopt(ref, name);
  r.setRoutee(index, ref.id(), gauge);
}

}  // namespace coreactor::detail
