// The unbounded mailbox's queue (SPEC A4): its messages in arrival order, in
// segments of 32-byte cells. A word message (Message's `word` types: a
// trivially copyable value of up to 8 bytes) takes one cell, its type, its
// word and its sender: two to a cache line. Any other message takes two
// cells, as an Envelope (a line, or the halves of two). A burst of
// small tells (the common flood) so writes and reads half the memory: a
// batch of 1,000 is 32 KiB of cells, not 64.
//
// A cell tells which it is by its first 8 bytes: a word cell's type
// address with its lowest bit set, an envelope's Message type (aligned, so
// that bit is clear; null for an empty message). An envelope does not fit
// a segment's last cell: it starts the next segment, and that cell, left
// empty, says so (kSkip).
//
// Otherwise as SegmentFifo (SegmentChain.hpp): a 24-byte header that counts
// the entries, nothing allocated while empty and idle, segments from and
// back to the thread's block cache (63 cells and a link in 2 KiB), the last
// segment kept while the owner is busy and given back by shrinkIdle().
// Single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"
#include "isolate/BlockCache.hpp"
#include "isolate/SegmentChain.hpp"

namespace coreactor::detail {

struct Envelope {
  Message message;
  ActorRef sender;
};

/// A MailFifo's segment: kCells cells of 32 bytes, line-aligned, and a link.
template <std::uint32_t kCells>
struct MailSegment {
  static constexpr std::size_t kCell = 32;
  alignas(BlockCache::kLineAlignment) unsigned char cells[kCells * kCell];
  MailSegment* next = nullptr;
  unsigned char* at(std::uint32_t i) noexcept { return cells + std::size_t{i} * kCell; }
};

template <std::uint32_t kCells>
class MailFifo : public SegmentChain<MailSegment<kCells>, kCells> {
  using Segment = MailSegment<kCells>;
  using Chain = SegmentChain<Segment, kCells>;
  using Chain::head_, Chain::tail_, Chain::headIndex_, Chain::tailIndex_, Chain::size_;
  static constexpr std::size_t kCell = Segment::kCell;
  struct WordCell {
    std::uintptr_t taggedType;  // the MessageType's address | 1
    std::uint64_t word;
    ActorRef sender;
  };
  static_assert(sizeof(WordCell) == kCell && std::is_trivially_copyable_v<ActorRef>);
  static_assert(sizeof(Envelope) == 2 * kCell && alignof(Envelope) <= kCell);
  // An envelope's first 8 bytes are its Message's type, an aligned address.
  static_assert(std::is_standard_layout_v<Envelope> && std::is_standard_layout_v<Message>);
  static_assert(alignof(MessageType) >= 4);
  // A segment's last cell, when an envelope did not fit it: no address.
  static constexpr std::uintptr_t kSkip = 2;
  static_assert(kCells >= 2, "an envelope fits a segment");

 public:
  MailFifo() = default;
  MailFifo(MailFifo&&) noexcept = default;
  ~MailFifo() {
    while (!this->empty()) {
      consumeFront([](const MessageType*, std::uint64_t, const ActorRef&) noexcept {},
                   [](Envelope&) noexcept {});
    }
    this->shrinkIdle();
  }

  /// Appends a word message (its type's `word` flag set) and its sender,
  /// in one cell.
  void push(Word word, const ActorRef& sender) {
    if (tailIndex_ == kCells) [[unlikely]] {  // the tail is full, or there is none
      this->addSegment();
    }
    write(word, sender);
  }
  /// Appends any message, moved from `message`, as an envelope of two cells
  /// (a word message too, though push(Word) keeps one in half the room).
  void push(Message&& message, const ActorRef& sender) {
    if (tailIndex_ + 2u > kCells) [[unlikely]] {
      if (tailIndex_ == kCells - 1) std::memcpy(tail_->at(tailIndex_), &kSkip, sizeof kSkip);
      this->addSegment();
    }
    write(std::move(message), sender);
  }
  /// push() while the tail segment has room: false, and nothing done (a
  /// Message is left as it was), when a segment would have to be added. No
  /// call on the true path.
  [[gnu::always_inline]] bool tryPushInPlace(Word word, const ActorRef& sender) noexcept {
    if (tailIndex_ == kCells) [[unlikely]] {
      return false;
    }
    write(word, sender);
    return true;
  }
  [[gnu::always_inline]] bool tryPushInPlace(Message&& message, const ActorRef& sender) noexcept {
    if (tailIndex_ + 2u > kCells) [[unlikely]] {
      return false;
    }
    write(std::move(message), sender);
    return true;
  }

  /// Hands the oldest entry, where it lies, to `onWord(const MessageType*,
  /// std::uint64_t word, const ActorRef& sender)` or to
  /// `onEnvelope(Envelope&)`, then drops it (also when the handler throws:
  /// it was handed over). The handler may push (behind it); nothing else
  /// may pop meanwhile. Precondition: !empty().
  template <class OnWord, class OnEnvelope>
  [[gnu::always_inline]] void consumeFront(OnWord&& onWord, OnEnvelope&& onEnvelope) {
    std::uint32_t index = headIndex_;
    consumeAt(head_, index, onWord, onEnvelope);
  }

  /// The oldest entry starts a segment (or the queue is empty): for tests.
  bool atSegmentStart() const noexcept { return headIndex_ == 0 || this->empty(); }

  /// consumeFront() of the oldest entries one after the other while `go()`
  /// says to go on: at most `max` of them, and only those of the oldest
  /// segment. Returns how many it handled. The position of the next entry
  /// stays in registers across the handlers: the run reads the segment and
  /// the index once. Precondition: !empty(), max > 0.
  template <class OnWord, class OnEnvelope, class Go>
  [[gnu::always_inline]] std::uint32_t consumeRun(std::uint32_t max, OnWord&& onWord,
                                                  OnEnvelope&& onEnvelope, Go&& go) {
    Segment* const segment = head_;
    std::uint32_t index = headIndex_;
    std::uint32_t done = 0;
    for (;;) {
      // False once the queue emptied or the head moved on to the next
      // segment (this one was given back).
      const bool more = consumeAt(segment, index, onWord, onEnvelope);
      ++done;
      if (!more || done == max || !go()) return done;
    }
  }

 private:
  [[gnu::always_inline]] void write(Word word, const ActorRef& sender) noexcept {
    ::new (static_cast<void*>(tail_->at(tailIndex_)))
        WordCell{reinterpret_cast<std::uintptr_t>(word.type) | 1u, word.value, sender};
    ++tailIndex_;
    ++size_;
  }
  [[gnu::always_inline]] void write(Message&& message, const ActorRef& sender) noexcept {
    ::new (static_cast<void*>(tail_->at(tailIndex_))) Envelope{std::move(message), sender};
    tailIndex_ = static_cast<std::uint16_t>(tailIndex_ + 2u);
    ++size_;
  }

  // Handles the entry at `index` of `segment` (the oldest) and drops it;
  // `index` becomes the next one's. True if that one is in `segment`.
  template <class OnWord, class OnEnvelope>
  [[gnu::always_inline]] bool consumeAt(Segment* segment, std::uint32_t& index, OnWord& onWord,
                                        OnEnvelope& onEnvelope) {
    unsigned char* const cell = segment->at(index);
    std::uintptr_t first;
    std::memcpy(&first, cell, sizeof first);
    bool more;
    if ((first & 1u) != 0) [[likely]] {
      const WordCell* word = std::launder(reinterpret_cast<const WordCell*>(cell));
      const auto* type = reinterpret_cast<const MessageType*>(first & ~std::uintptr_t{1});
      if (type == nullptr) __builtin_unreachable();  // a word cell's type is an address
      index += 1;
      struct Drop {
        MailFifo& fifo;
        std::uint32_t next;
        bool& more;
        ~Drop() { more = fifo.advance(next); }
      } drop{*this, index, more};
      onWord(type, word->word, word->sender);
    } else {
      Envelope* envelope = std::launder(reinterpret_cast<Envelope*>(cell));
      index += 2;
      struct Drop {
        MailFifo& fifo;
        Envelope* envelope;
        std::uint32_t next;
        bool& more;
        ~Drop() {
          envelope->~Envelope();
          more = fifo.advance(next);
        }
      } drop{*this, envelope, index, more};
      onEnvelope(*envelope);
    }
    return more;
  }

  // The oldest entry is gone; the next one starts at `next` in head_, or
  // in the next segment if head_ ends there (its last cell may be kSkip:
  // entries are left, so that cell was written). True in the first case.
  [[gnu::always_inline]] bool advance(std::uint32_t next) noexcept {
    return this->dropHead(next, [this](std::uint32_t n) noexcept {
      return n >= kCells - 1 && (n == kCells || skipped(head_));
    });
  }
  static bool skipped(Segment* s) noexcept {
    std::uintptr_t first;
    std::memcpy(&first, s->at(kCells - 1), sizeof first);
    return first == kSkip;
  }
};

}  // namespace coreactor::detail
