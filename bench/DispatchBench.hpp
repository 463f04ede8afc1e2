// bench/DispatchBench.hpp — what bench/main.cpp needs from the dispatch benchmarks.
//
// The benchmarks register themselves with Google Benchmark through
// registerDispatchBenchmarks(); each one reports its result as the user
// counter kNsPerOpCounter (bench/BenchSupport.hpp: nanoseconds per operation,
// measured over the operations that actually completed), which the harness
// reads back.
#pragma once

namespace coreactor::bench {

/// Registers floor/*, hop/*, volley/* and */backlog/* with Google Benchmark.
/// Call once, before benchmark::RunSpecifiedBenchmarks.
void registerDispatchBenchmarks();

}  // namespace coreactor::bench
