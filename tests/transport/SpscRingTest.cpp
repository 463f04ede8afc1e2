// The isolate-to-isolate ring (transport/SpscRing.hpp): every cell carries a
// mark with the lap's parity and a key, and a big item spans a pair of cells
// over the second one's mark, so the tests run many laps through small rings,
// with small and big items mixed, and check order, keys, refusals when full,
// the half-free views of both sides, the waiting producer's flag,
// destruction of what was never taken, and two threads at full speed.
// SPEC X1, X3.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "tests/isolate/Counted.hpp"
#include "transport/SpscRing.hpp"

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
          // Keys use every bit a key may have.
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

/// A big item: a Counted and padding up to a pair of 32-byte cells after
/// the first mark (56 bytes, as the runtime's crossings).
struct BigCounted {
  // padding[1] falls where the pair's second mark is: a written small
  // item or skip of either parity, by the value.
  static constexpr std::uint64_t kStale[4] = {0x4000000000000007u, 0xC000000000000007u,
                                              0x5000000000000003u, 0xD000000000000003u};
  explicit BigCounted(Counted&& c)
      : counted(std::move(c)),
        padding{0, kStale[static_cast<unsigned>(*counted.value) % 4], ~std::uint64_t{0}, 0, 0} {}
  Counted counted;
  std::uint64_t padding[5];
};
static_assert(sizeof(BigCounted) == 56);
using MixedRing = SpscRing<Counted, BigCounted>;

TEST(SpscRing, SmallAndBigItemsKeepOrderKeysAndRoomAcrossManyLapsAgainstAModel) {
  // SPEC X1: words (small items) and other messages (big items, a pair of
  // cells) mixed keep their order and keys lap after lap. A big item writes
  // its bytes where the second cell of its pair keeps its mark when the
  // pair holds two small items (here bytes with the "written" bit and both
  // parities), so a stale mark must never read as an item of a later lap;
  // and the room each push needs (a cell for a small item, a pair for a
  // big one, and a skipped cell before a big item at a pair's second)
  // follows the model exactly.
  int live = 0;
  {
    MixedRing ring(8);
    ASSERT_EQ(ring.capacity(), 8u);
    struct Sent {
      int value;
      std::uint64_t key;
      bool big;
      std::size_t tailAfter;  // cells used up to and with this item
    };
    std::deque<Sent> reference;
    std::size_t tail = 0;
    std::size_t head = 0;
    std::mt19937 random(11);
    int next = 0;
    std::size_t bigs = 0;
    std::size_t skips = 0;
    for (int step = 0; step < 40000; ++step) {
      const int n = static_cast<int>(random() % 5);
      if (random() % 2 == 0) {
        for (int i = 0; i < n; ++i) {
          const std::uint64_t key =
              ((std::uint64_t{random()} << 32) ^ random()) & MixedRing::kKeyMask;
          const bool big = random() % 3 == 0;
          const std::size_t need = big ? 2 + (tail & 1) : 1;
          const bool room = tail + need - head <= ring.capacity();
          const bool pushed = big ? ring.tryPushBig(BigCounted{Counted(next, &live)}, key)
                                  : ring.tryPush(Counted(next, &live), key);
          ASSERT_EQ(pushed, room) << "step " << step << ", tail " << tail << ", head " << head;
          if (!pushed) continue;
          skips += big && (tail & 1) != 0 ? 1 : 0;
          tail += big ? need : 1;
          bigs += big ? 1 : 0;
          reference.push_back(Sent{next++, key, big, tail});
        }
      } else {
        const auto check = [&](int value, std::uint64_t key, bool big) {
          ASSERT_FALSE(reference.empty());
          EXPECT_EQ(value, reference.front().value);
          EXPECT_EQ(key, reference.front().key);
          EXPECT_EQ(big, reference.front().big);
          head = reference.front().tailAfter;
          reference.pop_front();
        };
        const std::size_t taken = ring.consume(
            [&](Counted&& c, std::uint64_t key) noexcept { check(*c.value, key, false); },
            [&](BigCounted&& b, std::uint64_t key) noexcept {
              EXPECT_EQ(b.padding[2], ~std::uint64_t{0});
              check(*b.counted.value, key, true);
            },
            static_cast<std::size_t>(n));
        EXPECT_LE(taken, static_cast<std::size_t>(n));
      }
      ASSERT_EQ(ring.empty(), reference.empty()) << "step " << step;
    }
    EXPECT_GT(next, 20000);  // thousands of laps of an 8-cell ring
    EXPECT_GT(bigs, 5000u);
    EXPECT_GT(skips, 1000u);
    EXPECT_EQ(live, static_cast<int>(reference.size()));
  }
  EXPECT_EQ(live, 0);  // what was left is destroyed with the ring
}

TEST(SpscRing, ABigItemAtAPairsSecondCellSkipsItAndARefusedOneIsLeftUntouched) {
  // SPEC X3: a big item takes an aligned pair; after one small item it
  // needs three cells, and when they are not free the sender keeps it.
  int live = 0;
  MixedRing ring(4);
  EXPECT_TRUE(ring.tryPush(Counted(1, &live), 1));
  EXPECT_TRUE(ring.tryPush(Counted(2, &live), 2));
  EXPECT_TRUE(ring.tryPush(Counted(3, &live), 3));
  BigCounted big{Counted(9, &live)};
  EXPECT_FALSE(ring.tryPushBig(std::move(big), 9));  // cell 3 skipped, then a pair: 3 cells
  std::vector<int> got;
  const auto small = [&](Counted&& c) noexcept { got.push_back(*c.value); };
  const auto large = [&](BigCounted&& b) noexcept { got.push_back(-*b.counted.value); };
  EXPECT_EQ(ring.consume(small, large, 1), 1u);
  EXPECT_FALSE(ring.tryPushBig(std::move(big), 9));  // 2 of the 3 free
  ASSERT_NE(big.counted.value, nullptr);
  EXPECT_EQ(*big.counted.value, 9);
  EXPECT_EQ(ring.consume(small, large, 1), 1u);
  EXPECT_TRUE(ring.tryPushBig(std::move(big), 9));   // cell 3 skipped, the pair 0-1 of lap 1
  EXPECT_FALSE(ring.tryPush(Counted(4, &live), 4));  // cell 2 of lap 1 holds 3 still
  EXPECT_EQ(ring.consume(small, large, 8), 2u);      // 3, then past the skip the big item
  EXPECT_TRUE(ring.tryPush(Counted(5, &live), 5));
  EXPECT_EQ(ring.consume(small, large, 8), 1u);
  EXPECT_EQ(got, (std::vector<int>{1, 2, 3, -9, 5}));
  EXPECT_TRUE(ring.empty());
  EXPECT_EQ(live, 1);  // `big`, moved from
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

/// Runs produce() here and, on a thread of its own, consume(next) (it takes
/// what it can, advancing `next` per item, and returns how many) until
/// `values` items came.
template <class Produce, class Consume>
void acrossTwoThreads(std::uint64_t values, Produce&& produce, Consume&& consume) {
  std::thread consumer([&] {
    std::uint64_t next = 0;
    while (next < values) {
      if (consume(next) == 0) std::this_thread::yield();
    }
  });
  produce();
  consumer.join();
}

/// A big item of the two-thread tests: a pair of 16-byte cells after the
/// first mark, its value checked at both ends.
struct Big {
  std::uint64_t value;
  std::uint64_t check[2];
};

/// Producer: pushes value `i` with key `i`, big or small, yielding while
/// the ring is full.
void pushWhenRoom(SpscRing<std::uint64_t, Big>& ring, std::uint64_t i, bool big) {
  if (big) {
    while (!ring.tryPushBig(Big{i, {~i, ~i}}, i)) std::this_thread::yield();
  } else {
    while (!ring.tryPush(std::uint64_t{i}, i)) std::this_thread::yield();
  }
}

TEST(SpscRing, TwoThreadsMoveEveryValueInOrderWithItsKey) {
  // SPEC X1: one producer thread and one consumer thread at full speed
  // through a small ring (many laps; run under TSan in CI).
  constexpr std::uint64_t kValues = 200000;
  SpscRing<std::uint64_t> ring(64);
  std::uint64_t inOrder = 0;
  std::uint64_t keysRight = 0;
  acrossTwoThreads(
      kValues,
      [&] {
        for (std::uint64_t i = 0; i < kValues; ++i) {
          while (!ring.tryPush(std::uint64_t{i},
                               i * 2654435761u & SpscRing<std::uint64_t>::kKeyMask)) {
            std::this_thread::yield();
          }
        }
      },
      [&](std::uint64_t& next) {
        return ring.consume(
            [&](std::uint64_t&& v, std::uint64_t key) noexcept {
              inOrder += v == next ? 1 : 0;
              keysRight += key == (next * 2654435761u & SpscRing<std::uint64_t>::kKeyMask) ? 1 : 0;
              ++next;
            },
            16);
      });
  EXPECT_EQ(inOrder, kValues);
  EXPECT_EQ(keysRight, kValues);
  EXPECT_TRUE(ring.empty());
}

TEST(SpscRing, TwoThreadsMoveSmallAndBigItemsInOrder) {
  // SPEC X1: the same at full speed with both kinds mixed (run under TSan
  // in CI): the consumer clears a pair's second mark after a big item and
  // reads it only after the first cell's item of the same lap.
  using Ring = SpscRing<std::uint64_t, Big>;
  constexpr std::uint64_t kValues = 200000;
  const auto isBig = [](std::uint64_t i) { return (i * 2654435761u >> 7) % 3 == 0; };
  Ring ring(32);
  std::uint64_t inOrder = 0;
  std::uint64_t kindsRight = 0;
  acrossTwoThreads(
      kValues,
      [&] {
        for (std::uint64_t i = 0; i < kValues; ++i) pushWhenRoom(ring, i, isBig(i));
      },
      [&](std::uint64_t& next) {
        return ring.consume(
            [&](std::uint64_t&& v, std::uint64_t key) noexcept {
              inOrder += v == next && key == next ? 1 : 0;
              kindsRight += isBig(next) ? 0 : 1;
              ++next;
            },
            [&](Big&& b, std::uint64_t key) noexcept {
              inOrder += b.value == next && key == next && b.check[1] == ~next ? 1 : 0;
              kindsRight += isBig(next) ? 1 : 0;
              ++next;
            },
            16);
      });
  EXPECT_EQ(inOrder, kValues);
  EXPECT_EQ(kindsRight, kValues);
  EXPECT_TRUE(ring.empty());
}

/// Takes everything there is (or `max`) from `ring` into `out`.
std::size_t takeInto(SpscRing<std::uint64_t>& ring, std::vector<std::uint64_t>& out,
                     std::size_t max = ~std::size_t{0}) {
  return ring.consume([&](std::uint64_t&& v) noexcept { out.push_back(v); }, max);
}

/// Pushes `n` values from `next` on.
void pushValues(SpscRing<std::uint64_t>& ring, std::uint64_t& next, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(ring.tryPush(std::uint64_t{next++}));
}

/// A ring of 64 cells whose consumer streams in runs of 8: looks that each
/// took one item until it streams.
struct StreamingRing {
  StreamingRing() {
    for (unsigned i = 0; i < SpscRing<std::uint64_t>::kStreamLooks; ++i) {
      EXPECT_FALSE(ring.streaming());
      pushValues(ring, next, 1);
      EXPECT_EQ(takeInto(ring, taken), 1u);
    }
    EXPECT_TRUE(ring.streaming());
  }
  SpscRing<std::uint64_t> ring{64, 8};
  std::uint64_t next = 0;
  std::vector<std::uint64_t> taken;
};

TEST(SpscRing, AStreamingConsumerTakesWholeRunsOrWhatTheProducerFlushed) {
  // SPEC X1: a consumer that found items at several looks in a row takes
  // no partial run the producer may still be filling; a whole run, or
  // what the producer flushed, it takes at once, in order.
  StreamingRing s;
  ASSERT_EQ(s.ring.streamRun(), 8u);
  pushValues(s.ring, s.next, 3);
  EXPECT_EQ(takeInto(s.ring, s.taken), 0u);  // a partial run, not flushed
  EXPECT_FALSE(s.ring.empty());
  s.ring.flush();
  EXPECT_EQ(takeInto(s.ring, s.taken), 3u);  // flushed: taken now
  pushValues(s.ring, s.next, 20);            // cells 7 to 26
  // Runs whose end is known filled: a run ends at the first cell of a pair,
  // so from cell 7 the first ends at 14 (7 items), the next at 22 (8). The
  // 5 after them wait: the run to 30 is not whole.
  EXPECT_EQ(takeInto(s.ring, s.taken), 7u);
  EXPECT_EQ(takeInto(s.ring, s.taken), 8u);
  EXPECT_EQ(takeInto(s.ring, s.taken), 0u);
  EXPECT_TRUE(s.ring.streaming());
  s.ring.flush();
  EXPECT_EQ(takeInto(s.ring, s.taken, 3), 3u);  // `max` still bounds a look
  EXPECT_EQ(takeInto(s.ring, s.taken), 2u);
  // A look that finds nothing ends streaming: the next item is taken at once.
  EXPECT_EQ(takeInto(s.ring, s.taken), 0u);
  EXPECT_FALSE(s.ring.streaming());
  pushValues(s.ring, s.next, 1);
  EXPECT_EQ(takeInto(s.ring, s.taken), 1u);
  std::vector<std::uint64_t> all(s.next);
  for (std::uint64_t i = 0; i < s.next; ++i) all[i] = i;
  EXPECT_EQ(s.taken, all);
}

TEST(SpscRing, AStreamingConsumerTakesAPartialRunAfterItsPatience) {
  // SPEC X1, X2: a producer that pushed a few items and never flushes (its
  // loop iteration runs on) does not strand them: after kPatience looks
  // the consumer takes what is there and stops streaming.
  StreamingRing s;
  pushValues(s.ring, s.next, 3);
  for (unsigned look = 1; look < SpscRing<std::uint64_t>::kPatience; ++look) {
    ASSERT_EQ(takeInto(s.ring, s.taken), 0u) << "look " << look;
  }
  EXPECT_EQ(takeInto(s.ring, s.taken), 3u);
  EXPECT_FALSE(s.ring.streaming());
  EXPECT_TRUE(s.ring.empty());
}

TEST(SpscRing, ARingTooSmallForARunNeverWaits) {
  // A run is at most a quarter of the ring: an 8-cell ring asked for runs
  // of 8 takes every item as it comes, however long the stream.
  SpscRing<std::uint64_t> ring(8, 8);
  EXPECT_EQ(ring.streamRun(), 0u);
  std::vector<std::uint64_t> taken;
  std::uint64_t next = 0;
  for (int i = 0; i < 100; ++i) {
    pushValues(ring, next, 2);
    ASSERT_EQ(takeInto(ring, taken), 2u);
  }
  EXPECT_FALSE(ring.streaming());
}

TEST(SpscRing, AConsumeCountsWhatItsCallbacksSayEachItemHolds) {
  // A callback that returns a count (a run of several messages in one item)
  // spends that much of `max`, and the result says so.
  struct Three {
    std::uint64_t v[3];
  };
  using Ring = SpscRing<std::uint64_t, Three>;
  Ring ring(16);
  ASSERT_TRUE(ring.tryPush(std::uint64_t{1}));
  ASSERT_TRUE(ring.tryPushBig(Three{{2, 3, 4}}));
  ASSERT_TRUE(ring.tryPush(std::uint64_t{5}));
  std::vector<std::uint64_t> got;
  const auto one = [&](std::uint64_t&& v) noexcept -> std::size_t {
    got.push_back(v);
    return 1;
  };
  const auto three = [&](Three&& t) noexcept -> std::size_t {
    got.insert(got.end(), std::begin(t.v), std::end(t.v));
    return 3;
  };
  EXPECT_EQ(ring.consume(one, three, 2), 4u);  // 1, then the run of 3: past max, stops
  EXPECT_EQ(ring.consume(one, three, 8), 1u);
  EXPECT_EQ(got, (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
}

TEST(SpscRing, TwoThreadsThroughAStreamingRingMoveEveryItemInOrder) {
  // SPEC X1, X2: a streaming consumer against a producer that flushes at
  // uneven points, with small and big items mixed (run under TSan in CI):
  // every item arrives, in order, and none waits for ever.
  using Ring = SpscRing<std::uint64_t, Big>;
  constexpr std::uint64_t kValues = 200000;
  const auto isBig = [](std::uint64_t i) { return (i * 2654435761u >> 9) % 4 == 0; };
  Ring ring(256, 32);
  ASSERT_EQ(ring.streamRun(), 32u);
  std::uint64_t inOrder = 0;
  acrossTwoThreads(
      kValues,
      [&] {
        for (std::uint64_t i = 0; i < kValues; ++i) {
          pushWhenRoom(ring, i, isBig(i));
          if ((i * 40503u >> 5) % 97 == 0) ring.flush();
        }
        ring.flush();
      },
      [&](std::uint64_t& next) {
        return ring.consume(
            [&](std::uint64_t&& v, std::uint64_t key) noexcept {
              inOrder += v == next && key == next && !isBig(next) ? 1 : 0;
              ++next;
            },
            [&](Big&& b, std::uint64_t key) noexcept {
              inOrder += b.value == next && key == next && b.check[1] == ~next ? 1 : 0;
              ++next;
            },
            16);
      });
  EXPECT_EQ(inOrder, kValues);
  EXPECT_TRUE(ring.empty());
}

TEST(SpscRing, AStreamingConsumerTakesAProducersLastItemWithoutAFlush) {
  // SPEC X1, X2: the producer's last item into a ring (the runtime's
  // switch to another ring) publishes the tail before its own mark, so a
  // streaming consumer takes it, and the partial run before it, at its
  // next look: the producer touches the ring no more, and its flush() or
  // the consumer's patience could never come.
  using Ring = SpscRing<std::uint64_t, std::array<std::uint64_t, 2>>;
  Ring ring(64, 8);
  std::vector<std::uint64_t> taken;
  const auto take = [&] {
    return ring.consume([&](std::uint64_t&& v) noexcept { taken.push_back(v); },
                        [&](std::array<std::uint64_t, 2>&& b) noexcept { taken.push_back(b[0]); },
                        ~std::size_t{0});
  };
  std::uint64_t next = 0;
  for (unsigned i = 0; i < Ring::kStreamLooks; ++i) {
    ASSERT_TRUE(ring.tryPush(std::uint64_t{next++}));
    ASSERT_EQ(take(), 1u);
  }
  ASSERT_TRUE(ring.streaming());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ring.tryPush(std::uint64_t{next++}));
  EXPECT_EQ(take(), 0u) << "a partial run, not flushed: the consumer waits";
  ASSERT_TRUE(ring.tryPushLastBigWith(7, [&](void* at) noexcept {
    ::new (at) std::array<std::uint64_t, 2>{next++, 0};
  }));
  EXPECT_EQ(take(), 4u) << "the three and the last item, at once";
  std::vector<std::uint64_t> all(next);
  for (std::uint64_t i = 0; i < next; ++i) all[i] = i;
  EXPECT_EQ(taken, all);
  EXPECT_TRUE(ring.empty());
}

}  // namespace
}  // namespace coreactor::transport
