// bench/dispatch/DispatchBench.cpp — what handing one unit of work to the
// loop costs on each built-in dispatcher, measured against the two floors
// beneath them.
//
// The families, a file each, in the order they run (each file says what one
// "op" is in its rows; `<dispatcher>` is microtask, immediate, hybrid or
// throughput):
//   floor/ring, floor/asio-post       Floors.cpp
//   hop/<dispatcher>                  Hop.cpp
//   volley/<dispatcher>               Volley.cpp (the volley itself: Volley.hpp)
//   hybrid/backlog/<N>,               Backlog.cpp
//   immediate/backlog/<N>
//   lateness/<dispatcher>             Lateness.cpp
//   iolatency/<dispatcher>            IoLatency.cpp
//
// How to read the figures: each benchmark reports the counter `ns_per_op`, the
// measured time divided by the ops that *actually ran*
// (bench/harness/BenchSupport.hpp). The tasks count their own runs and the
// count is checked against what was asked after every iteration; a mismatch
// (or a throw) fails the benchmark with SkipWithError instead of producing a
// figure. Time is taken by hand around the
// work only (UseManualTime): building the isolate, the dispatcher and the tasks
// is never in a figure. Google Benchmark's own "Time" column is per iteration
// (a whole chain), not per op. bench/harness/main.cpp turns the medians into
// the target ratios.
//
// Each benchmark function builds a fresh Isolate and dispatcher (bound to that
// isolate: bench/dispatch/Loop.hpp), so no run inherits another's queues or
// counters.
#include "dispatch/DispatchBench.hpp"

#include "dispatch/Families.hpp"

namespace coreactor::bench {

void registerDispatchBenchmarks() {
  dispatch::registerFloorRows();
  dispatch::registerHopRows();
  dispatch::registerVolleyRows();
  dispatch::registerBacklogRows();
  dispatch::registerLatenessRows();
  dispatch::registerIoLatencyRows();
}

}  // namespace coreactor::bench
