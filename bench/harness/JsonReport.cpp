// bench/harness/JsonReport.cpp — see the header. Written by hand: a few dozen rows of
// plain values need no JSON library.
#include "harness/JsonReport.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include "harness/Workloads.hpp"

namespace coreactor::bench {
namespace {

std::string str(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

/// A number, or null for none (and for what JSON cannot hold: NaN, infinity).
std::string num(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", *value);
  return text;
}

std::string numbers(const std::vector<double>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + num(values[i]);
  return out + "]";
}

/// One arm's figure of a row: {"median", "unit", "reps", "spread_percent", "samples", "status",
/// ...}.
std::string figureJson(const Figure& figure, const std::string& indent) {
  std::ostringstream out;
  out << "{\n";
  out << indent << "  \"status\": " << str(figure.failed() ? "FAILED" : "ok") << ",\n";
  if (figure.failed()) out << indent << "  \"error\": " << str(figure.error) << ",\n";
  out << indent << "  \"median\": " << num(figure.median()) << ",\n";
  out << indent << "  \"unit\": " << str(figure.unit) << ",\n";
  out << indent << "  \"reps\": " << figure.samples.size() << ",\n";
  out << indent << "  \"spread_percent\": " << num(figure.spreadPercent()) << ",\n";
  out << indent << "  \"samples\": " << numbers(figure.samples);
  if (!figure.extras.empty()) {
    out << ",\n" << indent << "  \"extras\": {";
    bool first = true;
    for (const auto& [name, values] : figure.extras) {
      out << (first ? "" : ", ") << str(name) << ": " << num(figure.extraMedian(name));
      first = false;
    }
    out << "}";
  }
  out << "\n" << indent << "}";
  return out.str();
}

std::string targetJson(const TargetResult& result) {
  const Target& target = *result.target;
  std::ostringstream out;
  out << "{\"label\": " << str(result.label) << ", \"numerator\": " << str(result.numerator)
      << ", \"denominator\": " << (target.denominator ? str(target.denominator) : "null");
  if (result.times != 1) out << ", \"times\": " << num(result.times);
  if (result.paired) out << ", \"paired_rounds\": true";
  out << ", \"value\": " << num(result.value) << ", \"at_most\": " << num(target.atMost)
      << ", \"unit\": " << str(target.denominator ? "x" : target.unit) << ", \"status\": "
      << str(!result.value  ? "n/a"
             : result.met() ? "met"
                            : "missed");
  if (!result.value) out << ", \"why\": " << str(result.why);
  out << "}";
  return out.str();
}

const char* cafStatus(CafArmRun::Status status) {
  switch (status) {
    case CafArmRun::Status::kNotBuilt:
      return "not-built";
    case CafArmRun::Status::kMissing:
      return "missing";
    case CafArmRun::Status::kOff:
      return "off";
    case CafArmRun::Status::kNoMatch:
      return "no-match";
    case CafArmRun::Status::kRan:
      return "ran";
    case CafArmRun::Status::kFailed:
      return "failed";
  }
  return "?";
}

}  // namespace

bool writeJsonReport(const RunResults& results, const std::vector<TargetResult>& targets,
                     const std::vector<std::filesystem::path>& charts,
                     const std::filesystem::path& file, std::string& error) {
  std::ostringstream out;
  out << "{\n";
  out << "  \"program\": \"coreactor-bench\",\n";
  out << "  \"quick\": " << (results.quick ? "true" : "false") << ",\n";
  out << "  \"context\": {\"cpus\": " << results.cpus
      << ", \"load_average\": " << num(results.loadAverage)
      << ", \"optimised_build\": " << (results.optimisedBuild ? "true" : "false") << "},\n";

  out << "  \"caf\": {\n    \"status\": " << str(cafStatus(results.caf.status))
      << ",\n    \"message\": " << str(results.caf.message) << ",\n    \"config\": {";
  for (std::size_t i = 0; i < results.caf.config.size(); ++i) {
    out << (i ? ", " : "") << str(results.caf.config[i].first) << ": "
        << str(results.caf.config[i].second);
  }
  out << "}\n  },\n";

  const std::vector<SharedRow> shared = sharedRows(results);
  out << "  \"rows\": [";
  bool firstRow = true;
  for (const std::string& name : results.ours.order()) {
    const Figure& ours = *results.ours.find(name);
    out << (firstRow ? "\n" : ",\n") << "    {\n";
    firstRow = false;
    out << "      \"name\": " << str(name) << ",\n";
    out << "      \"op\": " << str(describeOp(name)) << ",\n";
    out << "      \"coreactor\": " << figureJson(ours, "      ");
    if (const Figure* caf = results.caf.figures.find(name)) {
      out << ",\n      \"caf\": " << figureJson(*caf, "      ");
      for (const SharedRow& row : shared) {
        if (row.name == name) out << ",\n      \"ratio_coreactor_over_caf\": " << num(row.ratio);
      }
    }
    std::string rowTargets;
    for (const TargetResult& target : targets) {
      if (name != target.numerator) continue;
      rowTargets += (rowTargets.empty() ? "" : ", ") + targetJson(target);
    }
    out << ",\n      \"targets\": [" << rowTargets << "]\n    }";
  }
  // CAF's rows with no namesake of ours (its ask without a deadline).
  for (const SharedRow& row : shared) {
    if (results.ours.find(row.name) != nullptr) continue;
    out << (firstRow ? "\n" : ",\n") << "    {\n";
    firstRow = false;
    out << "      \"name\": " << str(row.name) << ",\n";
    out << "      \"op\": " << str(describeOp(row.name)) << ",\n";
    out << "      \"coreactor\": null,\n";
    out << "      \"compared_with\": " << str(workloads::ourCounterpart(row.name)) << ",\n";
    out << "      \"caf\": " << figureJson(*results.caf.figures.find(row.name), "      ") << ",\n";
    out << "      \"ratio_coreactor_over_caf\": " << num(row.ratio) << ",\n";
    out << "      \"targets\": []\n    }";
  }
  out << "\n  ],\n";

  out << "  \"targets\": [";
  for (std::size_t i = 0; i < targets.size(); ++i) {
    out << (i ? ",\n    " : "\n    ") << targetJson(targets[i]);
  }
  out << "\n  ],\n";
  out << "  \"charts\": [";
  for (std::size_t i = 0; i < charts.size(); ++i) {
    out << (i ? ", " : "") << str(charts[i].filename().string());
  }
  out << "]\n}\n";

  std::error_code ignored;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ignored);
  std::ofstream stream(file);
  stream << out.str();
  stream.close();
  if (!stream) {
    error = "cannot write " + file.string();
    return false;
  }
  return true;
}

}  // namespace coreactor::bench
