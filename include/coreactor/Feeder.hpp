/// @file
/// `coreactor/Feeder.hpp` — feeding actors from a foreign thread
/// (the main thread, a thread pool, a library's callback), in batches.
//
//   coreactor::Feeder feeder(*system);       // one per producing thread
//   for (const Order& o : orders) feeder.tell(router, o);
//   feeder.flush();                           // or let it go out of scope
//
// A plain tell from such a thread goes into the target isolate's foreign
// inbox one message at a time (a lock-free enqueue and a wake-up check). A
// Feeder gathers what it is told per target isolate in a batch and queues
// the whole batch into that isolate's inbox as one item, with a producer
// token of its own, waking the isolate once; the isolate delivers straight
// from the batch. The way to feed actors at the rate a producer makes
// messages (bench isolates/foreign/*, docs/isolates.md).
//
// Delivery: a message is delivered once its batch is flushed: when `batch`
// messages for its isolate have gathered, at flush(), or when the Feeder is
// destroyed. Order: the messages of one Feeder to one actor keep their
// order; against the same thread's plain tells (another producer) they have
// none. A tell to an actor of another system, or from one of the system's
// own isolates (where a tell is already cheap and ordered with the
// isolate's other sends), goes the plain way at once.
//
// Backpressure (requirement X3): a flush waits, as a plain tell from such
// a thread does, while the isolate's foreign inbox holds
// ActorSystemOptions::withForeignInboxLimit letters. A flush to an isolate
// that has stopped makes its messages dead letters. Nothing is lost.
//
// Thread-safety: one thread at a time uses a Feeder (move it to hand it
// over). It must not outlive its system.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"

namespace coreactor {

class ActorSystem;
namespace detail {
class FeederState;
}

/// Tells to actors from a foreign thread, gathered per isolate
/// and moved into its inbox in bulk. See the file comment.
class Feeder {
 public:
  /// Messages gathered for one isolate before they are moved in at once.
  static constexpr std::size_t kDefaultBatch = 256;

  /// A Feeder of `system`'s actors that moves each isolate's messages in
  /// batches of `batch` (ErrInvalidOption for 0).
  explicit Feeder(ActorSystem& system, std::size_t batch = kDefaultBatch);
  /// Flushes what is gathered.
  ~Feeder();
  /// Takes over `other`'s gathered messages; `other` is left empty.
  Feeder(Feeder&& other) noexcept;
  /// Flushes this Feeder's messages, then takes over `other`'s.
  Feeder& operator=(Feeder&& other) noexcept;
  Feeder(const Feeder&) = delete;
  Feeder& operator=(const Feeder&) = delete;

  /// Gathers `message` (any move-constructible value, or a Message) for `to`.
  template <class M>
  void tell(const ActorRef& to, M&& message, ActorRef sender = ActorRef()) {
    put(to, Message(std::forward<M>(message)), sender);
  }
  /// Moves everything gathered into the isolates' inboxes, and wakes each once.
  void flush();
  /// Messages gathered and not yet flushed.
  std::size_t pending() const noexcept;

 private:
  void put(const ActorRef& to, Message&& message, ActorRef sender);
  std::unique_ptr<detail::FeederState> state_;
};

}  // namespace coreactor
