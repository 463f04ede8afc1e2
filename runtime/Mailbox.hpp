// An actor's mailbox (SPEC A4): unbounded FIFO in segments, bounded FIFO with
// an overflow policy, or a stable priority queue. Isolate-local: only the
// actor's isolate touches it. What a bounded mailbox refuses or evicts is
// handed back to the caller, who dead-letters it: nothing disappears here.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "MailFifo.hpp"
#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"

namespace coreactor::detail {

class SystemCore;

class Mailbox {
 public:
  enum class Push {
    Queued,   ///< accepted
    Refused,  ///< not accepted; the envelope is in *displaced
    Evicted,  ///< accepted; the oldest message was pushed out into *displaced
  };

  /// An unbounded mailbox costs a word-sized message slot and a FIFO
  /// header (56 bytes in all), and allocates nothing while its messages
  /// come one at a time; bounded and priority ones keep their settings
  /// aside. The `system` that pushes and pops take is the system of the
  /// actor it belongs to: senders of that system are kept as ids.
  explicit Mailbox(const MailboxOptions& options);

  bool empty() const noexcept {
    if (!hasFirst() && fifo_.empty()) [[likely]] {
      return !isPriority() || special_->heap.empty();
    }
    return false;  // a priority mailbox keeps first_ and the FIFO empty
  }
  /// The messages held: for tests and diagnostics.
  std::size_t size() const noexcept {
    return isPriority() ? special_->heap.size() : (hasFirst() ? 1 : 0) + fifo_.size();
  }

  /// The unbounded mailbox's push; false (and nothing moved) for the
  /// others. A word (a Word, or a Message of a word type) goes into the
  /// word slot when the mailbox is empty, else into a cell of its own.
  template <class P>
  bool tryPush(P&& payload, const ActorRef& sender, SystemCore* system) {
    if (special_ != nullptr) return false;
    pushUnbounded(std::forward<P>(payload), sender, system);
    return true;
  }
  /// tryPush() with no call: also false, nothing done, when the FIFO needs
  /// a new segment.
  template <class P>
  [[gnu::always_inline]] bool tryPushInPlace(P&& payload, const ActorRef& sender,
                                             SystemCore* system) noexcept {
    if (special_ != nullptr) return false;
    if constexpr (std::is_same_v<std::decay_t<P>, Word>) {
      return takeFirst(payload, sender, system) || fifo_.tryPushInPlace(payload, sender);
    } else {
      if (Word::in(payload)) {
        if (!tryPushInPlace(Word::of(payload), sender, system)) return false;
        MessageAccess::setType(payload, nullptr);  // a word: nothing to destroy
        return true;
      }
      return fifo_.tryPushInPlace(std::move(payload), sender);
    }
  }

  Push push(Envelope&& envelope, Envelope* displaced, SystemCore* system) {
    if (special_ == nullptr) [[likely]] {
      pushUnbounded(std::move(envelope.message), envelope.sender, system);
      return Push::Queued;
    }
    return pushSlow(std::move(envelope), displaced);
  }
  /// Precondition: !empty().
  Envelope pop(SystemCore* system) {
    if (hasFirst()) return popFirst(system);
    if (special_ == nullptr) [[likely]] {
      return popFifo();
    }
    return popSpecial();
  }
  /// Hands the oldest message to `handle`, then drops it. An unbounded
  /// mailbox's queued envelope is handled where it lies, not moved out
  /// first, and a queued word's Message is built on the stack from its
  /// cell: pushes during `handle` go behind it and leave the cell in place.
  /// Nothing else may pop meanwhile. Precondition: !empty().
  ///
  /// `handle(Message&, const ActorRef& sender)`. The word slot's sender is
  /// made in registers and handed over apart from its message: built in an
  /// Envelope on the stack, it was stored as two 8-byte halves and then
  /// copied as one 16-byte load, which the store buffer cannot forward
  /// (perf: the stall was a quarter of actor/pingpong/10000).
  template <class Handle>
  [[gnu::always_inline]] void consume(SystemCore* system, Handle&& handle) {
    if (hasFirst()) {
      consumeWord(system, handle);
    } else if (special_ == nullptr) [[likely]] {
      fifo_.consumeFront(OnWord<Handle>{handle}, OnEnvelope<Handle>{handle});
    } else {
      Envelope envelope = popSpecial();
      handle(envelope.message, envelope.sender);
    }
  }
  /// consume() of the word in the slot. Precondition: hasWord().
  template <class Handle>
  [[gnu::always_inline]] void consumeWord(SystemCore* system, Handle&& handle) {
    const ActorRef sender = firstSender(system);
    Message message = takeFirstMessage();
    handle(message, sender);
  }
  /// Unbounded (neither bounded nor by priority) and holding nothing.
  bool unboundedAndEmpty() const noexcept {
    return special_ == nullptr && !hasFirst() && fifo_.empty();
  }
  /// The oldest message is the word in the slot (consume() takes it first).
  bool hasWord() const noexcept { return hasFirst(); }
  /// The oldest message is in the unbounded FIFO (not in the word slot, and
  /// the mailbox is neither bounded nor by priority): consumeFifoRun() may go.
  bool fifoFirst() const noexcept { return !hasFirst() && special_ == nullptr && !fifo_.empty(); }
  /// consume() of up to `max` messages in a row from the unbounded FIFO,
  /// while `go()` holds after each (MailFifo::consumeRun); returns how
  /// many it handled. Precondition: fifoFirst(), max > 0.
  template <class Handle, class Go>
  [[gnu::always_inline]] std::uint32_t consumeFifoRun(std::uint32_t max, Handle&& handle, Go&& go) {
    return fifo_.consumeRun(max, OnWord<Handle>{handle}, OnEnvelope<Handle>{handle}, go);
  }
  /// Gives the FIFO's memory back once empty (an idle actor keeps none).
  void shrinkIfIdle() noexcept { fifo_.shrinkIdle(); }
  /// A bounded FIFO: what it refuses or evicts, it does for want of room.
  bool isBounded() const noexcept {
    return special_ != nullptr && special_->options.kind() == MailboxOptions::Kind::Bounded;
  }
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
    std::size_t queued = 0;  // bounded: what the FIFO holds
  };
  bool isPriority() const noexcept {
    return special_ != nullptr && special_->options.kind() == MailboxOptions::Kind::Priority;
  }
  Push pushSlow(Envelope&& envelope, Envelope* displaced);
  Envelope popSpecial();

  // The FIFO's two kinds of entry handed to a consume() handler: a word
  // cell's message is built on the stack (a type and a 16-byte store; the
  // handler may move from it), an envelope's is handled where it lies.
  template <class Handle>
  struct OnWord {
    Handle& handle;
    [[gnu::always_inline]] void operator()(const MessageType* type, std::uint64_t word,
                                           const ActorRef& sender) const {
      Message message = MessageAccess::make(type, word);
      handle(message, sender);
    }
  };
  template <class Handle>
  struct OnEnvelope {
    Handle& handle;
    [[gnu::always_inline]] void operator()(Envelope& envelope) const {
      handle(envelope.message, envelope.sender);
    }
  };
  // Into the FIFO: a word message as a word cell (any sender), anything
  // else as an envelope.
  void pushFifo(Message&& message, const ActorRef& sender) {
    if (Word::in(message)) {
      fifo_.push(Word::of(message), sender);
      MessageAccess::setType(message, nullptr);  // a word: nothing to destroy
    } else {
      fifo_.push(std::move(message), sender);
    }
  }
  // The FIFO's oldest message, moved out. Precondition: !fifo_.empty().
  Envelope popFifo() noexcept {
    Envelope out;
    const auto take = [&out](Message& message, const ActorRef& sender) noexcept {
      out = Envelope{std::move(message), sender};
    };
    fifo_.consumeFront(OnWord<decltype(take)>{take}, OnEnvelope<decltype(take)>{take});
    return out;
  }
  // The unbounded mailbox keeps its oldest message in first_ when nothing
  // else waits and the message is a word (a trivially copyable value of up
  // to 8 bytes: Message's `word` types) from a sender of this system, or
  // from none: an actor that gets such messages one at a time (a
  // ping-pong, an idle actor's occasional message) never touches a segment
  // buffer at all, and the slot is 24 bytes where an envelope is 64.
  // FIFO holds: first_ is filled only when the FIFO is empty, and popped
  // before it. first_ is free exactly when its type is null.
  struct First {
    const MessageType* type = nullptr;
    std::uint64_t word = 0;
    std::uint64_t sender = 0;  // the sender's id, kNoSender for none
  };
  static constexpr std::uint64_t kNoSender = ~std::uint64_t{0};
  bool hasFirst() const noexcept { return first_.type != nullptr; }
  // Keeps a word in first_ if first_ and the queue are empty and the sender
  // is of `system` or none (it is kept as an id); false, nothing done, else.
  bool takeFirst(Word word, const ActorRef& sender, SystemCore* system) noexcept {
    if (hasFirst() || !fifo_.empty() || (sender.system_ != system && sender.system_ != nullptr)) {
      return false;
    }
    first_ = First{word.type, word.value, sender.system_ != nullptr ? sender.id_ : kNoSender};
    return true;
  }
  void pushUnbounded(Word word, const ActorRef& sender, SystemCore* system) {
    if (!takeFirst(word, sender, system)) fifo_.push(word, sender);
  }
  void pushUnbounded(Message&& message, const ActorRef& sender, SystemCore* system) {
    if (Word::in(message) && takeFirst(Word::of(message), sender, system)) {
      MessageAccess::setType(message, nullptr);  // a word: nothing to destroy
      return;
    }
    pushFifo(std::move(message), sender);
  }
  Envelope popFirst(SystemCore* system) noexcept {
    const ActorRef sender = firstSender(system);
    return Envelope{takeFirstMessage(), sender};
  }
  /// The sender of the word in first_. Precondition: hasFirst().
  ActorRef firstSender(SystemCore* system) const noexcept {
    return first_.sender != kNoSender ? ActorRef(system, first_.sender) : ActorRef();
  }
  /// The word in first_ as a Message; first_ is free again. Precondition: hasFirst().
  Message takeFirstMessage() noexcept {
    return MessageAccess::make(std::exchange(first_.type, nullptr), first_.word);
  }

  // 63 cells of 32 bytes and a link: one 2 KiB block of the cache. A burst
  // of words pays for a segment (taken, then given back) once per 63 messages.
  static constexpr std::uint32_t kSegmentCells = 63;
  First first_;
  MailFifo<kSegmentCells> fifo_;
  std::unique_ptr<Special> special_;
};

}  // namespace coreactor::detail
