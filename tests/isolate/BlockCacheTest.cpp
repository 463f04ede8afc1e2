// The per-thread block caches, BlockCache (mailbox segments, ring buffers,
// reply slots) and SmallBlocks (actor cells and objects): the fixed bound
// off a loop, parking what bursts need on an isolate's loop, and the one
// timer that trims what stayed unused (isolate/CacheTrim.hpp). SPEC A4: a
// mailbox's bursts recycle their segments; SPEC A1, A5: so do spawn bursts.
// Each test runs on a thread of its own, so that it starts from an empty cache.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Clock.hpp"
#include "coreactor/Isolate.hpp"
#include "isolate/BlockCache.hpp"
#include "isolate/CacheTrim.hpp"
#include "isolate/SmallBlocks.hpp"

namespace coreactor {
namespace {

using detail::BlockCache;
using detail::kTrimPeriod;
using detail::SmallBlocks;

// The segments' class: 2 KiB, 256 of them at the fixed bound.
constexpr std::size_t kClass = 3;
constexpr std::size_t kFixed = BlockCache::kParkEach / BlockCache::bytesOf(kClass);

template <class F>
void onFreshThread(F&& f) {
  std::thread t(std::forward<F>(f));
  t.join();
}

// Takes `n` blocks of kClass from the thread's cache and gives them all back.
void burst(std::size_t n) {
  BlockCache& cache = BlockCache::local();
  std::vector<void*> blocks;
  for (std::size_t i = 0; i < n; ++i) blocks.push_back(cache.get(kClass));
  for (void* b : blocks) cache.put(b, kClass);
}

// A burst of `n` blocks on `isolate`'s loop, which then runs until idle.
void burstOn(Isolate& isolate, std::size_t n) {
  isolate.post([n] { burst(n); });
  isolate.runUntilIdle();
}

// Lets `periods` trim periods pass on `isolate`'s manual clock, running
// the loop after each, so that a due trim timer fires.
void passPeriods(Isolate& isolate, ManualClock& clock, int periods) {
  for (int period = 0; period < periods; ++period) {
    clock.advance(kTrimPeriod);
    isolate.post([] {});
    isolate.runUntilIdle();
  }
}

TEST(BlockCache, OffALoopAThreadParksUpToTheFixedBoundAndFreesTheRest) {
  onFreshThread([] {
    burst(3 * kFixed);
    EXPECT_EQ(BlockCache::local().parked(kClass), kFixed);
    EXPECT_FALSE(BlockCache::local().trim());  // nothing above the bound
    EXPECT_EQ(BlockCache::local().parked(kClass), kFixed);
  });
}

TEST(BlockCache, OnALoopABurstStaysParkedAndOneTimerTrimsWhatStaysUnused) {
  onFreshThread([] {
    ManualClock clock;
    Isolate isolate({.clock = &clock});
    BlockCache& cache = BlockCache::local();
    burstOn(isolate, 3 * kFixed);
    // The whole burst is parked, for the next one; one unreferenced timer
    // is armed to trim it (runUntilIdle did not wait for it).
    EXPECT_EQ(cache.parked(kClass), 3 * kFixed);
    EXPECT_EQ(isolate.pendingTimers(), 1u);

    // A second burst of the same size takes only parked blocks.
    burstOn(isolate, 3 * kFixed);
    EXPECT_EQ(cache.parked(kClass), 3 * kFixed);
    EXPECT_EQ(isolate.pendingTimers(), 1u);

    // First period: every block was taken during it, so none is given back;
    // the timer arms again for the next.
    passPeriods(isolate, clock, 1);
    EXPECT_EQ(cache.parked(kClass), 3 * kFixed);
    EXPECT_EQ(isolate.pendingTimers(), 1u);

    // A smaller burst in the second period uses a third of them: the other
    // two thirds stayed unused through the period and go, but not below the
    // fixed bound.
    burstOn(isolate, kFixed);
    passPeriods(isolate, clock, 1);
    EXPECT_EQ(cache.parked(kClass), kFixed);
    // At the bound: no timer is left.
    EXPECT_EQ(isolate.pendingTimers(), 0u);
  });
}

TEST(BlockCache, AnIdleLoopGivesABurstBackWithinTwoPeriods) {
  onFreshThread([] {
    ManualClock clock;
    Isolate isolate({.clock = &clock});
    burstOn(isolate, 4 * kFixed);
    EXPECT_EQ(BlockCache::local().parked(kClass), 4 * kFixed);
    passPeriods(isolate, clock, 2);
    EXPECT_EQ(BlockCache::local().parked(kClass), kFixed);
    EXPECT_EQ(isolate.pendingTimers(), 0u);
  });
}

TEST(BlockCache, ATimerDroppedWithItsIsolateLetsTheNextIsolateArmItsOwn) {
  onFreshThread([] {
    ManualClock clock;
    {
      Isolate first({.clock = &clock});
      burstOn(first, 2 * kFixed);
      EXPECT_EQ(first.pendingTimers(), 1u);
    }  // its timer is dropped unrun
    Isolate second({.clock = &clock});
    burstOn(second, 3 * kFixed);
    EXPECT_EQ(second.pendingTimers(), 1u);  // armed anew, on this isolate
    passPeriods(second, clock, 2);
    EXPECT_EQ(BlockCache::local().parked(kClass), kFixed);
  });
}

TEST(BlockCache, OneTimerTrimsSmallBlocksToo) {
  onFreshThread([] {
    ManualClock clock;
    Isolate isolate({.clock = &clock});
    constexpr std::size_t kCell = 200;
    // put() parks while the class holds less than kParkBytes: the ceiling.
    const std::size_t bytes = SmallBlocks::bytesOf(SmallBlocks::classOf(kCell));
    const std::size_t fixed = (SmallBlocks::kParkBytes + bytes - 1) / bytes;
    isolate.post([&] {
      std::vector<void*> cells;
      for (std::size_t i = 0; i < 5 * fixed; ++i) cells.push_back(SmallBlocks::get(kCell));
      for (void* c : cells) SmallBlocks::put(c, kCell);
      burst(2 * kFixed);
    });
    isolate.runUntilIdle();
    EXPECT_EQ(SmallBlocks::parked(kCell), 5 * fixed);
    EXPECT_EQ(BlockCache::local().parked(kClass), 2 * kFixed);
    EXPECT_EQ(isolate.pendingTimers(), 1u);  // one timer for both caches
    passPeriods(isolate, clock, 2);
    EXPECT_EQ(SmallBlocks::parked(kCell), fixed);
    EXPECT_EQ(BlockCache::local().parked(kClass), kFixed);
    EXPECT_EQ(isolate.pendingTimers(), 0u);
  });
}

TEST(BlockCache, ALoopThatRunsSeveralIsolatesArmsOneTimerForItsThread) {
  // A manual system runs all of its isolates on one thread: the caches are
  // the thread's, and so is the one timer, on the isolate that armed it.
  onFreshThread([] {
    ManualClock clock;
    Isolate first({.clock = &clock});
    Isolate second({.clock = &clock});
    burstOn(first, 2 * kFixed);
    burstOn(second, 3 * kFixed);
    EXPECT_EQ(first.pendingTimers(), 1u);
    EXPECT_EQ(second.pendingTimers(), 0u);
    EXPECT_EQ(BlockCache::local().parked(kClass), 3 * kFixed);
    passPeriods(first, clock, 2);  // the timer fires where it was armed
    EXPECT_EQ(BlockCache::local().parked(kClass), kFixed);
  });
}

TEST(BlockCache, ParkingStopsAtTheCeiling) {
  onFreshThread([] {
    Isolate isolate;
    const std::size_t ceiling = BlockCache::kParkCeiling / BlockCache::bytesOf(kClass);
    burstOn(isolate, ceiling + 100);
    EXPECT_EQ(BlockCache::local().parked(kClass), ceiling);
  });
}

TEST(BlockCache, RepeatedMailboxBurstsReuseTheirSegments) {
  // SPEC A4: a mailbox that fills with a burst far above the fixed bound
  // (100,000 words: ~1,600 line-aligned segments) and drains again parks
  // them all on its isolate's thread, and the next burst takes them from there.
  onFreshThread([] {
    auto system = ActorSystem::create(
        "bursts", ActorSystemOptions::create().withManualRun().withLogLevel(LogLevel::Off));
    std::int64_t handled = 0;
    ActorRef sink = system->spawn("sink", [&handled](ReceiveContext& ctx) {
      if (ctx.get<int>() != nullptr) ++handled;
    });
    constexpr int kBurst = 100'000;
    std::size_t parkedAfterFirst = 0;
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < kBurst; ++i) sink.tell(i);
      system->runUntilIdle();
      if (round == 0) parkedAfterFirst = BlockCache::local().parked(kClass, true);
      // Nothing more was parked: the later bursts took the first one's segments.
      EXPECT_EQ(BlockCache::local().parked(kClass, true), parkedAfterFirst) << "round " << round;
    }
    EXPECT_EQ(handled, 3 * kBurst);
    EXPECT_GT(parkedAfterFirst, 1'500u);
    system->shutdown();
  });
}

}  // namespace
}  // namespace coreactor
