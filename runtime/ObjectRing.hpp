// A growable FIFO ring of objects (movable, not necessarily trivially so).
// Allocates nothing until the first push, doubles when full, and can give its
// buffer back when empty (shrink), so an idle actor's mailbox costs no memory.
// Single-threaded.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <utility>

namespace coreactor::detail {

// A per-thread cache of 256-byte blocks: the first buffer of every mailbox
// and system-message ring. An idle actor gives its buffer back and takes one
// again with its next message, for a few nanoseconds instead of a malloc.
class BlockCache {
 public:
  static constexpr std::size_t kBlock = 256;
  static constexpr std::size_t kKeep = 4096;  // at most 1 MiB parked per thread

  ~BlockCache() {
    while (head_ != nullptr) ::operator delete(std::exchange(head_, head_->next));
  }
  void* get() {
    if (head_ == nullptr) return ::operator new(kBlock);
    --count_;
    return std::exchange(head_, head_->next);
  }
  void put(void* block) noexcept {
    if (count_ >= kKeep) {
      ::operator delete(block);
      return;
    }
    head_ = ::new (block) Node{head_};
    ++count_;
  }
  static BlockCache& local() noexcept {
    thread_local BlockCache cache;
    return cache;
  }

 private:
  struct Node {
    Node* next;
  };
  Node* head_ = nullptr;
  std::size_t count_ = 0;
};

template <class T>
class ObjectRing {
 public:
  ObjectRing() = default;
  ObjectRing(const ObjectRing&) = delete;
  ObjectRing& operator=(const ObjectRing&) = delete;
  ~ObjectRing() {
    clear();
    release();
  }

  bool empty() const noexcept { return head_ == tail_; }
  std::size_t size() const noexcept { return tail_ - head_; }
  std::size_t capacity() const noexcept { return capacity_; }

  void push(T&& value) {
    if (size() == capacity_) grow();
    ::new (static_cast<void*>(slot(tail_))) T(std::move(value));
    ++tail_;
  }
  /// Precondition: !empty().
  T pop() noexcept {
    T* at = std::launder(slot(head_));
    T value(std::move(*at));
    at->~T();
    ++head_;
    return value;
  }
  T& front() noexcept { return *std::launder(slot(head_)); }

  void clear() noexcept {
    while (!empty()) pop();
  }
  /// Frees the buffer if the ring is empty and holds more than `keep` slots.
  void shrink(std::size_t keep = 0) noexcept {
    if (empty() && capacity_ > keep) {
      release();
      head_ = tail_ = 0;
    }
  }
  /// For an owner that just went idle: the smallest buffer goes back to the
  /// thread's block cache (cheap to take again), a large one (a burst of more
  /// than `large` slots) to the heap; middling ones are kept.
  void shrinkIdle(std::size_t large = 256) noexcept {
    if (!empty() || capacity_ == 0) return;
    if ((kCached && capacity_ == 4) || capacity_ > large) {
      release();
      head_ = tail_ = 0;
    }
  }

 private:
  T* slot(std::size_t index) noexcept { return data_ + (index & (capacity_ - 1)); }
  void grow() {
    const std::size_t bigger = capacity_ == 0 ? 4 : capacity_ * 2;
    T* fresh = static_cast<T*>(allocate(bigger));
    std::size_t n = 0;
    while (!empty()) {
      ::new (static_cast<void*>(fresh + n)) T(pop());
      ++n;
    }
    release();
    data_ = fresh;
    capacity_ = bigger;
    head_ = 0;
    tail_ = n;
  }
  static constexpr bool kCached = 4 * sizeof(T) <= BlockCache::kBlock && alignof(T) <= 16;
  static void* allocate(std::size_t slots) {
    if (kCached && slots == 4) return BlockCache::local().get();
    return ::operator new(slots * sizeof(T), std::align_val_t(alignof(T)));
  }
  void release() noexcept {
    if (data_ != nullptr) {
      if (kCached && capacity_ == 4) {
        BlockCache::local().put(data_);
      } else {
        ::operator delete(data_, std::align_val_t(alignof(T)));
      }
    }
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t head_ = 0;
  std::size_t tail_ = 0;
};

}  // namespace coreactor::detail
