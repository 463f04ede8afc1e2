// bench/dispatch/DispatchBench.hpp — what bench/harness/main.cpp needs from the dispatch
// benchmarks.
//
// The benchmarks register themselves with Google Benchmark through
// registerDispatchBenchmarks(); each one reports its result as the user
// counter kNsPerOpCounter (bench/harness/BenchSupport.hpp: nanoseconds per operation,
// measured over the operations that actually completed), which the harness
// reads back; lateness/* reports kMicrosCounter instead.
#pragma once

namespace coreactor::bench {

/// lateness/<dispatcher>: how many times the probe timer fired per pass
/// (about 1 when the dispatcher starved it until the volley's cap).
inline constexpr const char* kProbeFiresPerPassCounter = "probe_fires_per_pass";

/// Registers floor/*, hop/*, volley/*, */backlog/* and lateness/* with Google Benchmark.
/// Call once, before benchmark::RunSpecifiedBenchmarks.
void registerDispatchBenchmarks();

}  // namespace coreactor::bench
