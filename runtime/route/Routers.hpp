// A system's routers (coreactor/Router.hpp): the table senders read
// (RouterTable.hpp), the pick a tell to a router makes on the sender's
// thread, where an ask or a system message to a router goes, and the making
// of routers and of a pool's routees (runtime/route/Route.cpp). SystemCore
// hands every reference of a router here (isRouter).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coreactor/Actor.hpp"
#include "runtime/route/RouterTable.hpp"

namespace coreactor::detail {

class ActorCell;
class SystemCore;
struct IsolateRuntime;
struct Envelope;
struct RouterSetup;

class Routers {
 public:
  explicit Routers(SystemCore& core) noexcept : core_(core) {}
  Routers(const Routers&) = delete;
  Routers& operator=(const Routers&) = delete;

  /// The isolate field of a router's reference (never an isolate of a
  /// system that has routers: those have at most 4095).
  static constexpr std::uint32_t kIsolate = 0xFFF;
  /// True once any router was made: the send path looks here only then.
  bool any() const noexcept { return table_.any(); }
  /// A reference of this system's router (living or not). No call; defined
  /// in SystemCore.hpp, as it asks SystemCore::minted.
  bool isRouter(const ActorRef& ref) const noexcept;
  /// The routers' state, by slot.
  RouterTable& table() noexcept { return table_; }

  /// A tell to `router`: the routee picked here, on the sender's thread,
  /// and the message on to it as a direct tell. Any thread. Throws
  /// ErrNoRouteKey (a consistent-hash router and a message with no key)
  /// and ErrInvalidOption (a broadcast of a message that cannot be copied).
  template <class P>
  void route(const ActorRef& router, PayloadArg<P> payload, ActorRef sender);
  /// route() from `here`, the runtime of the system's isolate whose loop
  /// runs on this thread (ActorRef::send's way to a router): its common
  /// case makes no call, the rest goes on in route().
  template <class P>
  void routeHere(const ActorRef& router, PayloadArg<P> payload, ActorRef sender,
                 IsolateRuntime& here);
  /// Makes a router under `parent` (nullptr: top-level): a pool when
  /// `routee` holds a factory, else a group of `group`. Throws the named
  /// errors of coreactor/Router.hpp.
  ActorRef spawn(ActorCell* parent, std::string name, const RouterOptions& options,
                 ActorFactory routee, std::vector<ActorRef> group);
  /// Where an ask of `message` (or a system message) to a router goes: the
  /// routee its logic picks, or the head (for the logics that wait for
  /// replies, and the messages a router acts on); none once it stopped. A
  /// HashKeyed message is unwrapped.
  ActorRef resolve(const ActorRef& router, Message& message);
  /// The head of a living router, or none.
  ActorRef headOf(const ActorRef& router);
  /// A routee of `r` at `index`, spawned under its head and adopted by it.
  void spawnRoutee(ActorCell& head, RouterState& r, std::uint32_t index,
                   const std::shared_ptr<const RouterSetup>& setup);
  /// A message a router cannot route (it stopped, or has no routee): a
  /// dead letter, and an ask among them fails at once.
  void unrouted(const ActorRef& router, Envelope&& envelope, const char* reason);

 private:
  // A message a router acts on itself (kRoutedSpecially).
  void routeSpecially(RouterState& r, const ActorRef& router, Message&& message,
                      const ActorRef& sender);
  // A copy of `message` to every routee of `r` (the last gets the original).
  void broadcast(RouterState& r, const ActorRef& router, Message&& message, const ActorRef& sender);

  SystemCore& core_;
  RouterTable table_;
};

}  // namespace coreactor::detail
