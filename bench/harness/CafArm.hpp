// bench/harness/CafArm.hpp — how coreactor-bench runs the CAF arm: the executable
// coreactor-bench-caf (bench/caf/), found next to its own, as a
// child process; its stdout lines become CAF's figures. Blocking; called once,
// after our arm has run, so that the two never share the machine.
#pragma once

#include <string>
#include <vector>

#include "harness/Results.hpp"

namespace coreactor::bench {

/// The CAF arm's executable name, next to coreactor-bench.
inline constexpr const char* kCafProgram = "coreactor-bench-caf";

/// Whether the CAF arm can run: Status::kRan if so, else kNotBuilt or
/// kMissing (its executable is not next to ours) with the message to print.
CafArmRun cafArmAvailability();

/// Runs the CAF arm with `args` (--quick, --benchmark_* flags) and parses its
/// output. Never throws; what went wrong is in the result's status and message.
CafArmRun runCafArm(const std::vector<std::string>& args);

}  // namespace coreactor::bench
