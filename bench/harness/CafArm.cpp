// bench/harness/CafArm.cpp — see the header; the line format is bench/caf/CafBench.cpp's.
#include "harness/CafArm.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "harness/ChildProcess.hpp"

namespace coreactor::bench {
namespace {

std::string cafArmPath() {
  const std::string self = ownExecutablePath();
  if (self.empty()) return kCafProgram;
  return (std::filesystem::path(self).parent_path() / kCafProgram).string();
}

/// True when this coreactor-bench was built with CAF found (so the CAF arm was built too).
bool cafArmBuilt() {
#ifdef COREACTOR_BENCH_CAF_BUILT
  return true;
#else
  return false;
#endif
}

}  // namespace

CafArmRun cafArmAvailability() {
  CafArmRun arm;
  if (!cafArmBuilt()) {
    arm.status = CafArmRun::Status::kNotBuilt;
#ifdef COREACTOR_BENCH_CAF_DISABLED
    arm.message = "CAF arm skipped: built with -DCOREACTOR_BENCH_CAF=OFF";
#else
    arm.message =
        "CAF arm skipped: libcaf-dev not found at build time (scripts/bench installs it; "
        "then configure again)";
#endif
    return arm;
  }
  const std::string path = cafArmPath();
  if (!std::filesystem::exists(path)) {
    arm.status = CafArmRun::Status::kMissing;
    arm.message = "CAF arm skipped: " + path + " not found (this build has CAF: build the target " +
                  kCafProgram + ")";
    return arm;
  }
  arm.status = CafArmRun::Status::kRan;  // can run
  return arm;
}

CafArmRun runCafArm(const std::vector<std::string>& args) {
  CafArmRun arm = cafArmAvailability();
  if (arm.status != CafArmRun::Status::kRan) return arm;

  std::vector<std::string> argv = {cafArmPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::fprintf(stderr, "\nthe CAF arm: %s, in its own process\n", argv[0].c_str());
  const ChildResult child = runChild(argv);
  if (!child.started) {
    arm.status = CafArmRun::Status::kFailed;
    arm.message = "CAF arm FAILED: " + child.error;
    return arm;
  }

  // config <key> <value> | sample <row> <counter> <value> | failed <row> <reason> | rows <n>
  std::map<std::string, std::vector<std::map<std::string, double>>> repetitions;
  std::istringstream lines(child.out);
  std::string line;
  long long rows = -1;
  bool garbled = false;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "config") {
      std::string key;
      std::string value;
      words >> key;
      std::getline(words >> std::ws, value);
      arm.config.emplace_back(key, value);
    } else if (kind == "sample") {
      std::string row;
      std::string counter;
      double value = 0;
      if (!(words >> row >> counter >> value)) {
        garbled = true;
        continue;
      }
      // Google Benchmark reports each repetition's counters together, one
      // repetition after the other: a counter seen again starts the next one.
      auto& reps = repetitions[row];
      arm.figures.figureFor(row);
      if (reps.empty() || reps.back().contains(counter)) reps.emplace_back();
      reps.back()[counter] = value;
    } else if (kind == "failed") {
      std::string row;
      std::string reason;
      words >> row;
      std::getline(words >> std::ws, reason);
      Figure& figure = arm.figures.figureFor(row);
      if (figure.error.empty()) figure.error = reason.empty() ? "failed" : reason;
    } else if (kind == "rows") {
      words >> rows;
    } else if (!kind.empty()) {
      garbled = true;
    }
  }
  for (const auto& [row, reps] : repetitions) {
    Figure& figure = arm.figures.figureFor(row);
    for (const auto& counters : reps) figure.addRepetition(counters);
  }

  if (child.exitCode != 0 && child.exitCode != 1) {
    arm.status = CafArmRun::Status::kFailed;
    arm.message = child.exitCode < 0
                      ? "CAF arm FAILED: it was ended by a signal (a crash?)"
                      : "CAF arm FAILED: it exited " + std::to_string(child.exitCode) +
                            "; its stderr above says why";
    return arm;
  }
  if (rows < 0 || garbled) {
    arm.status = CafArmRun::Status::kFailed;
    arm.message = garbled ? "CAF arm FAILED: its output was garbled"
                          : "CAF arm FAILED: it stopped before its last row; its stderr above "
                            "says why";
    return arm;
  }
  if (rows == 0) {
    arm.status = CafArmRun::Status::kNoMatch;
    arm.message = "CAF arm ran no row: none of its rows matches the filter";
    return arm;
  }
  arm.status = CafArmRun::Status::kRan;
  arm.message = "CAF arm: " + std::to_string(rows) + " rows";
  if (child.exitCode == 1) arm.message += ", some FAILED their completion check";
  return arm;
}

}  // namespace coreactor::bench
