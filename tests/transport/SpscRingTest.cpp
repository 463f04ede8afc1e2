// The isolate-to-isolate ring (transport/SpscRing.hpp): every slot carries a
// mark with the lap's parity and a key, so the tests run many laps through
// small rings and check order, keys, refusals when full, the half-free
// views of both sides, the waiting producer's flag, destruction of what was
// never taken, and two threads at full speed. SPEC X1, X3.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "../../transport/SpscRing.hpp"
#include "../runtime/Counted.hpp"

namespace coreactor::transport {
namespace {

using detail::test::Counted;

TEST(SpscRing, KeepsOrderAndKeysAcrossManyLapsAgainstADeque) {
  // SPEC X1: a pair's messages come out in the order they went in, each
  // with its key, lap after lap (a stale mark of the lap before must never
  // read as full).
  int live = 0;
  {
    SpscRing<Counted> ring(4);
    std::deque<std::pair<int, std::uint64_t>> reference;
    std::mt19937 random(7);
    int next = 0;
    std::size_t pushed = 0;
    for (int step = 0; step < 20000; ++step) {
      const int n = static_cast<int>(random() % 6);
      if (random() % 2 == 0) {
        for (int i = 0; i < n; ++i) {
          // Keys use all 63 bits a key may have.
          const std::uint64_t key = (std::uint64_t{random()} << 31) ^ random() ^
                                    (std::uint64_t{static_cast<unsigned>(next)} << 40);
          const bool room = reference.size() < ring.capacity();
          EXPECT_EQ(ring.tryPush(Counted(next, &live), key & SpscRing<Counted>::kKeyMask), room);
          if (room) {
            reference.emplace_back(next++, key & SpscRing<Counted>::kKeyMask);
            ++pushed;
          }
        }
      } else {
        const std::size_t taken = ring.consume(
            [&](Counted&& c, std::uint64_t key) noexcept {
              ASSERT_FALSE(reference.empty());
              EXPECT_EQ(*c.value, reference.front().first);
              EXPECT_EQ(key, reference.front().second);
              reference.pop_front();
            },
            static_cast<std::size_t>(n));
        EXPECT_LE(taken, static_cast<std::size_t>(n));
      }
      EXPECT_EQ(ring.empty(), reference.empty());
    }
    EXPECT_GT(pushed, 10000u);  // thousands of laps of a 4-slot ring
    EXPECT_EQ(live, static_cast<int>(reference.size()));
  }
  EXPECT_EQ(live, 0);  // what was left is destroyed with the ring
}

TEST(SpscRing, AFullRingRefusesAndLeavesTheValueUntouched) {
  // SPEC X3: the sender learns that the ring is full and keeps its message
  // (the runtime then puts it in the overflow list).
  int live = 0;
  SpscRing<Counted> ring(2);
  EXPECT_TRUE(ring.tryPush(Counted(1, &live), 11));
  EXPECT_TRUE(ring.tryPush(Counted(2, &live), 12));
  Counted third(3, &live);
  EXPECT_FALSE(ring.tryPush(std::move(third), 13));
  ASSERT_NE(third.value, nullptr);
  EXPECT_EQ(*third.value, 3);
  std::vector<std::uint64_t> keys;
  EXPECT_EQ(ring.consume([&](Counted&&, std::uint64_t key) noexcept { keys.push_back(key); }, 1),
            1u);
  EXPECT_TRUE(ring.tryPush(std::move(third), 13));
  EXPECT_EQ(ring.consume([&](Counted&&, std::uint64_t key) noexcept { keys.push_back(key); }, 8),
            2u);
  EXPECT_EQ(keys, (std::vector<std::uint64_t>{11, 12, 13}));
  EXPECT_TRUE(ring.empty());
}

TEST(SpscRing, BothSidesSeeWhetherHalfTheRingIsFree) {
  // SPEC X3: a sender that sleeps on a full ring is woken for half a ring
  // of room; both sides must agree on when that is, in every lap.
  SpscRing<std::uint64_t> ring(8);
  std::uint64_t next = 0;
  for (int lap = 0; lap < 5; ++lap) {
    for (std::size_t held = 0; held < 8; ++held) {
      EXPECT_EQ(ring.producerHalfFree(), held <= 4) << "lap " << lap << ", " << held << " held";
      EXPECT_EQ(ring.consumerHalfFree(), held <= 4) << "lap " << lap << ", " << held << " held";
      EXPECT_TRUE(ring.tryPush(std::uint64_t{next}, next));
      ++next;
    }
    EXPECT_FALSE(ring.tryPush(std::uint64_t{0}));
    EXPECT_FALSE(ring.producerHalfFree());
    EXPECT_FALSE(ring.consumerHalfFree());
    std::uint64_t expect = next - 8;
    EXPECT_EQ(ring.consume(
                  [&](std::uint64_t&& v, std::uint64_t key) noexcept {
                    EXPECT_EQ(v, expect);
                    EXPECT_EQ(key, expect);
                    ++expect;
                  },
                  ~std::size_t{0}),
              8u);
    EXPECT_TRUE(ring.producerHalfFree());
    EXPECT_TRUE(ring.consumerHalfFree());
  }
}

TEST(SpscRing, AWaitingProducerIsTakenOnce) {
  SpscRing<std::uint64_t> ring(4);
  EXPECT_FALSE(ring.takeWaiting());
  ring.markProducerWaiting();
  EXPECT_TRUE(ring.takeWaiting());
  EXPECT_FALSE(ring.takeWaiting());
}

TEST(SpscRing, TwoThreadsMoveEveryValueInOrderWithItsKey) {
  // SPEC X1: one producer thread and one consumer thread at full speed
  // through a small ring (many laps; run under TSan in CI).
  constexpr std::uint64_t kValues = 200000;
  SpscRing<std::uint64_t> ring(64);
  std::uint64_t inOrder = 0;
  std::uint64_t keysRight = 0;
  std::thread consumer([&] {
    std::uint64_t next = 0;
    while (next < kValues) {
      const std::size_t taken = ring.consume(
          [&](std::uint64_t&& v, std::uint64_t key) noexcept {
            inOrder += v == next ? 1 : 0;
            keysRight += key == (next * 2654435761u & SpscRing<std::uint64_t>::kKeyMask) ? 1 : 0;
            ++next;
          },
          16);
      if (taken == 0) std::this_thread::yield();
    }
  });
  for (std::uint64_t i = 0; i < kValues; ++i) {
    while (!ring.tryPush(std::uint64_t{i}, i * 2654435761u & SpscRing<std::uint64_t>::kKeyMask)) {
      std::this_thread::yield();
    }
  }
  consumer.join();
  EXPECT_EQ(inOrder, kValues);
  EXPECT_EQ(keysRight, kValues);
  EXPECT_TRUE(ring.empty());
}

}  // namespace
}  // namespace coreactor::transport
