// An actor's mailbox (SPEC A4): unbounded FIFO on a ring, bounded FIFO with
// an overflow policy, or a stable priority queue. Isolate-local: only the
// actor's isolate touches it. What a bounded mailbox refuses or evicts is
// handed back to the caller, who dead-letters it: nothing disappears here.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ObjectRing.hpp"
#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"

namespace coreactor::detail {

struct Envelope {
  Message message;
  ActorRef sender;
};

class Mailbox {
 public:
  enum class Push {
    Queued,   ///< accepted
    Refused,  ///< not accepted; the envelope is in *displaced
    Evicted,  ///< accepted; the oldest message was pushed out into *displaced
  };

  /// An unbounded mailbox costs one envelope slot and a ring header, and
  /// allocates nothing until two messages wait at once; bounded and
  /// priority ones keep their settings aside.
  explicit Mailbox(const MailboxOptions& options);

  bool empty() const noexcept {
    return isPriority() ? special_->heap.empty() : !hasFirst() && fifo_.empty();
  }
  std::size_t size() const noexcept {
    return isPriority() ? special_->heap.size() : (hasFirst() ? 1 : 0) + fifo_.size();
  }

  /// The unbounded mailbox's push; false (and nothing moved) for the others.
  bool tryPushUnbounded(Envelope&& envelope) {
    if (special_ != nullptr) return false;
    pushUnbounded(std::move(envelope));
    return true;
  }

  Push push(Envelope&& envelope, Envelope* displaced) {
    if (special_ == nullptr) [[likely]] {
      pushUnbounded(std::move(envelope));
      return Push::Queued;
    }
    return pushSlow(std::move(envelope), displaced);
  }
  /// Precondition: !empty().
  Envelope pop() {
    if (hasFirst()) return std::move(first_);  // leaves first_.message empty
    if (!isPriority()) [[likely]] {
      return fifo_.pop();
    }
    return popPriority();
  }
  /// Gives the ring's memory back once empty (an idle actor keeps none).
  void shrinkIfIdle() noexcept { fifo_.shrinkIdle(); }
  OverflowPolicy overflow() const noexcept {
    return special_ != nullptr ? special_->options.overflow() : OverflowPolicy::DropNewest;
  }

 private:
  struct Ranked {
    int priority;
    std::uint64_t seq;
    Envelope envelope;
  };
  struct Special {
    MailboxOptions options;
    std::vector<Ranked> heap;
    std::uint64_t nextSeq = 0;
  };
  bool isPriority() const noexcept {
    return special_ != nullptr && special_->options.kind() == MailboxOptions::Kind::Priority;
  }
  Push pushSlow(Envelope&& envelope, Envelope* displaced);
  Envelope popPriority();
  // The unbounded mailbox keeps its oldest message in first_ when nothing
  // else waits: an actor that gets one message at a time (a ping-pong, an
  // idle actor's occasional message) never touches a ring buffer at all.
  // FIFO holds: first_ is filled only when the ring is empty, and popped
  // before it. (An empty Message, which anyone may send, takes the ring:
  // first_ is free exactly when its message is empty.)
  bool hasFirst() const noexcept { return !first_.message.empty(); }
  void pushUnbounded(Envelope&& envelope) {
    if (!hasFirst() && fifo_.empty() && !envelope.message.empty()) {
      first_ = std::move(envelope);
    } else {
      fifo_.push(std::move(envelope));
    }
  }

  Envelope first_;
  ObjectRing<Envelope> fifo_;
  std::unique_ptr<Special> special_;
};

}  // namespace coreactor::detail
