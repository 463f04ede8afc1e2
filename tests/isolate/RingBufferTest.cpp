// The isolate's queue ring (coreactor/detail/RingBuffer.hpp): FIFO through
// growth and wrap-around, and an emptied burst giving its memory back; and
// the microtask queue's ring with a slot in front (detail/SlottedRing.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>

#include "coreactor/detail/RingBuffer.hpp"
#include "coreactor/detail/SlottedRing.hpp"

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

TEST(RingBuffer, ABurstThatRecursKeepsItsMemoryOneFollowedByQuietGivesItBack) {
  constexpr std::size_t keep = detail::RingBuffer<int>::kKeepAfterBurst;
  detail::RingBuffer<int> ring(64);
  const auto burst = [&ring](int n) {
    for (int i = 0; i < n; ++i) ring.push(i);
    for (int i = 0; i < n; ++i) ASSERT_EQ(ring.pop(), i);
  };
  for (int i = 0; i < 100000; ++i) ring.push(i);
  const std::size_t grown = ring.capacity();
  ASSERT_GE(grown, 100000u);
  ring.shrinkIfEmpty();  // not empty: nothing happens
  EXPECT_EQ(ring.capacity(), grown);
  for (int i = 0; i < 100000; ++i) ASSERT_EQ(ring.pop(), i);
  ring.shrinkIfEmpty();  // the burst filled it: kept
  EXPECT_EQ(ring.capacity(), grown);
  burst(100000);  // it recurs: kept again, no regrowth
  ring.shrinkIfEmpty();
  EXPECT_EQ(ring.capacity(), grown);
  burst(10);  // a quiet period: given back
  ring.shrinkIfEmpty();
  EXPECT_EQ(ring.capacity(), keep);
  ring.shrinkIfEmpty();  // already small: stays
  EXPECT_EQ(ring.capacity(), keep);
  burst(3000);  // grows again from there
  EXPECT_GE(ring.capacity(), 3000u);
}

TEST(RingBuffer, InsertAtPutsAValueBehindTheFirstPosOnesAcrossWrapAndGrowth) {
  // SPEC L4: the urgent units' place in the microtask queue. Random pushes,
  // pops and inserts near the front against a deque.
  detail::RingBuffer<int> ring(4);
  std::deque<int> reference;
  std::mt19937 random(11);
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    const unsigned roll = random() % 3;
    if (roll == 0) {
      ring.push(next);
      reference.push_back(next++);
    } else if (roll == 1) {
      const std::size_t pos =
          reference.empty() ? 0 : random() % (std::min<std::size_t>(reference.size(), 8) + 1);
      ring.insertAt(pos, next);
      reference.insert(reference.begin() + static_cast<std::ptrdiff_t>(pos), next++);
    } else if (!reference.empty()) {
      ASSERT_EQ(ring.pop(), reference.front()) << "step " << step;
      reference.pop_front();
    }
    ASSERT_EQ(ring.size(), reference.size());
  }
  while (!reference.empty()) {
    ASSERT_EQ(ring.pop(), reference.front());
    reference.pop_front();
  }
}

TEST(SlottedRing, StaysFifoWhetherTheOldestIsInTheSlotOrTheRing) {
  // SPEC L3 L4: the microtask queue. The slot holds the oldest value only
  // while the ring was empty when it came; pushes behind it go to the ring,
  // inserts near the front move it into the ring first. Random steps,
  // weighted to the one-at-a-time chain that lives in the slot, against a
  // deque.
  detail::SlottedRing<int> queue;
  std::deque<int> reference;
  std::mt19937 random(13);
  int next = 0;
  for (int step = 0; step < 50000; ++step) {
    const unsigned roll = random() % 8;
    if (roll < 3) {
      queue.push(next);
      reference.push_back(next++);
    } else if (roll == 3) {
      const std::size_t pos =
          reference.empty() ? 0 : random() % (std::min<std::size_t>(reference.size(), 8) + 1);
      queue.insertAt(pos, next);
      reference.insert(reference.begin() + static_cast<std::ptrdiff_t>(pos), next++);
    } else if (!reference.empty()) {
      ASSERT_FALSE(queue.empty()) << "step " << step;
      ASSERT_EQ(queue.pop(), reference.front()) << "step " << step;
      reference.pop_front();
    }
    ASSERT_EQ(queue.size(), reference.size()) << "step " << step;
    ASSERT_EQ(queue.empty(), reference.empty()) << "step " << step;
    queue.shrinkIfEmpty();
  }
  while (!reference.empty()) {
    ASSERT_EQ(queue.pop(), reference.front());
    reference.pop_front();
  }
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace coreactor
