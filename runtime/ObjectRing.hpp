// A growable FIFO ring of objects (movable, not necessarily trivially so).
// Allocates nothing until the first push, doubles when full, and can give its
// buffer back when empty (shrink), so an idle actor's mailbox costs no memory.
// 16 bytes of header: positions and capacity are 32-bit (a ring holds at
// most 2^31 objects), since every actor cell holds one.
// Single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>

#include "isolate/BlockCache.hpp"

namespace coreactor::detail {

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
  std::size_t size() const noexcept { return static_cast<std::uint32_t>(tail_ - head_); }

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

  void clear() noexcept {
    while (!empty()) pop();
  }
  /// For an owner that just went idle: the smallest buffer, and a large one
  /// (a burst of more than `large` slots), go back to the thread's block
  /// cache (to the heap past its largest class); middling ones are kept.
  void shrinkIdle(std::size_t large = 256) noexcept {
    if (!empty() || capacity_ == 0) return;
    if (capacity_ == 4 || capacity_ > large) {
      release();
      head_ = tail_ = 0;
    }
  }

 private:
  static constexpr std::uint32_t kMaxCapacity = std::uint32_t{1} << 31;
  // Positions run freely and wrap at 2^32, a multiple of every capacity.
  T* slot(std::uint32_t index) noexcept { return data_ + (index & (capacity_ - 1)); }
  void grow() {
    if (capacity_ == kMaxCapacity) throw std::length_error("ObjectRing: more than 2^31 objects");
    const std::uint32_t bigger = capacity_ == 0 ? 4 : capacity_ * 2;
    T* fresh = static_cast<T*>(allocate(bigger));
    std::uint32_t n = 0;
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
  // Buffers of up to BlockCache::kLargest bytes come from the thread's
  // cache (plain operator new alignment suffices for them); larger ones,
  // and any of an over-aligned T, from the heap.
  static constexpr bool kAligned = alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  static bool cached(std::size_t slots) noexcept {
    return !kAligned && slots * sizeof(T) <= BlockCache::kLargest;
  }
  static void* allocate(std::size_t slots) {
    if (cached(slots)) return BlockCache::local().get(BlockCache::classOf(slots * sizeof(T)));
    if constexpr (kAligned) return ::operator new(slots * sizeof(T), std::align_val_t(alignof(T)));
    return ::operator new(slots * sizeof(T));
  }
  void release() noexcept {
    if (data_ != nullptr) {
      if (cached(capacity_)) {
        BlockCache::local().put(data_, BlockCache::classOf(capacity_ * sizeof(T)));
      } else if constexpr (kAligned) {
        ::operator delete(data_, std::align_val_t(alignof(T)));
      } else {
        ::operator delete(data_);
      }
    }
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::uint32_t capacity_ = 0;
  std::uint32_t head_ = 0;
  std::uint32_t tail_ = 0;
};

}  // namespace coreactor::detail
