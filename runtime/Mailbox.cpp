#include "Mailbox.hpp"

#include <algorithm>

namespace coreactor::detail {
namespace {

// Min-heap order: lower priority value first, then arrival order (stable).
struct Later {
  template <class R>
  bool operator()(const R& a, const R& b) const noexcept {
    return a.priority != b.priority ? a.priority > b.priority : a.seq > b.seq;
  }
};

}  // namespace

Mailbox::Mailbox(const MailboxOptions& options) {
  if (options.kind() != MailboxOptions::Kind::Unbounded) {
    special_ = std::make_unique<Special>(Special{options, {}, 0, 0});
  }
}

Mailbox::Push Mailbox::pushSlow(Envelope&& envelope, Envelope* displaced) {
  Special& s = *special_;
  if (s.options.kind() == MailboxOptions::Kind::Priority) {
    int priority = 0;
    try {
      priority = s.options.priorityOf()(envelope.message);
    } catch (...) {
      // A priority function that throws cannot place the message: it is
      // refused (a dead letter), never lost.
      *displaced = std::move(envelope);
      return Push::Refused;
    }
    s.heap.push_back(Ranked{priority, s.nextSeq++, std::move(envelope)});
    std::push_heap(s.heap.begin(), s.heap.end(), Later());
    return Push::Queued;
  }
  // Bounded FIFO.
  if (s.queued < s.options.capacity()) {
    pushFifo(std::move(envelope.message), envelope.sender);
    ++s.queued;
    return Push::Queued;
  }
  if (s.options.overflow() == OverflowPolicy::DropOldest) {
    // The newest in first: if that push cannot get a segment (it throws),
    // nothing has changed.
    pushFifo(std::move(envelope.message), envelope.sender);
    *displaced = popFifo();
    return Push::Evicted;
  }
  *displaced = std::move(envelope);
  return Push::Refused;
}

Envelope Mailbox::popSpecial() {
  if (!isPriority()) {
    --special_->queued;
    return popFifo();
  }
  auto& heap = special_->heap;
  std::pop_heap(heap.begin(), heap.end(), Later());
  Envelope out = std::move(heap.back().envelope);
  heap.pop_back();
  return out;
}

}  // namespace coreactor::detail
