// transport/mpi/ByteRing.hpp — a single-producer, single-consumer ring of
// bytes in memory that two processes share: how MpiLink moves a rank's
// stream of units to another rank on the same machine (MpiLink.hpp).
//
// The ring carries a byte stream, not items: the producer writes as much of
// its pending bytes as there is room for, the consumer takes whatever is
// there, and the framing (length-prefixed units) is the link's, exactly as
// over MPI, where a stream is cut into chunks anywhere.
//
// Layout, at an address both processes map (MPI_Win_allocate_shared): a
// header of two cache lines, the producer's `tail` (bytes written, ever) and
// the consumer's `head` (bytes taken, ever), then the data, a power of two
// of bytes. A 64-bit count does not wrap in the life of a program. The
// counters are lock-free std::atomic, so they work across processes as
// across threads: the producer writes the bytes, then publishes `tail`
// (release); the consumer reads `tail` (acquire), copies the bytes out,
// then publishes `head` (release), which hands the room back. Each side
// caches the other's counter and reads it again only when the cache says
// there is no room (producer) or nothing (consumer), so an exchange moves
// the data's lines and one counter line each way.
//
// A ByteRing object is one process's view of a shared ring; the producer's
// and the consumer's views live in different processes. Thread-safety: the
// producer's calls (write) from one thread at a time, the consumer's (ready,
// read) from one thread at a time; in MpiLink, the holder of its work lock.
// `ready` alone may be called from any thread (it reads atomics only).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

namespace coreactor::transport {

class ByteRing {
 public:
  static constexpr std::size_t kLine = 64;
  /// The two counters, each on a line of its own.
  struct Header {
    alignas(kLine) std::atomic<std::uint64_t> tail{0};
    alignas(kLine) std::atomic<std::uint64_t> head{0};
  };
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
                "a ring shared by processes needs lock-free 64-bit atomics");
  static constexpr std::size_t kHeaderBytes = sizeof(Header);

  /// The bytes a ring of `dataBytes` (a power of two) takes in shared memory.
  static constexpr std::size_t footprint(std::size_t dataBytes) noexcept {
    return kHeaderBytes + dataBytes;
  }

  /// Makes a fresh ring at `at` (footprint(dataBytes) bytes, aligned to a
  /// line): done once, by the process that owns the memory, before any
  /// view of it is used.
  static void format(void* at) noexcept { new (at) Header(); }

  ByteRing() = default;
  /// A view of the ring formatted at `at`, with `dataBytes` of data.
  ByteRing(void* at, std::size_t dataBytes) noexcept
      : header_(std::launder(static_cast<Header*>(at))),
        data_(static_cast<char*>(at) + kHeaderBytes),
        mask_(dataBytes - 1) {}

  explicit operator bool() const noexcept { return header_ != nullptr; }

  // ---- the producer -------------------------------------------------------------

  /// Writes up to `size` bytes of `from`, as many as there is room for, and
  /// publishes them; returns how many.
  std::size_t write(const char* from, std::size_t size) noexcept {
    const std::size_t capacity = mask_ + 1;
    if (tail_ - cachedHead_ + size > capacity) {
      cachedHead_ = header_->head.load(std::memory_order_acquire);
    }
    const std::size_t n = std::min<std::size_t>(size, capacity - (tail_ - cachedHead_));
    if (n == 0) return 0;
    const std::size_t at = tail_ & mask_;
    const std::size_t first = std::min(n, capacity - at);
    std::memcpy(data_ + at, from, first);
    std::memcpy(data_, from + first, n - first);
    tail_ += n;
    header_->tail.store(tail_, std::memory_order_release);
    return n;
  }

  // ---- the consumer -------------------------------------------------------------

  /// True if bytes wait to be read. Any thread (a look before taking a lock).
  ///
  /// It also fetches the data's line at the head, unless that look already
  /// found bytes: while the ring is empty, that line is where the producer
  /// writes next, so a look after it wrote misses on both the counter's
  /// line and that one, side by side, instead of one after the other (the
  /// read that follows a look that saw the counter move would otherwise
  /// wait for a second transfer between cores).
  bool ready() const noexcept {
    const std::uint64_t head = header_->head.load(std::memory_order_relaxed);
    if (header_->tail.load(std::memory_order_acquire) != head) return true;
    // A prefetch, not a load: the producer may be writing there (no race).
    __builtin_prefetch(data_ + (static_cast<std::size_t>(head) & mask_));
    return false;
  }

  /// Hands what waits to `take(const char* bytes, std::size_t size)`, in at
  /// most two pieces (where the data wraps), then gives the room back;
  /// returns how many bytes.
  template <class Take>
  std::size_t read(Take&& take) {
    if (head_ == cachedTail_) cachedTail_ = header_->tail.load(std::memory_order_acquire);
    const std::size_t n = cachedTail_ - head_;
    if (n == 0) return 0;
    const std::size_t capacity = mask_ + 1;
    const std::size_t at = head_ & mask_;
    const std::size_t first = std::min(n, capacity - at);
    take(static_cast<const char*>(data_ + at), first);
    if (n > first) take(static_cast<const char*>(data_), n - first);
    head_ += n;
    header_->head.store(head_, std::memory_order_release);
    return n;
  }

 private:
  Header* header_ = nullptr;
  char* data_ = nullptr;
  std::size_t mask_ = 0;
  std::uint64_t tail_ = 0;        // producer: bytes written
  std::uint64_t cachedHead_ = 0;  // producer: the consumer's head, last read
  std::uint64_t head_ = 0;        // consumer: bytes taken
  std::uint64_t cachedTail_ = 0;  // consumer: the producer's tail, last read
};

}  // namespace coreactor::transport
