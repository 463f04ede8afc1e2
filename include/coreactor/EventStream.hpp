/// @file
/// `coreactor/EventStream.hpp` — the system's publish/subscribe channel (requirement A8).
//
// Subscribe by event type, with a callback or an actor:
//   system->eventStream().subscribe<DeadLetter>([](const DeadLetter& d) { ... });
//   system->eventStream().subscribe<DispatcherError>(alarmActor);
// The runtime publishes DeadLetter (requirement A7), DispatcherError (requirement D11) and
// the lifecycle events below; users publish their own types.
//
// Delivery: a callback runs on the publishing thread, during publish(); an
// actor subscriber gets a copy of the event as an ordinary message. Events
// must therefore be copyable. A subscriber that throws never reaches the
// publisher: the other subscribers still get the event, and the throw is
// reported as a dispatcher error is (the system's log and a DispatcherError
// event whose dispatcherId is "event-stream"; stderr for a stream of no
// system, or when the failing event was itself a DispatcherError).
//
// Thread-safety: every call, from any thread. Cost: publish takes a lock and
// copies the subscriber list of that type; a type nobody subscribed to costs
// one atomic load (so the runtime can publish lifecycle events for free).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"

namespace coreactor {

/// A message that could not be delivered (requirement A7).
struct DeadLetter {
  ActorRef recipient;       ///< whom it was sent to
  ActorRef sender;          ///< who sent it (none for a message without a sender)
  std::string messageType;  ///< the message's type name, e.g. "Ping"
  std::string reason;       ///< why, e.g. "the actor has stopped"
  /// The message itself, shared between subscribers.
  std::shared_ptr<const Message> message;
};

/// A failure in the machinery around a handler, or in a unit handed straight
/// to a dispatcher (requirement D11). `actor` is none for work of no actor.
struct DispatcherError {
  std::string dispatcherId;  ///< the id() of the dispatcher that ran the work
  std::exception_ptr cause;  ///< what was thrown
  ActorRef actor;            ///< whose work it was; none for work of no actor
};

// Lifecycle events (requirement A8).

/// An actor has started: it was made and its preStart has run.
struct ActorStarted {
  ActorRef actor;    ///< the actor
  std::string path;  ///< its path, e.g. "/user/parent/child"
};
/// An actor was restarted after a failure: a new instance, its postRestart run.
struct ActorRestarted {
  ActorRef actor;            ///< the actor (the same reference as before)
  std::string path;          ///< its path
  std::exception_ptr cause;  ///< the failure that led to the restart
};
/// An actor has fully stopped: its postStop has run and its watchers were told.
struct ActorStopped {
  ActorRef actor;    ///< the actor
  std::string path;  ///< its path
};

/// The system's publish/subscribe channel, by event type. Every call may be
/// made from any thread; the file comment says how events are delivered.
class EventStream {
 public:
  /// Names one subscription, for unsubscribe().
  using SubscriptionId = std::uint64_t;

  /// Calls `callback` with each event of type E, on the publishing thread,
  /// during publish().
  template <class E>
  SubscriptionId subscribe(std::function<void(const E&)> callback) {
    return add(key<E>(), Subscriber{ActorRef(),
                                    [cb = std::move(callback)](const void* e) {
                                      cb(*static_cast<const E*>(e));
                                    },
                                    nullptr});
  }
  /// The actor receives each event of type E as a message (a copy).
  template <class E>
  SubscriptionId subscribe(const ActorRef& subscriber) {
    return add(key<E>(), Subscriber{subscriber, nullptr, [](const ActorRef& to, const void* e) {
                                      to.tell(*static_cast<const E*>(e));
                                    }});
  }
  /// Ends one subscription; an id that names none does nothing.
  void unsubscribe(SubscriptionId id);
  /// Removes every subscription of `subscriber` (for all types).
  void unsubscribe(const ActorRef& subscriber);

  /// Hands `event` to every subscriber of E: callbacks run now, on this
  /// thread; actors get a copy as a message. One atomic load while the stream
  /// has no subscriber of any type; otherwise a lock and a copy of E's list.
  template <class E>
  void publish(const E& event) {
    if (subscribed_.load(std::memory_order_acquire) == 0) return;
    deliver(key<E>(), &event);
  }
  /// True if anyone subscribed to E. One atomic load while the stream has no
  /// subscriber of any type; otherwise a lock.
  template <class E>
  bool hasSubscribers() const {
    if (subscribed_.load(std::memory_order_acquire) == 0) return false;
    return count(key<E>()) != 0;
  }

 private:
  struct Subscriber {
    ActorRef actor;
    std::function<void(const void*)> callback;
    void (*toActor)(const ActorRef&, const void*);
    SubscriptionId id = 0;
  };
  template <class E>
  static const void* key() noexcept {
    return &detail::MessageTypeOf<E, Message::storedInline<E>>::kType;
  }
  SubscriptionId add(const void* type, Subscriber subscriber);
  void deliver(const void* type, const void* event);
  std::size_t count(const void* type) const;
  void subscriberFailed(const void* type, const Subscriber& subscriber,
                        std::exception_ptr error) noexcept;

  friend class detail::SystemCore;
  /// Where a subscriber's throw goes (set by the system that owns the
  /// stream): the event's type name, the subscriber (none for a callback),
  /// what it threw. Unset: stderr.
  std::function<void(std::string_view, const ActorRef&, std::exception_ptr)> onSubscriberError_;
  mutable std::mutex mutex_;
  std::unordered_map<const void*, std::vector<Subscriber>> byType_;
  std::atomic<std::size_t> subscribed_{0};
  SubscriptionId nextId_ = 1;
};

}  // namespace coreactor
