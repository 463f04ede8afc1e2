// bench/schedule/ScheduleBench.cpp — the scheduler's benchmarks (SPEC S10).
//
// The families, a file each, in the order they run (each file says what one
// "op" is in its rows):
//   schedule/add+cancel/handle, reference     AddCancel.cpp
//   schedule/fire/1M                          Fire.cpp
//   schedule/memory, schedule/memory/named    Memory.cpp
//   schedule/lateness/idle, volley            Lateness.cpp
//
// The calls are made from the driving thread of a manual system, which owns
// its isolate: the same path as an actor scheduling for itself, minus the
// actor. Every count is checked against what the scheduler reports
// (scheduleCount) and what the sink actors received.
#include "schedule/ScheduleBench.hpp"

#include "schedule/Families.hpp"

namespace coreactor::bench {

void registerScheduleBenchmarks() {
  schedule::registerAddCancelRows();
  schedule::registerFireRows();
  schedule::registerMemoryRows();
  schedule::registerLatenessRows();
}

}  // namespace coreactor::bench
