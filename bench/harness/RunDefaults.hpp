// bench/harness/RunDefaults.hpp — how both executables (coreactor-bench and
// coreactor-bench-caf) start Google Benchmark: the same repetitions and times
// for every row of both arms, under the flags the user gave. Like
// bench/harness/BenchSupport.hpp, it includes neither coreactor's runtime
// headers nor CAF's.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace coreactor::bench {

/// Repetitions of each row, and the measured (and warm-up) time of each
/// repetition, in seconds, as Google Benchmark flags. Full run: 5 of at least
/// 0.2 s after a 0.05 s warm-up (the first row would otherwise pay for a cold
/// CPU). Quick: 3 of 0.05 s; short repetitions are noisier, so trust the full
/// run's ratios.
struct RunDefaults {
  int repetitions;
  const char* minTime;
  const char* warmUpTime;
};
inline constexpr RunDefaults kFull = {5, "0.2", "0.05"};
inline constexpr RunDefaults kQuick = {3, "0.05", "0.01"};

/// Google Benchmark's command line for one arm: the program, `defaults`,
/// then `flags` (the user's --benchmark_* flags, parsed later and so over
/// the defaults). The caller may add more (a filter) before it starts.
inline std::vector<std::string> benchmarkArguments(const char* program, const RunDefaults& defaults,
                                                   const std::vector<std::string>& flags) {
  std::vector<std::string> args = {
      program,
      "--benchmark_repetitions=" + std::to_string(defaults.repetitions),
      std::string("--benchmark_min_time=") + defaults.minTime,
      std::string("--benchmark_min_warmup_time=") + defaults.warmUpTime,
  };
  args.insert(args.end(), flags.begin(), flags.end());
  return args;
}

/// Hands `args` to Google Benchmark (which may keep pointers into them: they
/// must outlive the run). False when it did not take one of them, a misspelt
/// --benchmark_ flag, which it has reported on stderr.
inline bool initializeBenchmark(std::vector<std::string>& args) {
  std::vector<char*> cargs;
  cargs.reserve(args.size() + 1);
  for (std::string& arg : args) cargs.push_back(arg.data());
  cargs.push_back(nullptr);
  int cargc = static_cast<int>(args.size());
  benchmark::Initialize(&cargc, cargs.data());
  return !benchmark::ReportUnrecognizedArguments(cargc, cargs.data());
}

}  // namespace coreactor::bench
