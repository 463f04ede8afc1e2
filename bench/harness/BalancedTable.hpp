// bench/harness/BalancedTable.hpp — the table of the balanced rows (ours
// only, bench/parallel/ParallelRow.hpp): each workload's figure with the
// balancer on, its speedup over parallel/<workload>/1 and over
// balanced/<workload>/1 (bench/harness/Results.cpp, addSpeedups), beside
// parallel/<workload>/<n>'s, the balancer's moves, the crossings and the
// forwarded messages per op; then balanced/converge/ring's hops per second.
#pragma once

#include "harness/Results.hpp"

namespace coreactor::bench {

/// Prints the table on stdout, if a balanced row ran.
void printBalanced(const RunResults& results);

}  // namespace coreactor::bench
