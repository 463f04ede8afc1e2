// The isolate's queue ring (coreactor/detail/RingBuffer.hpp): FIFO through
// growth and wrap-around, and an emptied burst giving its memory back.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>

#include "coreactor/detail/RingBuffer.hpp"

namespace coreactor {
namespace {

TEST(RingBuffer, StaysFifoThroughGrowthWrapAndShrinking) {
  // SPEC L4: the queues an isolate runs FIFO. Random bursts, drains
  // and shrinks against a deque.
  detail::RingBuffer<std::uint64_t> ring(4);
  std::deque<std::uint64_t> reference;
  std::mt19937 random(5);
  std::uint64_t next = 0;
  for (int step = 0; step < 2000; ++step) {
    const std::size_t n = random() % 3 == 0 ? random() % 5000 : random() % 20;
    if (random() % 2 == 0) {
      for (std::size_t i = 0; i < n; ++i) {
        ring.push(next);
        reference.push_back(next++);
      }
    } else {
      for (std::size_t i = 0; i < n && !reference.empty(); ++i) {
        ASSERT_EQ(ring.pop(), reference.front()) << "step " << step;
        reference.pop_front();
      }
    }
    ring.shrinkIfEmpty();
    ASSERT_EQ(ring.size(), reference.size());
  }
}

TEST(RingBuffer, AnEmptiedBurstShrinksToTheKeptSizeAndAFullOneDoesNot) {
  detail::RingBuffer<int> ring(64);
  for (int i = 0; i < 100000; ++i) ring.push(i);
  const std::size_t grown = ring.capacity();
  ASSERT_GE(grown, 100000u);
  ring.shrinkIfEmpty();  // not empty: nothing happens
  EXPECT_EQ(ring.capacity(), grown);
  for (int i = 0; i < 100000; ++i) ASSERT_EQ(ring.pop(), i);
  ring.shrinkIfEmpty();
  EXPECT_EQ(ring.capacity(), detail::RingBuffer<int>::kKeepAfterBurst);
  ring.shrinkIfEmpty();  // already small: stays
  EXPECT_EQ(ring.capacity(), detail::RingBuffer<int>::kKeepAfterBurst);
  for (int i = 0; i < 3000; ++i) ring.push(i);  // grows again from there
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(ring.pop(), i);
}

}  // namespace
}  // namespace coreactor
