// The throughput dispatcher: its own ring, N units per macrotask. SPEC D6, D7.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "TestSupport.hpp"
#include "coreactor/ThroughputDispatcher.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using test::ReusableTask;

TEST(ThroughputDispatcher, RunsAtMostThroughputUnitsPerMacrotaskInFifoOrder) {
  // SPEC D6
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  ThroughputDispatcher d(16);
  d.bind(isolate);
  std::vector<int> order;
  std::map<std::uint64_t, int> perMacrotask;
  std::vector<std::unique_ptr<ReusableTask>> units;
  for (int i = 0; i < 100; ++i) {
    units.push_back(std::make_unique<ReusableTask>([&, i] {
      order.push_back(i);
      ++perMacrotask[isolate.stats().macrotasks];
    }));
  }
  isolate.post([&] {
    for (auto& u : units) d.execute(*u);
  });
  isolate.runUntilIdle();
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
  for (const auto& [macrotask, n] : perMacrotask) EXPECT_LE(n, 16) << "macrotask " << macrotask;
  EXPECT_EQ(perMacrotask.size(), 7u) << "100 units at 16 per macrotask";
  EXPECT_EQ(d.queued(), 0u);
}

TEST(ThroughputDispatcher, LetsADueTimerRunBetweenTwoBatches) {
  // SPEC D6: it yields after each batch.
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  ThroughputDispatcher d(4);
  d.bind(isolate);
  int ranBeforeTimer = -1;
  int ran = 0;
  std::vector<std::unique_ptr<ReusableTask>> units;
  for (int i = 0; i < 20; ++i) {
    units.push_back(std::make_unique<ReusableTask>([&, i] {
      // The first unit of the first batch arms a timer that is due at once.
      if (i == 0) isolate.setTimeout(0ms, [&] { ranBeforeTimer = ran; });
      ++ran;
    }));
  }
  isolate.post([&] {
    for (auto& u : units) d.execute(*u);
  });
  isolate.runUntilIdle();
  EXPECT_EQ(ran, 20);
  EXPECT_EQ(ranBeforeTimer, 4) << "one batch, then the loop's timer phase";
}

TEST(ThroughputDispatcher, AUnitQueuedByTheBatchWaitsForTheNextMacrotask) {
  // SPEC D6, D7: an actor has at most one unit queued; one that re-queues
  // itself gets one unit per macrotask, its own throughput being its batch.
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  ThroughputDispatcher d(16);
  d.bind(isolate);
  std::map<std::uint64_t, int> perMacrotask;
  int steps = 0;
  ReusableTask self;
  self.fn = [&] {
    ++perMacrotask[isolate.stats().macrotasks];
    if (++steps < 10) d.execute(self);
  };
  isolate.post([&] { d.execute(self); });
  isolate.runUntilIdle();
  EXPECT_EQ(steps, 10);
  EXPECT_EQ(perMacrotask.size(), 10u);
}

TEST(ThroughputDispatcher, AThrowingUnitDoesNotStrandTheRestOfItsBatch) {
  // SPEC D12
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  ThroughputDispatcher d(8);
  d.bind(isolate);
  int errors = 0;
  d.setOnError([&](std::exception_ptr, std::string_view) { ++errors; });
  int ran = 0;
  isolate.post([&] {
    for (int i = 0; i < 20; ++i) {
      d.execute([&, i] {
        ++ran;
        if (i == 3) throw std::runtime_error("unit 3");
      });
    }
  });
  isolate.runUntilIdle();
  EXPECT_EQ(ran, 20);
  EXPECT_EQ(errors, 1);
}

TEST(ThroughputDispatcher, DisposesItsQueueWhenTheLoopStops) {
  Isolate isolate;
  ThroughputDispatcher d(2);
  d.bind(isolate);
  std::vector<std::unique_ptr<ReusableTask>> units;
  for (int i = 0; i < 5; ++i) units.push_back(std::make_unique<ReusableTask>());
  isolate.post([&] {
    for (auto& u : units) d.execute(*u);
    isolate.stop();
  });
  isolate.run();
  int discarded = 0;
  for (auto& u : units) discarded += u->discarded;
  EXPECT_EQ(discarded, 5);
}

}  // namespace
}  // namespace coreactor
