// The rings that come into one isolate's link (Link.hpp): the receiving
// side's list of them, each with the link that fills it, appended to by
// the senders and read by the receiving isolate without a lock; and the
// rings it owns (it frees them).
//
// The list only grows, appended to by senders (adopt(), under the mutex)
// and read by the receiving isolate without a lock. A sender writes the
// entry, then stores the count (release); a full array is copied into one
// twice its size, published (release) before the count that needs it, and
// kept until the end, as a reader may still hold it. The receiving isolate
// loads the count, then the array (acquire both): whichever array it gets
// holds the entries the count covers. Read each loop iteration, written
// once per pair: a line no message writes.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "Crossing.hpp"
#include "SpscRing.hpp"
#include "isolate/LineAllocator.hpp"

namespace coreactor::transport {

/// The ring of one ordered pair of isolates: words as small items (one
/// 32-byte cell), everything else as big ones (a pair of cells, one line).
using LinkRing = SpscRing<WordCrossing, Crossing>;

namespace linkdetail {

/// Appends `value` to `v` and counts in `bytes` what the vector grew by.
template <class V, class T>
void pushCounted(V& v, T&& value, std::size_t& bytes) {
  const std::size_t before = v.capacity();
  v.push_back(std::forward<T>(value));
  bytes += (v.capacity() - before) * sizeof(typename V::value_type);
}

/// Makes room in `v` for `n` elements, doubling (a reserve of each size in
/// turn would copy the list at each new peer); counts what it grew by.
template <class V>
void reserveCounted(V& v, std::size_t n, std::size_t& bytes) {
  const std::size_t before = v.capacity();
  if (n > before) v.reserve(std::max(n, 2 * before));
  bytes += (v.capacity() - before) * sizeof(typename V::value_type);
}

}  // namespace linkdetail

/// The incoming rings of the link `From`.
template <class From>
class IncomingRings {
 public:
  /// An incoming ring and the link that fills it.
  struct Incoming {
    LinkRing* ring;
    From* from;
  };

  IncomingRings() = default;
  IncomingRings(const IncomingRings&) = delete;
  IncomingRings& operator=(const IncomingRings&) = delete;

  /// Bytes a ring of `cells` cells takes (Link::bytesReserved()).
  static std::size_t ringBytes(std::size_t cells) noexcept {
    return sizeof(LinkRing) + cells * (sizeof(WordCrossing) + sizeof(std::uint64_t));
  }

  /// From the sender's thread: takes `ring`, filled by `from`, into the
  /// list. Returns the bytes it took (the ring, and what the list grew by).
  /// Thread-safe.
  std::size_t adopt(std::unique_ptr<LinkRing> ring, From& from);
  /// From the sender's thread: owns `ring`, the larger ring that an
  /// incoming one will switch to. Returns the bytes it took. Thread-safe.
  std::size_t adoptSuccessor(std::unique_ptr<LinkRing> ring);
  /// Receiving side: `old`, whose last item was the switch, is replaced by
  /// `next` in the list and freed. Returns the bytes given back.
  std::size_t switchRing(LinkRing* old, LinkRing* next);

  /// Receiving side: calls f(const Incoming&) for each incoming ring, in
  /// the order they came.
  template <class F>
  void forEach(F&& f) const {
    // The count first: the array loaded after it holds every entry it covers.
    const std::uint32_t count = count_.load(std::memory_order_acquire);
    const Incoming* list = list_.load(std::memory_order_acquire);
    for (std::uint32_t k = 0; k < count; ++k) f(list[k]);
  }
  /// Receiving side: a message waits in one of the incoming rings.
  bool anyWaiting() const noexcept {
    const std::uint32_t count = count_.load(std::memory_order_acquire);
    const Incoming* list = list_.load(std::memory_order_acquire);
    for (std::uint32_t k = 0; k < count; ++k) {
      if (!list[k].ring->empty()) return true;
    }
    return false;
  }

 private:
  template <class T>
  using Lines = std::vector<T, detail::LineAllocator<T>>;

  std::atomic<std::uint32_t> count_{0};
  std::atomic<const Incoming*> list_{nullptr};
  std::mutex mutex_;
  std::vector<Lines<Incoming>> arrays_;           // guarded; the last one is list_
  std::vector<std::unique_ptr<LinkRing>> owned_;  // guarded; the incoming rings, freed here
};

template <class From>
std::size_t IncomingRings<From>::adopt(std::unique_ptr<LinkRing> ring, From& from) {
  // The cells, the size the ring rounded them to, and the ring itself.
  std::size_t bytes = ringBytes(ring->capacity());
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint32_t count = count_.load(std::memory_order_relaxed);
  Incoming* list = arrays_.empty() ? nullptr : arrays_.back().data();
  if (arrays_.empty() || count == arrays_.back().size()) {
    // One line of entries to start with, then twice as many each time.
    const std::size_t size = arrays_.empty() ? 64 / sizeof(Incoming) : 2 * count;
    Lines<Incoming> grown(size, Incoming{nullptr, nullptr});
    std::copy_n(list, count, grown.begin());
    bytes += size * sizeof(Incoming);
    linkdetail::pushCounted(arrays_, std::move(grown), bytes);
    list = arrays_.back().data();
    list_.store(list, std::memory_order_release);
  }
  LinkRing* const adopted = ring.get();
  linkdetail::pushCounted(owned_, std::move(ring), bytes);
  list[count] = Incoming{adopted, &from};
  count_.store(count + 1, std::memory_order_release);
  return bytes;
}

template <class From>
std::size_t IncomingRings<From>::adoptSuccessor(std::unique_ptr<LinkRing> ring) {
  std::size_t bytes = ringBytes(ring->capacity());
  std::lock_guard<std::mutex> lock(mutex_);
  linkdetail::pushCounted(owned_, std::move(ring), bytes);
  return bytes;
}

template <class From>
std::size_t IncomingRings<From>::switchRing(LinkRing* old, LinkRing* next) {
  std::unique_ptr<LinkRing> freed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The last array: a sender that grows the list copies it from there.
    // An older array still names the old ring, but only this isolate reads
    // the list, and it loads the last array at each look.
    Lines<Incoming>& list = arrays_.back();
    const std::uint32_t count = count_.load(std::memory_order_relaxed);
    for (std::uint32_t k = 0; k < count; ++k) {
      if (list[k].ring == old) list[k].ring = next;
    }
    for (std::unique_ptr<LinkRing>& owned : owned_) {
      if (owned.get() == old) {
        freed = std::move(owned);
        owned = std::move(owned_.back());
        owned_.pop_back();
        break;
      }
    }
  }
  return ringBytes(old->capacity());
}

}  // namespace coreactor::transport
