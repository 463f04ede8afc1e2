// A move-only element that counts its live instances, for the queue tests
// (SegmentFifo, the mailbox cells): nothing leaked, nothing destroyed twice.
#pragma once

#include <memory>
#include <utility>

namespace coreactor::detail::test {

struct Counted {
  explicit Counted(int v, int* live) : value(std::make_unique<int>(v)), live(live) { ++*live; }
  Counted(Counted&& other) noexcept : value(std::move(other.value)), live(other.live) { ++*live; }
  Counted& operator=(Counted&&) = delete;
  ~Counted() { --*live; }
  std::unique_ptr<int> value;
  int* live;
};

}  // namespace coreactor::detail::test
