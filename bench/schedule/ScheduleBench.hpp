// bench/schedule/ScheduleBench.hpp — what bench/harness/main.cpp needs from
// the scheduler benchmarks (bench/schedule/).
#pragma once

namespace coreactor::bench {

/// schedule/lateness/*: the median fire lateness in microseconds (the figure),
/// and beside it the 99th percentile and both in dispatcher units (the
/// lateness times the volley's unit rate of the same run).
inline constexpr const char* kLateUsCounter = "late_us";
inline constexpr const char* kLateUsP99Counter = "late_us_p99";
inline constexpr const char* kLateUnitsP50Counter = "late_units_p50";
inline constexpr const char* kLateUnitsP99Counter = "late_units_p99";
/// schedule/memory: malloc'd bytes per live schedule (the figure).
inline constexpr const char* kBytesPerScheduleCounter = "bytes_per_schedule";

/// Registers schedule/* with Google Benchmark. Call once, before
/// benchmark::RunSpecifiedBenchmarks.
void registerScheduleBenchmarks();

}  // namespace coreactor::bench
