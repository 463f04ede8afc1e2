// The mailbox's FIFO (runtime/SegmentFifo.hpp) and the overflow list built
// on it (runtime/SegmentQueue.hpp) against a std::deque doing the same
// random work, with a move-only element that counts its live instances:
// same order, same sizes, nothing leaked or destroyed twice, across segment
// boundaries, emptying in place and idle shrinking. SPEC A4, X3.
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>
#include <stdexcept>

#include "../runtime/SegmentFifo.hpp"
#include "../runtime/SegmentQueue.hpp"
#include "Counted.hpp"

namespace coreactor::detail {
namespace {

using test::Counted;

TEST(SegmentFifo, KeepsFifoOrderAgainstADequeAcrossSegmentsEmptyingAndShrinking) {
  // SPEC A4: the unbounded mailbox is FIFO; SPEC X3: so is the overflow
  // list, which counts what it holds (its bound).
  int live = 0;
  {
    SegmentFifo<Counted, 5> fifo;    // small segments: many boundaries
    SegmentQueue<Counted, 3> queue;  // the same work, in lockstep
    std::deque<int> reference;
    std::mt19937 random(23);
    int next = 0;
    for (int step = 0; step < 20000; ++step) {
      // Bursts of pushes and of pops, mostly short; now and then the owner
      // goes idle (shrinkIdle), which gives memory back only when empty.
      const int n = static_cast<int>(random() % 4 == 0 ? random() % 60 : random() % 7);
      if (random() % 2 == 0) {
        for (int i = 0; i < n; ++i) {
          fifo.push(Counted(next, &live));
          queue.push_back(Counted(next, &live));
          reference.push_back(next++);
        }
      } else {
        for (int i = 0; i < n && !reference.empty(); ++i) {
          ASSERT_FALSE(fifo.empty());
          ASSERT_EQ(*fifo.front().value, reference.front()) << "step " << step;
          Counted got = fifo.pop();
          ASSERT_EQ(*got.value, reference.front()) << "step " << step;
          ASSERT_EQ(*queue.front().value, reference.front()) << "step " << step;
          queue.pop_front();
          reference.pop_front();
        }
      }
      if (random() % 5 == 0) fifo.shrinkIdle();
      ASSERT_EQ(fifo.empty(), reference.empty());
      ASSERT_EQ(fifo.size(), reference.size());
      ASSERT_EQ(queue.size(), reference.size());
      ASSERT_EQ(queue.empty(), reference.empty());
      ASSERT_EQ(live, 2 * static_cast<int>(reference.size()));
    }
  }
  EXPECT_EQ(live, 0) << "what was left was destroyed with the queues";
}

TEST(SegmentFifo, ConsumeRunsKeepFifoOrderWithPushesAndStopsAsAsked) {
  // SPEC A4: a turn's run of messages (consumeRun) against a deque: the
  // handler pushes behind the run now and then (a tell to itself), a run
  // stops at its bound, at a segment's end, when go() says so and when
  // the FIFO empties; every element handled once, in order, and destroyed.
  int live = 0;
  {
    SegmentFifo<Counted, 5> fifo;
    std::deque<int> reference;
    std::mt19937 random(7);
    int next = 0;
    for (int step = 0; step < 5000; ++step) {
      const int pushes = static_cast<int>(random() % 9);
      for (int i = 0; i < pushes; ++i) {
        fifo.push(Counted(next, &live));
        reference.push_back(next++);
      }
      if (fifo.empty()) continue;
      const auto max = static_cast<std::uint32_t>(1 + random() % 12);
      const auto stopAfter = static_cast<std::uint32_t>(1 + random() % 12);
      std::uint32_t handled = 0;
      const std::uint32_t ran = fifo.consumeRun(
          max,
          [&](Counted& c) {
            ASSERT_FALSE(reference.empty());
            EXPECT_EQ(*c.value, reference.front());
            reference.pop_front();
            ++handled;
            if (random() % 5 == 0) {  // pushed while a run is handled
              fifo.push(Counted(next, &live));
              reference.push_back(next++);
            }
          },
          [&] { return handled < stopAfter; });
      EXPECT_EQ(ran, handled);
      EXPECT_LE(ran, max);
      EXPECT_LE(ran, stopAfter);
      EXPECT_EQ(fifo.size(), reference.size());
      EXPECT_EQ(live, static_cast<int>(reference.size())) << "handled elements are destroyed";
    }
    while (!fifo.empty()) {
      EXPECT_EQ(*fifo.pop().value, reference.front());
      reference.pop_front();
    }
  }
  EXPECT_EQ(live, 0);
}

TEST(SegmentFifo, AConsumeRunDestroysTheElementWhoseHandlerThrew) {
  // The turn hands a message over for good: one whose handler throws is
  // gone too, and the run stops there.
  int live = 0;
  {
    SegmentFifo<Counted, 5> fifo;
    for (int i = 0; i < 3; ++i) fifo.push(Counted(i, &live));
    EXPECT_THROW(fifo.consumeRun(
                     3,
                     [](Counted& c) {
                       if (*c.value == 1) throw std::runtime_error("x");
                     },
                     [] { return true; }),
                 std::runtime_error);
    EXPECT_EQ(fifo.size(), 1u);
    EXPECT_EQ(live, 1);
    EXPECT_EQ(*fifo.pop().value, 2);
  }
  EXPECT_EQ(live, 0);
}

}  // namespace
}  // namespace coreactor::detail
