// transport/SoleWriter.hpp — a counter that one thread at a time writes
// (under a lock, or by a contract such as "one unit at a time") and any
// thread reads: an add is a relaxed load and a relaxed store, no locked
// instruction, and readers see some recent value.
#pragma once

#include <atomic>
#include <cstdint>

namespace coreactor::transport {

/// Adds `by` (modulo 2^64: pass -1 to take one away) to a counter whose
/// writers never overlap.
inline void addAsSoleWriter(std::atomic<std::uint64_t>& counter, std::uint64_t by) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace coreactor::transport
