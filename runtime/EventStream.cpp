// The event stream (coreactor/EventStream.hpp): subscriptions by type
// under one lock, and delivery to each subscriber.
#include "coreactor/EventStream.hpp"

#include <algorithm>
#include <cstdio>

#include "coreactor/Error.hpp"

namespace coreactor {

EventStream::SubscriptionId EventStream::add(const void* type, Subscriber subscriber) {
  std::lock_guard<std::mutex> lock(mutex_);
  subscriber.id = nextId_++;
  byType_[type].push_back(std::move(subscriber));
  subscribed_.fetch_add(1, std::memory_order_release);
  return nextId_ - 1;
}

void EventStream::unsubscribe(SubscriptionId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [type, subs] : byType_) {
    const auto before = subs.size();
    std::erase_if(subs, [&](const Subscriber& s) { return s.id == id; });
    subscribed_.fetch_sub(before - subs.size(), std::memory_order_release);
  }
}

void EventStream::unsubscribe(const ActorRef& subscriber) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [type, subs] : byType_) {
    const auto before = subs.size();
    std::erase_if(subs, [&](const Subscriber& s) { return s.actor == subscriber; });
    subscribed_.fetch_sub(before - subs.size(), std::memory_order_release);
  }
}

void EventStream::deliver(const void* type, const void* event) {
  std::vector<Subscriber> targets;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = byType_.find(type);
    if (it == byType_.end()) return;
    targets = it->second;
  }
  for (const Subscriber& s : targets) {
    try {
      if (s.callback) {
        s.callback(event);
      } else {
        s.toActor(s.actor, event);
      }
    } catch (...) {
      subscriberFailed(type, s, std::current_exception());
    }
  }
}

void EventStream::subscriberFailed(const void* type, const Subscriber& subscriber,
                                   std::exception_ptr error) noexcept {
  const std::string_view name = static_cast<const detail::MessageType*>(type)->name;
  try {
    if (onSubscriberError_ && type != key<DispatcherError>()) {
      onSubscriberError_(name, subscriber.actor, error);
      return;
    }
  } catch (...) {
    // Reporting failed too: stderr gets the original error below.
  }
  std::fprintf(stderr, "[coreactor] an event-stream subscriber to %.*s threw: %s\n",
               static_cast<int>(name.size()), name.data(), describe(error).c_str());
}

std::size_t EventStream::count(const void* type) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byType_.find(type);
  return it == byType_.end() ? 0 : it->second.size();
}

}  // namespace coreactor
