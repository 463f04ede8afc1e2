// The overflow list's queue (runtime/SegmentQueue.hpp) against a std::deque
// doing the same random work, with a move-only element that counts its
// live instances: same order, same sizes, nothing leaked or destroyed twice,
// across segment boundaries and spare reuse. SPEC X3 (the overflow list).
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>

#include "../runtime/SegmentQueue.hpp"

namespace coreactor::detail {
namespace {

struct Counted {
  explicit Counted(int v, int* live) : value(std::make_unique<int>(v)), live(live) { ++*live; }
  Counted(Counted&& other) noexcept : value(std::move(other.value)), live(other.live) { ++*live; }
  Counted& operator=(Counted&&) = delete;
  ~Counted() { --*live; }
  std::unique_ptr<int> value;
  int* live;
};

TEST(SegmentQueue, KeepsFifoOrderAndCountsAgainstADequeOverRandomBursts) {
  // SPEC X3.
  int live = 0;
  {
    SegmentQueue<Counted, 8> queue;  // small segments: many boundaries
    std::deque<int> reference;
    std::mt19937 random(9);
    int next = 0;
    for (int step = 0; step < 20000; ++step) {
      // Bursts of pushes, then of pops, of up to 100: segments come and go.
      const int n = static_cast<int>(random() % 100);
      if (random() % 2 == 0) {
        for (int i = 0; i < n; ++i) {
          queue.push_back(Counted(next, &live));
          reference.push_back(next++);
        }
      } else {
        for (int i = 0; i < n && !reference.empty(); ++i) {
          ASSERT_FALSE(queue.empty());
          ASSERT_EQ(*queue.front().value, reference.front()) << "step " << step;
          queue.pop_front();
          reference.pop_front();
        }
      }
      ASSERT_EQ(queue.size(), reference.size());
      ASSERT_EQ(live, static_cast<int>(reference.size()));
    }
  }
  EXPECT_EQ(live, 0) << "what was left was destroyed with the queue";
}

}  // namespace
}  // namespace coreactor::detail
