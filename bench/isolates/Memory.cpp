// bench/isolates/Memory.cpp — isolates/memory/<n>: what isolates cost in
// memory, idle and once they talk.
//
//   isolates/memory/<n>    not a time: the bytes malloc hands out per isolate
//                          for an idle threaded system of n isolates (256,
//                          1024, 4096; no actor but the guardian); beside it,
//                          what each of 16 ordered pairs that then exchange
//                          one message adds (its ring, mostly), and the
//                          transport's own count of both
//                          (Link::bytesReserved). malloc's count, not
//                          RSS: a heap that earlier rows (or the warm-up
//                          run) grew and freed serves these systems from
//                          pages already resident. For RSS, run one row
//                          alone under /usr/bin/time (docs/isolates.md). One
//                          repetition: the count is the same each time.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/MemoryProbe.hpp"
#include "isolates/Families.hpp"
#include "runtime/SystemCore.hpp"

namespace coreactor::bench::isolates {
namespace {

/// The system sizes, and the ordered pairs that talk (isolate 2i to 2i + 1).
constexpr std::size_t kMemoryIsolates[] = {256, 1024, 4096};
constexpr std::size_t kMemoryPairs = 16;

/// isolates/memory/<n>: malloc'd bytes per idle isolate (the figure), and
/// beside it what each talking pair adds and the transport's own count of
/// both (Link::bytesReserved).
constexpr const char* kBytesPerIsolateCounter = "bytes_per_isolate";
constexpr const char* kBytesPerPairCounter = "bytes_per_pair";
constexpr const char* kTransportBytesPerIsolateCounter = "transport_bytes_per_isolate";
constexpr const char* kTransportBytesPerPairCounter = "transport_bytes_per_pair";

std::string memoryRow(std::size_t isolates) {
  return "isolates/memory/" + std::to_string(isolates);
}

/// The sum of Link::bytesReserved() over the system's isolates.
std::int64_t transportBytes(ActorSystem& system) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < system.isolateCount(); ++i) {
    bytes += detail::coreOf(system).runtime(i).link->bytesReserved();
  }
  return static_cast<std::int64_t>(bytes);
}

struct Poke {};

void memory(benchmark::State& state, std::size_t isolates) {
  for (auto _ : state) {
    // Before the system: what its loops count into outlives them.
    std::atomic<std::int64_t> ran{0};
    std::atomic<std::int64_t> crossed{0};
    const std::int64_t heap0 = heapInUse();
    auto system = ActorSystem::create(
        "memory", ActorSystemOptions::create().withIsolates(isolates).withLogLevel(LogLevel::Off));
    // Every loop has started and run a task (no actor: the figure is the
    // isolate's own).
    for (std::size_t i = 0; i < isolates; ++i) {
      system->isolate(i).post([&ran] { ran.fetch_add(1); });
    }
    const auto all = static_cast<std::int64_t>(isolates);
    for (const auto until = Steady::now() + kGiveUp; ran.load() < all && Steady::now() < until;) {
      std::this_thread::sleep_for(1ms);
    }
    if (!checkCompleted(state, "tasks, one per isolate", all, ran.load())) return;
    const std::int64_t heapIdle = heapInUse();
    const std::int64_t transportIdle = transportBytes(*system);
    // A sender on isolate 2p tells a receiver on isolate 2p + 1 once: one
    // message across per ordered pair, which makes its ring. The actors are
    // made first, and their share left out.
    std::vector<ActorRef> senders;
    for (std::size_t p = 0; p < kMemoryPairs; ++p) {
      const ActorRef to = system->spawn(
          "", [&](ReceiveContext& ctx) { crossed.fetch_add(ctx.is<Poke>() ? 1 : 0); },
          ActorOptions::create().withIsolate(2 * p + 1));
      senders.push_back(system->spawn(
          "",
          [to](ReceiveContext& ctx) {
            if (ctx.is<Poke>()) ctx.tell(to, Poke{});
          },
          ActorOptions::create().withIsolate(2 * p)));
    }
    const std::int64_t heapSpawned = heapInUse();
    for (const ActorRef& sender : senders) sender.tell(Poke{});
    const auto pairs = static_cast<std::int64_t>(kMemoryPairs);
    for (const auto until = Steady::now() + kGiveUp;
         crossed.load() < pairs && Steady::now() < until;) {
      std::this_thread::sleep_for(1ms);
    }
    if (!checkCompleted(state, "messages across", pairs, crossed.load())) return;
    const std::int64_t heapTalked = heapInUse();
    const std::int64_t transportTalked = transportBytes(*system);
    system->shutdown();
    const auto perIsolate = [&](std::int64_t bytes) {
      return static_cast<double>(bytes) / static_cast<double>(isolates);
    };
    const auto perPair = [&](std::int64_t bytes) {
      return static_cast<double>(bytes) / static_cast<double>(kMemoryPairs);
    };
    state.counters[kBytesPerIsolateCounter] = perIsolate(heapIdle - heap0);
    state.counters[kTransportBytesPerIsolateCounter] = perIsolate(transportIdle);
    state.counters[kBytesPerPairCounter] = perPair(heapTalked - heapSpawned);
    state.counters[kTransportBytesPerPairCounter] = perPair(transportTalked - transportIdle);
  }
}

}  // namespace

void registerMemoryRows() {
  for (const std::size_t n : kMemoryIsolates) {
    benchmark::RegisterBenchmark(memoryRow(n).c_str(), &memory, n)->Iterations(1)->Repetitions(1);
  }
}

}  // namespace coreactor::bench::isolates
