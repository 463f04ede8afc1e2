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

 private:
  T* slot(std::size_t index) noexcept { return data_ + (index & (capacity_ - 1)); }
  void grow() {
    const std::size_t bigger = capacity_ == 0 ? 4 : capacity_ * 2;
    T* fresh = static_cast<T*>(::operator new(bigger * sizeof(T), std::align_val_t(alignof(T))));
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
  void release() noexcept {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t(alignof(T)));
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t head_ = 0;
  std::size_t tail_ = 0;
};

}  // namespace coreactor::detail
