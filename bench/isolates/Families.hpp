// bench/isolates/Families.hpp — the families of isolates/* (and their
// floors), one file each, registered in this order by
// bench/isolates/IsolatesBench.cpp; and what every one of them uses: the
// clock, the round's result and how long a round may take.
#pragma once

#include <chrono>

#include "harness/BenchSupport.hpp"

namespace coreactor::bench::isolates {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;
using Timed = OpMeter::Timed;

/// Every ask's deadline, and how long a round may take before it fails.
inline constexpr auto kGiveUp = 30s;

/// floor/spsc-bulk, floor/busy-poll-rtt, floor/eventfd-rtt (Floors.cpp).
void registerFloorRows();
/// isolates/transport/* (Transport.cpp).
void registerTransportRows();
/// isolates/tell/* (Tell.cpp).
void registerTellRows();
/// isolates/pingpong/* (PingPong.cpp).
void registerPingPongRows();
/// isolates/scaling/<n> (Scaling.cpp).
void registerScalingRows();
/// isolates/ask/foreign, isolates/ask/cross (Ask.cpp).
void registerAskRows();
/// isolates/move/<queued> (Move.cpp).
void registerMoveRows();
/// floor/moodycamel-bulk, isolates/foreign/* (Foreign.cpp).
void registerForeignRows();
/// isolates/memory/<n> (Memory.cpp).
void registerMemoryRows();
/// isolates/idle-cpu (IdleCpu.cpp).
void registerIdleCpuRows(bool quick);

}  // namespace coreactor::bench::isolates
