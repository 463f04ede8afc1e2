// bench/dispatch/Families.hpp — the families of the dispatch rows, one file
// each, registered in this order by bench/dispatch/DispatchBench.cpp.
#pragma once

#include <cstdint>

namespace coreactor::bench::dispatch {

/// Hops per iteration of floor/* and hop/*: enough that entering and leaving
/// the loop (post + runUntilIdle of one no-op task: ~0.1 µs here) is lost in
/// the noise, short enough that an iteration of the slowest dispatcher stays
/// in the milliseconds.
inline constexpr std::int64_t kHops = 100'000;

/// floor/ring, floor/asio-post (Floors.cpp).
void registerFloorRows();
/// hop/<dispatcher> (Hop.cpp).
void registerHopRows();
/// volley/<dispatcher> (Volley.cpp).
void registerVolleyRows();
/// <dispatcher>/backlog/<N> (Backlog.cpp).
void registerBacklogRows();
/// lateness/<dispatcher> (Lateness.cpp).
void registerLatenessRows();
/// iolatency/<dispatcher> (IoLatency.cpp).
void registerIoLatencyRows();

}  // namespace coreactor::bench::dispatch
