// The segment FIFO (isolate/SegmentFifo.hpp), used both as the pops take
// it (a mailbox) and as the cross-isolate overflow list takes it (front,
// dropFront, shrink once emptied), against a std::deque doing the same
// random work, with a move-only element that counts its live instances:
// same order, same sizes, nothing leaked or destroyed twice, across segment
// boundaries, emptying in place and idle shrinking. SPEC A4, X3.
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>

#include "Counted.hpp"
#include "isolate/SegmentFifo.hpp"

namespace coreactor::detail {
namespace {

using test::Counted;

TEST(SegmentFifo, KeepsFifoOrderAgainstADequeAcrossSegmentsEmptyingAndShrinking) {
  // SPEC A4: the unbounded mailbox is FIFO; SPEC X3: so is the overflow
  // list, which counts what it holds (its bound).
  int live = 0;
  {
    SegmentFifo<Counted, 5> fifo;   // small segments: many boundaries
    SegmentFifo<Counted, 3> queue;  // the same work, in lockstep, as the overflow list
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
          queue.push(Counted(next, &live));
          reference.push_back(next++);
        }
      } else {
        for (int i = 0; i < n && !reference.empty(); ++i) {
          ASSERT_FALSE(fifo.empty());
          ASSERT_EQ(*fifo.front().value, reference.front()) << "step " << step;
          Counted got = fifo.pop();
          ASSERT_EQ(*got.value, reference.front()) << "step " << step;
          ASSERT_EQ(*queue.front().value, reference.front()) << "step " << step;
          queue.dropFront();
          if (queue.empty()) queue.shrinkIdle();
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

}  // namespace
}  // namespace coreactor::detail
