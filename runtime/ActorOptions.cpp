// The builders of an actor's options (coreactor/ActorOptions.hpp):
// MailboxOptions and ActorOptions. Each returns a copy with one value
// changed, after checking it: a bad value is its named error at the call.
#include "coreactor/ActorOptions.hpp"

#include "coreactor/Error.hpp"

namespace coreactor {

MailboxOptions MailboxOptions::bounded(std::size_t capacity, OverflowPolicy policy) {
  if (capacity == 0) throwError(Error::ErrInvalidCapacity, "MailboxOptions::bounded(0)");
  MailboxOptions m;
  m.kind_ = Kind::Bounded;
  m.capacity_ = capacity;
  m.overflow_ = policy;
  return m;
}

MailboxOptions MailboxOptions::priority(PriorityOf priorityOf) {
  if (!priorityOf)
    throwError(Error::ErrInvalidOption, "MailboxOptions::priority without a function");
  MailboxOptions m;
  m.kind_ = Kind::Priority;
  m.priorityOf_ = std::move(priorityOf);
  return m;
}

ActorOptions ActorOptions::withDispatcher(std::shared_ptr<Dispatcher> dispatcher) const {
  if (dispatcher == nullptr) throwError(Error::ErrInvalidOption, "withDispatcher(nullptr)");
  ActorOptions o = *this;
  o.dispatcher_ = std::move(dispatcher);
  return o;
}

ActorOptions ActorOptions::withThroughput(std::size_t messagesPerTurn) const {
  if (messagesPerTurn == 0) throwError(Error::ErrInvalidThroughput, "withThroughput(0)");
  ActorOptions o = *this;
  o.throughput_ = messagesPerTurn;
  return o;
}

ActorOptions ActorOptions::withMailbox(MailboxOptions mailbox) const {
  ActorOptions o = *this;
  o.mailbox_ = std::move(mailbox);
  return o;
}

ActorOptions ActorOptions::withIsolate(std::size_t index) const {
  ActorOptions o = *this;
  o.isolate_ = index;
  return o;
}

ActorOptions ActorOptions::withPassivation(std::chrono::nanoseconds idleTimeout) const {
  if (idleTimeout <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidOption, "withPassivation needs a positive idle timeout, got " +
                                            std::to_string(idleTimeout.count()) + " ns");
  }
  ActorOptions o = *this;
  o.passivation_ = idleTimeout;
  return o;
}

ActorOptions ActorOptions::withStash(std::size_t capacity, StashOnRestart onRestart) const {
  if (capacity == 0) throwError(Error::ErrInvalidCapacity, "withStash needs a capacity above 0");
  ActorOptions o = *this;
  o.stashCapacity_ = capacity;
  o.stashOnRestart_ = onRestart;
  return o;
}

ActorOptions ActorOptions::withIsolateOf(const ActorRef& peer) const {
  ActorOptions o = *this;
  o.near_ = peer;
  o.nearAsked_ = true;
  return o;
}

ActorOptions ActorOptions::withKey(std::string key) const {
  ActorOptions o = *this;
  o.key_ = std::move(key);
  return o;
}

ActorOptions ActorOptions::withRoundRobin() const {
  ActorOptions o = *this;
  o.roundRobin_ = true;
  return o;
}

}  // namespace coreactor
