/// @file
/// `coreactor/detail/ActorAllocation.hpp` — where actor objects' memory comes
/// from. Internal: Actor derives from it; nothing here is for users to call.
//
// Actor objects are made and freed in bursts, like their cells: a `new` of an
// actor of up to 264 bytes takes its block from a per-thread cache of freed
// blocks (isolate/SmallBlocks.hpp), and a `delete` parks it there. The blocks
// are plain operator-new memory of malloc's own sizes, so an actor takes no
// more memory than a plain `new` would (bench actor/memory). A class that
// declares its own operator new keeps it; the other forms below behave as the
// global ones.
#pragma once

#include <cstddef>
#include <new>

namespace coreactor::detail {

/// The allocation functions of every actor class (the base of Actor).
class ActorAllocation {
 public:
  /// A block from this thread's cache, else operator new.
  static void* operator new(std::size_t size);
  /// Parks the block of `size` bytes in this thread's cache.
  static void operator delete(void* block, std::size_t size) noexcept;
  /// An over-aligned actor: the global aligned operator new.
  static void* operator new(std::size_t size, std::align_val_t align) {
    return ::operator new(size, align);
  }
  /// Frees an over-aligned actor: the global aligned operator delete.
  static void operator delete(void* block, std::size_t size, std::align_val_t align) noexcept {
    ::operator delete(block, size, align);
  }
  /// new (std::nothrow): nullptr instead of std::bad_alloc.
  static void* operator new(std::size_t size, const std::nothrow_t&) noexcept;
  /// Frees what new (std::nothrow) made, when its constructor throws.
  static void operator delete(void* block, const std::nothrow_t&) noexcept;
  /// Placement new: constructs at `where`, allocates nothing.
  static void* operator new(std::size_t size, void* where) noexcept {
    static_cast<void>(size);
    return where;
  }
  /// Placement delete, for a constructor that throws under placement new: frees nothing.
  static void operator delete(void* block, void* where) noexcept {
    static_cast<void>(block);
    static_cast<void>(where);
  }

 protected:
  ActorAllocation() = default;
  ~ActorAllocation() = default;
};

}  // namespace coreactor::detail
