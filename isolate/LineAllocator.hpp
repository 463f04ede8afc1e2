// An allocator whose blocks start and end on a cache-line boundary: an array
// that one isolate writes shares no line with what another isolate reads
// (the per-peer arrays of a Link are made on the system's thread, next to
// the other isolates' structures, and a line shared with them would move
// from core to core with every message).
#pragma once

#include <cstddef>
#include <new>

namespace coreactor::detail {

template <class T>
struct LineAllocator {
  using value_type = T;
  static constexpr std::size_t kLine = 64;

  LineAllocator() = default;
  template <class U>
  LineAllocator(const LineAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (bytes(n), std::align_val_t{kLine}));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    ::operator delete (p, bytes(n), std::align_val_t{kLine});
  }
  template <class U>
  friend bool operator==(const LineAllocator&, const LineAllocator<U>&) noexcept {
    return true;
  }

 private:
  static std::size_t bytes(std::size_t n) noexcept {
    return (n * sizeof(T) + kLine - 1) / kLine * kLine;
  }
};

}  // namespace coreactor::detail
