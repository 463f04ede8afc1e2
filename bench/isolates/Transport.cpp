// bench/isolates/Transport.cpp — isolates/transport/*: the ring between two
// isolates alone, thread to thread, no actors.
//
//   isolates/transport/8B  one item through our transport::SpscRing from one
//   isolates/transport/word thread to another, consumed 256 at a time
//   isolates/transport/64B (Link::kBatch), no actors. 8B: an 8-byte item
//                          in a ring of 1024 16-byte cells (like for like with
//                          floor/spsc-bulk; 1M per round). word and 64B: the
//                          runtime's ring (1024 lines, the default; 2048
//                          32-byte cells): a word crossing (a sender's id, a
//                          type and a value: one cell, half a line; 1M per
//                          round), and a crossing laid out as the runtime's
//                          Crossing (a sender's id and a Message: two cells,
//                          one line; 250k per round), moved in and out as the
//                          runtime does; the target's id is in the mark. With
//                          two CPUs each round is paired, off the clock, with
//                          a round of floor/spsc-bulk (transportRows).
//
// Every item carries its sequence number and the consumer counts those that
// arrive in order.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "coreactor/ActorSystem.hpp"
#include "isolates/Families.hpp"
#include "isolates/Floors.hpp"
#include "isolates/TwoThreads.hpp"
#include "transport/SpscRing.hpp"

namespace coreactor::bench::isolates {
namespace {

/// isolates/transport/64B: fewer, as each moves 8 times the bytes (every
/// count here is far above the ring's, so the figure per item does not
/// depend on it).
constexpr std::int64_t kBulkCrossings = 250'000;

struct Seq {
  std::uint64_t n;
};

/// The runtime's Crossing (runtime/SystemCore.hpp: the sender's id and a
/// Message; the target's id is the cell's key), rebuilt from the public
/// types so that the bench needs no private header: with the first cell's
/// mark the same 64 bytes, the same Message moves.
struct Crossing64 {
  std::uint64_t sender = 0;
  Message message;
};
static_assert(sizeof(Crossing64) + sizeof(std::uint64_t) == 64,
              "the element the runtime's rings carry fills a line with its mark");
/// The runtime's WordCrossing: the sender's id, the type and the value of a
/// word; with its cell's mark, half a line.
struct Word24 {
  std::uint64_t sender = 0;
  const void* type = nullptr;
  std::uint64_t word = 0;
};
static_assert(sizeof(Word24) + sizeof(std::uint64_t) == 32, "a word fills a 32-byte cell");

/// What one row of isolates/transport/* moves, and through which ring.
/// Eight bytes: a ring of small items only (16-byte cells), like for like
/// with floor/spsc-bulk. A word and a crossing: the runtime's ring, words
/// as small items and crossings as big ones (a line).
template <class T>
struct TransportItem;
template <>
struct TransportItem<std::uint64_t> {
  using Ring = transport::SpscRing<std::uint64_t>;
  static constexpr std::size_t kCells = kRingSlots;
  static constexpr std::int64_t kItems = kBulkItems;
  static std::uint64_t make(std::uint64_t i) { return i; }
  static bool push(Ring& ring, std::uint64_t&& item, std::uint64_t key) {
    return ring.tryPush(std::move(item), key);
  }
  template <class F>
  static std::size_t consume(Ring& ring, F& take) {
    return ring.consume([&](std::uint64_t&& item) noexcept { take(item); }, kConsumeBatch);
  }
};
template <>
struct TransportItem<Word24> {
  using Ring = transport::SpscRing<Word24, Crossing64>;
  static constexpr std::size_t kCells = 2 * kRingSlots;  // 1024 lines, as ActorSystemOptions
  static constexpr std::int64_t kItems = kBulkItems;
  static Word24 make(std::uint64_t i) { return Word24{i, &kItems, i}; }
  static bool push(Ring& ring, Word24&& item, std::uint64_t key) {
    return ring.tryPush(std::move(item), key);
  }
  template <class F>
  static std::size_t consume(Ring& ring, F& take) {
    return ring.consume([&](Word24&& item) noexcept { take(item.word); },
                        [&](Crossing64&&) noexcept { take(~std::uint64_t{0}); }, kConsumeBatch);
  }
};
template <>
struct TransportItem<Crossing64> {
  using Ring = transport::SpscRing<Word24, Crossing64>;
  static constexpr std::size_t kCells = 2 * kRingSlots;
  static constexpr std::int64_t kItems = kBulkCrossings;
  static Crossing64 make(std::uint64_t i) { return Crossing64{0, Message(Seq{i})}; }
  static bool push(Ring& ring, Crossing64&& item, std::uint64_t key) {
    return ring.tryPushBig(std::move(item), key);
  }
  template <class F>
  static std::size_t consume(Ring& ring, F& take) {
    return ring.consume([&](Word24&&) noexcept { take(~std::uint64_t{0}); },
                        [&](Crossing64&& item) noexcept {
                          const Seq* seq = item.message.get<Seq>();
                          take(seq != nullptr ? seq->n : ~std::uint64_t{0});
                        },
                        kConsumeBatch);
  }
};

template <class T>
Timed transportRound() {
  using Item = TransportItem<T>;
  typename Item::Ring ring(Item::kCells);
  Steady::time_point start{};
  Steady::time_point end{};
  std::int64_t inOrder = 0;
  const Steady::time_point deadline = Steady::now() + kGiveUp;
  runPair(
      [&] {
        Spinner spin(deadline);
        start = Steady::now();
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(Item::kItems); ++i) {
          T item = Item::make(i);
          // The key stands for the target's id, as in the runtime.
          while (!Item::push(ring, std::move(item), i)) {  // a refused item is left untouched
            if (!spin.wait()) return;
          }
        }
      },
      [&] {
        Spinner spin(deadline);
        std::uint64_t next = 0;
        const auto take = [&](std::uint64_t sequence) noexcept {
          inOrder += sequence == next ? 1 : 0;
          ++next;
        };
        while (next < static_cast<std::uint64_t>(Item::kItems)) {
          if (Item::consume(ring, take) == 0 && !spin.wait()) break;
        }
        end = Steady::now();
      });
  return {inOrder, end - start};
}

/// isolates/transport/<T>. As with the round trips (isolates/pingpong/*), this
/// VM's phases move the floor from one minute to the next (floor/spsc-bulk
/// read 3 to 60 ns an item), so with two CPUs each round is followed, off
/// the clock, by a round of floor/spsc-bulk, and the row reports the median
/// of the per-round ratios.
template <class T>
void transportRows(benchmark::State& state) {
  OpMeter meter;
  const bool paired = pinning();
  PairedRatios pairedRatios;
  for (auto _ : state) {
    Timed rowRound;
    const bool ok = meter.measureTimed(state, "items", TransportItem<T>::kItems, [&] {
      rowRound = transportRound<T>();
      return rowRound;
    });
    if (!ok) break;
    if (paired &&
        !pairedRatios.add(
            state, pairedRatio(rowRound, TransportItem<T>::kItems, spscFloorRound(), kBulkItems),
            "the paired floor round did not finish")) {
      break;
    }
  }
  meter.report(state);
  pairedRatios.report(state);
}

}  // namespace

void registerTransportRows() {
  registerTimed(
      benchmark::RegisterBenchmark("isolates/transport/8B", &transportRows<std::uint64_t>));
  registerTimed(benchmark::RegisterBenchmark("isolates/transport/word", &transportRows<Word24>));
  registerTimed(benchmark::RegisterBenchmark("isolates/transport/64B", &transportRows<Crossing64>));
}

}  // namespace coreactor::bench::isolates
