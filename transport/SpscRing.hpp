// transport/SpscRing.hpp — a bounded single-producer, single-consumer ring:
// the path of one ordered pair of isolates (SPEC X1).
//
// The ring is an array of cells, each a 64-bit mark followed by the room of
// one small item; a cell is a power of two of bytes, so a cache line holds
// a whole number of them (two for the runtime's word crossings, 32 bytes).
// A ring may also carry big items: a big item takes the two cells of an
// aligned pair, its value running from the first cell's room over the
// second cell's mark to its end. The runtime sends a word (a message of at
// most 8 bytes) as a small item and anything else as a big one, so a flood
// of words moves half a cache line a message from core to core, not a line.
//
// The mark, written last by the producer, holds a key (the runtime puts the
// target's id there), a "written" bit, the kind (small, big, or a skip that
// pads a big item onto a pair) and the parity of the lap that filled it.
// The consumer learns that an item came by reading the cell itself, so an
// item moves only its own lines from core to core, not the producer's index
// too; and it never writes a cell back, because a cell filled in the
// previous lap has the other parity. The producer learns of room from the
// consumer's index, which the consumer publishes once per batch and the
// producer reads only when its cached copy says the ring is full (the
// design of FastForward's slot marks and of Rigtorp's cached indices).
//
// The second cell of a pair has a mark of its own only when the pair holds
// two small items; while it holds a big item, that mark's place holds the
// item's bytes. So the consumer, once it has taken a big item, clears the
// second cell's mark before it publishes its index: the consumer reads a
// second cell's mark only after the first cell's item of the same lap, and
// then sees the cleared mark, an older lap's, or the one written after it.
// (The producer clearing it before each small item instead cost a third
// more per word: a store into a line the consumer may be reading.)
//
// A consumer that chases its producer. When the consumer takes each item
// as soon as its mark appears, it reads a line the producer is still
// filling: the line goes over to the consumer for the first cell and back
// to the producer for the next, several transfers per line instead of two.
// On a VM whose cores are far apart (a round trip of a word between them
// ~500 ns) that held a flood of words to ~28 ns a word, worse than Boost's
// queue. So a ring may be made to stream: once a consumer has found items
// at several looks in a row it takes them only in whole runs of `stream`
// cells (it reads the mark at the run's end, always the first cell of a
// pair), or up to where the producer last flushed (flush(): the producer's
// tail, published once per loop iteration), or, after kPatience looks that
// found a partial run and no flush, whatever is there. A look that finds
// nothing ends streaming. A request/response exchange never streams (its
// looks find one item, then nothing), so it pays no wait; a flood moves
// whole lines. Measured on that VM: ~28 -> ~8 ns a word through the ring,
// thread to thread.
//
// A producer that writes ahead. Each line the producer fills was last read
// by the consumer, a lap ago, so the first store into it waits for the
// consumer's core to give the line up: a few hundred nanoseconds on a VM
// whose cores are far apart, during which no later store of the producer's
// thread commits either (x86 commits stores in order). So as it starts a
// line, the producer asks for the one kWriteAheadLines on for writing
// (PREFETCHW), once the consumer is past it (writeAhead).
//
// Why not boost::lockfree::spsc_queue: its push copies (our envelopes are
// move-only), its consumer reads the producer's index for every batch, and
// its consume_all visits elements one call each without a batch bound.
//
// Thread-safety: tryPush, tryPushWith, tryPushBig, tryPushBigWith, flush,
// producerHalfFree, drained and markProducerWaiting from one thread (the producer);
// consume, empty, consumerHalfFree and takeWaiting from one other thread
// (the consumer).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace coreactor::transport {

/// `Small`: the item of one cell. `Big` (optional): the item of a pair of
/// cells; void for a ring of small items only.
template <class Small, class Big = void>
class SpscRing {
 public:
  static constexpr bool kHasBig = !std::is_void_v<Big>;
  /// Keys are below 2^60: the mark's top four bits are the lap's parity,
  /// "written" and the kind.
  static constexpr std::uint64_t kKeyMask = (std::uint64_t{1} << 60) - 1;

  /// `cells` is rounded up to a power of two (at least 2; at least 4 with
  /// big items, which take two cells and may skip one to start a pair).
  /// `stream`: the run of cells a streaming consumer waits for (the top of
  /// this file), at most a quarter of the ring, rounded down to a pair; 0
  /// (the default) or a ring too small for a run of 4: the consumer takes
  /// every item as soon as it is there.
  explicit SpscRing(std::size_t cells, std::size_t stream = 0)
      : shift_(log2(roundUp(cells))),
        mask_((std::size_t{1} << shift_) - 1),
        stream_(streamRun(stream, mask_ + 1)),
        base_(static_cast<unsigned char*>(
            ::operator new (kCell*(mask_ + 1), std::align_val_t{kLine}))) {
    // Every mark starts unwritten: empty for every lap.
    std::memset(base_, 0, kCell * (mask_ + 1));
  }
  ~SpscRing() {
    // Whatever is left was never consumed: its owner drained it first (the
    // system's teardown turns it into dead letters); destroy the rest.
    const auto drop = [](auto&&) noexcept {};
    consumeAll(drop, drop, ~std::size_t{0});
    ::operator delete (base_, std::align_val_t{kLine});
  }
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  /// Cells in the ring.
  std::size_t capacity() const noexcept { return mask_ + 1; }
  /// How many looks that find a partial run and no flush a streaming
  /// consumer waits before it takes what is there: a bound on the delay of
  /// a producer whose loop iteration runs long after a few sends.
  static constexpr unsigned kPatience = 256;
  /// Looks in a row that find items before a consumer streams.
  static constexpr unsigned kStreamLooks = 4;
  /// The run a streaming consumer waits for, in cells; 0: it never waits.
  std::size_t streamRun() const noexcept { return stream_; }
  /// Consumer: whether it takes only whole runs at the moment.
  bool streaming() const noexcept { return local_.streaming; }

  /// Producer: everything pushed so far is complete; a streaming consumer
  /// may take it without waiting for a whole run. One store to a line of
  /// its own, which only a streaming consumer reads.
  void flush() noexcept {
    if (flushed_.tail.load(std::memory_order_relaxed) != producer_.tail) {
      flushed_.tail.store(producer_.tail, std::memory_order_release);
    }
  }

  /// Producer. Moves `value` in with `key` (below 2^60), or leaves it
  /// untouched and returns false when the ring is full.
  bool tryPush(Small&& value,
               std::uint64_t key = 0) noexcept(std::is_nothrow_move_constructible_v<Small>) {
    return tryPushWith(key,
                       [&value](void* at) noexcept(std::is_nothrow_move_constructible_v<Small>) {
                         ::new (at) Small(std::move(value));
                       });
  }
  /// Producer. Constructs a small item in its cell with make(void* at) and
  /// marks the cell written with `key` (below 2^60), or calls nothing and
  /// returns false when the ring is full.
  template <class Make>
  bool tryPushWith(std::uint64_t key,
                   Make&& make) noexcept(noexcept(make(static_cast<void*>(nullptr)))) {
    const std::size_t tail = producer_.tail;
    if (!hasRoom(tail, 1)) return false;
    writeAhead(tail);
    make(roomAt(tail));
    markAt(tail).store((key & kKeyMask) | kWritten | lapBit(tail), std::memory_order_release);
    producer_.tail = tail + 1;
    return true;
  }
  /// Producer. tryPush() of a big item: the two cells of a pair.
  template <class B = Big>
  requires kHasBig bool tryPushBig(std::type_identity_t<B>&& value, std::uint64_t key = 0) noexcept(
      std::is_nothrow_move_constructible_v<B>) {
    return tryPushBigWith(key,
                          [&value](void* at) noexcept(std::is_nothrow_move_constructible_v<B>) {
                            ::new (at) B(std::move(value));
                          });
  }
  /// Producer. tryPushWith() of a big item. At the second cell of a pair
  /// it first marks that cell skipped, and so takes three cells.
  template <class Make>
  bool tryPushBigWith(std::uint64_t key, Make&& make) noexcept(
      noexcept(make(static_cast<void*>(nullptr)))) requires kHasBig {
    return pushBig</*kLast=*/false>(key, make);
  }

  /// Producer. tryPushBigWith() of the last item this producer ever pushes
  /// into the ring: the item may make the consumer free the ring (the
  /// switch to another ring, transport/Link.ipp). So it publishes the tail
  /// for a streaming consumer (flush()) before the item's mark, whose
  /// store is its last access to the ring.
  template <class Make>
  bool tryPushLastBigWith(std::uint64_t key, Make&& make) noexcept(
      noexcept(make(static_cast<void*>(nullptr)))) requires kHasBig {
    return pushBig</*kLast=*/true>(key, make);
  }

  /// Consumer. Moves out up to `max` items, oldest first, into f(Small&&,
  /// key) or f(Small&&); returns how many. f must not throw (take what you
  /// need and report errors yourself). An f that returns a count says what
  /// its item counts against `max` and the result (a bundle of several
  /// messages, say); one that returns nothing counts 1.
  template <class F>
  std::size_t consume(F&& f, std::size_t max) noexcept requires(!kHasBig) {
    return consumeAll(f, f, max);
  }
  /// Consumer. consume() of a ring with big items: each goes to small(...)
  /// or to big(Big&&, key) or big(Big&&), in the order they were pushed.
  template <class FSmall, class FBig>
  std::size_t consume(FSmall&& small, FBig&& big, std::size_t max) noexcept requires kHasBig {
    return consumeAll(small, big, max);
  }

  /// Consumer: nothing to consume (reads the oldest cell's mark).
  bool empty() const noexcept { return !filled(consumer_.head.load(std::memory_order_relaxed)); }
  /// Producer: the consumer has taken everything pushed so far.
  bool drained() const noexcept {
    return consumer_.head.load(std::memory_order_acquire) == producer_.tail;
  }

  /// The room protocol, for a producer that found the ring full and would
  /// rather sleep than spin: it raises the flag, fences, and looks again
  /// (producerHalfFree); a consumer that took something fences and takes
  /// the flag (takeWaiting), waking the producer if it was up. Either the
  /// producer sees the room or the consumer sees the flag.
  void markProducerWaiting() noexcept {
    producerWaiting_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  /// At least half the ring is free: the room a sleeping producer is woken
  /// for (and looks for before it sleeps), so that each wake-up moves half a
  /// ring, not the few cells a consumer's batch just freed. Producer side:
  /// from the consumer's published index.
  bool producerHalfFree() const noexcept {
    return producer_.tail - consumer_.head.load(std::memory_order_acquire) <= (mask_ + 1) / 2;
  }
  /// The same, consumer side: the cell half a ring past the oldest is not
  /// written yet (cells fill in order); with big items, the first cell of
  /// its pair, whose mark every lap writes. A mark not yet seen reads as
  /// room: the error only ever wakes a producer early.
  bool consumerHalfFree() const noexcept {
    std::size_t at = consumer_.head.load(std::memory_order_relaxed) + (mask_ + 1) / 2;
    if constexpr (kHasBig) at &= ~std::size_t{1};
    return !filled(at);
  }
  bool takeWaiting() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return producerWaiting_.load(std::memory_order_relaxed) &&
           producerWaiting_.exchange(false, std::memory_order_relaxed);
  }

 private:
  static constexpr std::size_t kLine = 64;
  static constexpr std::uint64_t kLap = std::uint64_t{1} << 63;
  static constexpr std::uint64_t kWritten = std::uint64_t{1} << 62;
  static constexpr std::uint64_t kBigItem = std::uint64_t{1} << 61;
  static constexpr std::uint64_t kSkip = std::uint64_t{1} << 60;
  static constexpr std::size_t cellSize() {
    std::size_t c = 16;
    while (c < sizeof(Small) + sizeof(std::uint64_t)) c <<= 1;
    return c;
  }
  static constexpr std::size_t kCell = cellSize();
  static_assert(kCell <= kLine, "a small item and its mark fit in a cache line");
  static_assert(alignof(Small) <= alignof(std::uint64_t), "items are 8-byte aligned at most");
  static constexpr bool bigFits() {
    if constexpr (kHasBig) {
      return sizeof(Big) <= 2 * kCell - sizeof(std::uint64_t) &&
             alignof(Big) <= alignof(std::uint64_t);
    }
    return true;
  }
  static_assert(bigFits(), "a big item fits in a pair of cells after the first mark");
  /// How many lines ahead of its tail the producer asks for a line to write.
  static constexpr std::size_t kWriteAheadLines = 4;
  /// How far ahead of the cell it takes the consumer prefetches: about
  /// 512 bytes, as many lines as a core keeps in flight comfortably.
  static constexpr std::size_t kPrefetchCells = 512 / kCell + 1;
  static std::size_t roundUp(std::size_t n) {
    std::size_t p = kHasBig ? 4 : 2;
    while (p < n) p <<= 1;
    return p;
  }
  static unsigned log2(std::size_t p) {
    unsigned s = 0;
    while ((std::size_t{1} << s) < p) ++s;
    return s;
  }
  /// The mark's top bit for the lap that index `i` falls in.
  std::uint64_t lapBit(std::size_t i) const noexcept {
    return static_cast<std::uint64_t>((i >> shift_) & 1) << 63;
  }
  std::atomic_ref<std::uint64_t> markAt(std::size_t i) const noexcept {
    return std::atomic_ref<std::uint64_t>(
        *std::launder(reinterpret_cast<std::uint64_t*>(base_ + (i & mask_) * kCell)));
  }
  void* roomAt(std::size_t i) const noexcept {
    return base_ + (i & mask_) * kCell + sizeof(std::uint64_t);
  }
  /// Consumer: the cell of index `i` holds index i's item (not the stale
  /// one of a lap before).
  bool filled(std::size_t i) const noexcept {
    return holdsItemOf(markAt(i).load(std::memory_order_acquire), i);
  }
  /// `mark`, read at index `i`, was written in i's lap.
  bool holdsItemOf(std::uint64_t mark, std::size_t i) const noexcept {
    return (mark & (kLap | kWritten)) == (lapBit(i) | kWritten);
  }
  /// Producer: tryPushBigWith(), or with kLast tryPushLastBigWith().
  template <bool kLast, class Make>
  bool pushBig(std::uint64_t key,
               Make& make) noexcept(noexcept(make(static_cast<void*>(nullptr)))) {
    std::size_t tail = producer_.tail;
    const std::size_t skip = tail & 1;
    if (!hasRoom(tail, skip + 2)) return false;
    if (skip != 0) {
      markAt(tail).store(kWritten | kSkip | lapBit(tail), std::memory_order_release);
      ++tail;
    }
    if constexpr (!kLast) writeAhead(tail);  // the last item: no line after it is ours
    make(roomAt(tail));
    producer_.tail = tail + 2;
    if constexpr (kLast) {
      // A consumer that reads this tail before the mark below takes the
      // cells up to it as they come: it waits at this item's mark, not for
      // a whole run.
      flushed_.tail.store(tail + 2, std::memory_order_release);
    }
    markAt(tail).store((key & kKeyMask) | kWritten | kBigItem | lapBit(tail),
                       std::memory_order_release);
    return true;
  }
  /// Producer, at each push: when `tail` starts a line, asks for the line
  /// kWriteAheadLines on for writing, if the consumer took its items of the
  /// last lap by the producer's cached view of its index (it never takes
  /// a line the consumer may still read). That line was last read by the
  /// consumer, so a store into it waits for the other core to give it up,
  /// and x86 commits stores in order: every store after it waits too. Asked
  /// early, it is the producer's when the push comes (measured on the
  /// 2-vCPU VM: a flood of words across ~30% faster, the parallel rows that
  /// cross 9-19%).
  void writeAhead(std::size_t tail) noexcept {
    if (((tail * kCell) & (kLine - 1)) != 0) return;
    const std::size_t at = tail + kWriteAheadLines * kLine / kCell;
    if (at - producer_.headCache > mask_) return;
    const unsigned char* line = base_ + (at & mask_) * kCell;
#if defined(__x86_64__)
    // PREFETCHW: with no -march, __builtin_prefetch(p, 1) emits a read
    // prefetch; older x86 cores run it as a NOP.
    asm volatile("prefetchw %0" : : "m"(*line));
#else
    __builtin_prefetch(line, 1);
#endif
  }
  /// Producer: `need` cells from `tail` on are free.
  bool hasRoom(std::size_t tail, std::size_t need) noexcept {
    if (tail + need - producer_.headCache > mask_ + 1) {
      producer_.headCache = consumer_.head.load(std::memory_order_acquire);
      if (tail + need - producer_.headCache > mask_ + 1) return false;
    }
    return true;
  }
  /// Calls f with the item at `at` and destroys it; returns what the item
  /// counts against a consume()'s `max`: what f returns, or 1.
  template <class T, class F>
  static std::size_t handOver(F& f, void* at, std::uint64_t key) noexcept {
    T* value = std::launder(reinterpret_cast<T*>(at));
    std::size_t counts = 1;
    if constexpr (std::is_invocable_v<F&, T&&, std::uint64_t>) {
      if constexpr (std::is_void_v<std::invoke_result_t<F&, T&&, std::uint64_t>>) {
        f(std::move(*value), key);
      } else {
        counts = f(std::move(*value), key);
      }
    } else if constexpr (std::is_void_v<std::invoke_result_t<F&, T&&>>) {
      f(std::move(*value));
    } else {
      counts = f(std::move(*value));
    }
    value->~T();
    return counts;
  }
  static std::size_t streamRun(std::size_t stream, std::size_t cells) noexcept {
    const std::size_t run = std::min(stream, cells / 4) & ~std::size_t{1};
    return run < 4 ? 0 : run;
  }
  /// Consumer: the first index a look may not take yet (the top of this
  /// file); `head` when it should take nothing now.
  std::size_t takeLimit(std::size_t head) noexcept {
    if (!local_.streaming) return ~std::size_t{0};
    if (head < local_.complete) return local_.complete;
    // Even: the first cell of a pair, whose mark every lap writes.
    const std::size_t end = (head + stream_) & ~std::size_t{1};
    if (filled(end)) {
      local_.waited = 0;
      return local_.complete = end;
    }
    const std::size_t flushedTail = flushed_.tail.load(std::memory_order_acquire);
    if (flushedTail > head) {
      local_.waited = 0;
      return local_.complete = flushedTail;
    }
    if (filled(head) && ++local_.waited < kPatience) return head;
    // Nothing there (the flood ended), or a partial run waited long enough.
    local_.streaming = false;
    local_.productive = 0;
    local_.waited = 0;
    return ~std::size_t{0};
  }
  template <class FSmall, class FBig>
  std::size_t consumeAll(FSmall& small, FBig& big, std::size_t max) noexcept {
    const std::size_t first = consumer_.head.load(std::memory_order_relaxed);
    std::size_t head = first;
    std::size_t n = 0;
    const std::size_t limit = takeLimit(head);
    while (n < max && head < limit) {
      const std::uint64_t mark = markAt(head).load(std::memory_order_acquire);
      if (!holdsItemOf(mark, head)) break;
      // The cells of a burst sit in the producer's cache: ask for the lines
      // a few cells on while this one is handled.
      __builtin_prefetch(base_ + ((head + kPrefetchCells) & mask_) * kCell);
      if constexpr (kHasBig) {
        if ((mark & kSkip) != 0) {
          ++head;
          continue;
        }
        if ((mark & kBigItem) != 0) {
          n += handOver<Big>(big, roomAt(head), mark & kKeyMask);
          // Where the pair's second mark goes, the item's bytes were: no
          // mark of a later lap may read them as one (the top of this file).
          markAt(head + 1).store(0, std::memory_order_relaxed);
          head += 2;
          continue;
        }
      }
      n += handOver<Small>(small, roomAt(head), mark & kKeyMask);
      ++head;
    }
    if (head != first) consumer_.head.store(head, std::memory_order_release);
    if (stream_ != 0 && !local_.streaming) {
      if (n == 0) {
        local_.productive = 0;
      } else if (++local_.productive >= kStreamLooks) {
        local_.streaming = true;
        local_.complete = head;
      }
    }
    return n;
  }

  struct alignas(kLine) Producer {
    std::size_t tail = 0;  // the producer's alone
    std::size_t headCache = 0;
  };
  struct alignas(kLine) Consumer {
    std::atomic<std::size_t> head{0};
  };

  /// The consumer's alone: whether it streams, and how far it knows the
  /// cells complete.
  struct alignas(kLine) ConsumerLocal {
    std::size_t complete = 0;  // cells below it are whole: taken without a look at a run's end
    unsigned productive = 0;   // looks in a row that found items
    unsigned waited = 0;       // looks in a row that found a partial run
    bool streaming = false;
  };
  struct alignas(kLine) Flushed {
    std::atomic<std::size_t> tail{0};  // the producer's tail at its last flush()
  };

  const unsigned shift_;
  const std::size_t mask_;
  const std::size_t stream_;
  unsigned char* const base_;  // the cells, on cache-line boundaries
  Producer producer_;
  Consumer consumer_;
  ConsumerLocal local_;
  Flushed flushed_;
  alignas(kLine) std::atomic<bool> producerWaiting_{false};
};

}  // namespace coreactor::transport
