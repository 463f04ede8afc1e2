// bench/schedule/Families.hpp — the families of schedule/*, one file each,
// registered in this order by bench/schedule/ScheduleBench.cpp, and what
// they share: the message every schedule carries, and how many schedules
// the add+cancel and memory rows keep live.
#pragma once

#include <cstdint>

namespace coreactor::bench::schedule {

/// The message of every one-shot the rows schedule.
struct Tick {
  std::int64_t n;
};

/// Schedules live on the isolate in schedule/add+cancel/* and schedule/memory*.
inline constexpr std::int64_t kLive = 1'000'000;

/// schedule/add+cancel/* (AddCancel.cpp).
void registerAddCancelRows();
/// schedule/fire/1M (Fire.cpp).
void registerFireRows();
/// schedule/memory, schedule/memory/named (Memory.cpp).
void registerMemoryRows();
/// schedule/lateness/* (Lateness.cpp).
void registerLatenessRows();

}  // namespace coreactor::bench::schedule
