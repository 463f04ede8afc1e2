// bench/harness/JsonReport.hpp — every row of a run of coreactor-bench as one JSON
// file (--json <file>), for tools and for comparing runs. The layout is
// documented in docs/benchmarks.md ("The JSON file").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/Results.hpp"

namespace coreactor::bench {

/// Writes `results` (our rows with CAF's figure and the ratio where present,
/// the targets, the CAF arm's set-up, the charts drawn) to `file`, creating
/// its directory. False, with `error` set, if it could not be written.
bool writeJsonReport(const RunResults& results, const std::vector<TargetResult>& targets,
                     const std::vector<std::filesystem::path>& charts,
                     const std::filesystem::path& file, std::string& error);

}  // namespace coreactor::bench
