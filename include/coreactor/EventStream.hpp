// coreactor/EventStream.hpp — the system's publish/subscribe channel (SPEC A8).
//
// Subscribe by event type, with a callback or an actor:
//   system->eventStream().subscribe<DeadLetter>([](const DeadLetter& d) { ... });
//   system->eventStream().subscribe<DispatcherError>(alarmActor);
// The runtime publishes DeadLetter (SPEC A7), DispatcherError (SPEC D11) and
// the lifecycle events below; users publish their own types.
//
// Delivery: a callback runs on the publishing thread, during publish(); an
// actor subscriber gets a copy of the event as an ordinary message. Events
// must therefore be copyable.
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
#include <unordered_map>
#include <vector>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"

namespace coreactor {

/// A message that could not be delivered (SPEC A7).
struct DeadLetter {
  ActorRef recipient;
  ActorRef sender;
  std::string messageType;
  std::string reason;
  /// The message itself, shared between subscribers.
  std::shared_ptr<const Message> message;
};

/// A failure in the machinery around a handler, or in a unit handed straight
/// to a dispatcher (SPEC D11). `actor` is none for work of no actor.
struct DispatcherError {
  std::string dispatcherId;
  std::exception_ptr cause;
  ActorRef actor;
};

/// Lifecycle events (SPEC A8).
struct ActorStarted {
  ActorRef actor;
  std::string path;
};
struct ActorRestarted {
  ActorRef actor;
  std::string path;
  std::exception_ptr cause;
};
struct ActorStopped {
  ActorRef actor;
  std::string path;
};

class EventStream {
 public:
  using SubscriptionId = std::uint64_t;

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
  void unsubscribe(SubscriptionId id);
  /// Removes every subscription of `subscriber` (for all types).
  void unsubscribe(const ActorRef& subscriber);

  template <class E>
  void publish(const E& event) {
    if (subscribed_.load(std::memory_order_acquire) == 0) return;
    deliver(key<E>(), &event);
  }
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

  mutable std::mutex mutex_;
  std::unordered_map<const void*, std::vector<Subscriber>> byType_;
  std::atomic<std::size_t> subscribed_{0};
  SubscriptionId nextId_ = 1;
};

}  // namespace coreactor
