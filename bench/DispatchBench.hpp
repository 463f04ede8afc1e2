// bench/DispatchBench.hpp — what bench/main.cpp needs from the dispatch benchmarks.
//
// The benchmarks register themselves with Google Benchmark through
// registerDispatchBenchmarks(); each one reports its result as the user
// counter kNsPerOpCounter (nanoseconds per operation, measured over the
// operations that actually completed), which the harness reads back.
#pragma once

namespace coreactor::bench {

/// The user counter every dispatch benchmark sets: ns per completed op.
inline constexpr const char* kNsPerOpCounter = "ns_per_op";

/// Registers floor/*, hop/*, volley/* and */backlog/* with Google Benchmark.
/// Call once, before benchmark::RunSpecifiedBenchmarks.
void registerDispatchBenchmarks();

}  // namespace coreactor::bench
