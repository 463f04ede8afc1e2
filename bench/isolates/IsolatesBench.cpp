// bench/isolates/IsolatesBench.cpp — what crossing from one isolate to
// another costs, measured against the raw floors of two threads on two CPUs,
// in the same binary and the same run. Ours only: CAF has no isolates (its
// arm runs the two ask rows, bench/caf/Ask.cpp).
//
// The families, a file each, in the order they run (each file says what one
// "op" is in each of its rows):
//   floor/spsc-bulk, floor/busy-poll-rtt,   Floors.cpp (and Floors.hpp: how a
//   floor/eventfd-rtt                       row pairs its rounds with them)
//   isolates/transport/8B, word, 64B        Transport.cpp
//   isolates/tell/cross, same               Tell.cpp
//   isolates/pingpong/busy, wide, loaded,   PingPong.cpp (the rally: Rally.hpp)
//   idle
//   isolates/scaling/<n>                    Scaling.cpp
//   isolates/ask/foreign, cross             Ask.cpp
//   isolates/move/0, 1000                   Move.cpp
//   floor/moodycamel-bulk,                  Foreign.cpp
//   isolates/foreign/tell, feeder
//   isolates/memory/<n>                     Memory.cpp
//   isolates/idle-cpu                       IdleCpu.cpp
// Where each side of a row runs: Pinning.hpp. Two threads started together:
// TwoThreads.hpp.
//
// Completion: every row counts what was actually handled, in order (each item
// carries its sequence number; the receiver counts the ones that arrive where
// they should), and the count is checked against what was asked; a mismatch,
// a throw or a round still unfinished after 30 s fails the row. Where the
// work runs on other threads, the side that finishes takes the time there
// (OpMeter::measureTimed): from the first send (or push) to the last one's
// handling. Building systems, threads and actors is off the clock.
#include "isolates/IsolatesBench.hpp"

#include "isolates/Families.hpp"
#include "isolates/Pinning.hpp"

namespace coreactor::bench {

bool crossThreadsPinned() {
  return isolates::pinning();
}

void registerIsolatesBenchmarks(bool quick) {
  isolates::allowedCpus();  // the process's own mask, read before any row pins a thread
  isolates::registerFloorRows();
  isolates::registerTransportRows();
  isolates::registerTellRows();
  isolates::registerPingPongRows();
  isolates::registerScalingRows();
  isolates::registerAskRows();
  isolates::registerMoveRows();
  isolates::registerForeignRows();
  isolates::registerMemoryRows();
  isolates::registerIdleCpuRows(quick);
}

}  // namespace coreactor::bench
