// bench/harness/ChildProcess.hpp — running a program as a child process and reading
// what it prints: how actor/memory takes each measurement in a fresh heap,
// how coreactor-bench runs the CAF arm in a process of its own, and how the
// charts are drawn (gnuplot).
//
// Blocking, for the benchmark's own thread only; never on a timed path.
#pragma once

#include <string>
#include <vector>

namespace coreactor::bench {

/// How a child process ended and what it printed on stdout.
struct ChildResult {
  bool started = false;   ///< false: it could not be run at all (see `error`)
  bool notFound = false;  ///< not started because the program does not exist
  int exitCode = -1;      ///< its exit status, or -1 if a signal ended it
  std::string out;        ///< everything it wrote to stdout
  std::string error;      ///< why it could not be run, when !started

  bool succeeded() const { return started && exitCode == 0; }
};

/// Runs `argv` (argv[0] is the program: a path, or a name looked up in PATH)
/// with our environment, its stdout captured and its stderr shared with ours
/// (so its progress shows as it runs), and waits for it to end.
ChildResult runChild(const std::vector<std::string>& argv);

/// The absolute path of the running executable (from /proc/self/exe), or ""
/// if it cannot be read.
std::string ownExecutablePath();

}  // namespace coreactor::bench
