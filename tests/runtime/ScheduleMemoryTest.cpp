// The scheduler's memory (runtime/schedule/Scheduler.hpp): entry chunks go back to the
// OS when schedules end, with hysteresis so that churn around one size maps
// and unmaps nothing, and handles stay exact across a chunk given back and
// mapped again. SPEC S2, S10. Measured in the scheduler's own accounting
// (Scheduler::memory()), never in RSS or time: bench schedule/memory* has the
// RSS (docs/scheduling.md, "Memory").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/testkit/CallingThreadDispatcher.hpp"
#include "coreactor/testkit/TestKit.hpp"
#include "isolate/CacheTrim.hpp"
#include "runtime/schedule/Scheduler.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using testkit::TestKit;

struct Tick {};

#ifdef NDEBUG
constexpr int kBurst = 1'000'000;
#else
constexpr int kBurst = 200'000;  // a debug or sanitizer build: the same shape, smaller
#endif
constexpr int kStanding = 100'000;  // live throughout, beside the bursts
constexpr int kChunk = 4096;        // entries per chunk (ScheduleEntries::kChunkSize)

const detail::Scheduler& schedulerOf(ActorSystem& system) {
  return detail::Scheduler::of(detail::coreOf(system), 0);
}

// Two trim periods on the manual clock: empty chunks beyond the reserve go
// back at the trim after the one that saw them empty (ScheduleEntries::TrimTask).
void trimTwice(TestKit& kit) {
  kit.advance(detail::kTrimPeriod);
  kit.advance(detail::kTrimPeriod);
}

ActorRef spawnCounter(ActorSystem& system, int& ticks) {
  return system.spawn("counter",
                      [&ticks](ReceiveContext& ctx) { ticks += ctx.is<Tick>() ? 1 : 0; });
}

// kStanding schedules live, then a burst of kBurst more (named or not) made
// and cancelled: the scheduler holds within 10% of what it held before the
// burst, and the standing ones still fire.
void expectABurstToBeGivenBack(bool named) {
  TestKit kit;
  ActorSystem& s = kit.system();
  int ticks = 0;
  ActorRef counter = spawnCounter(s, ticks);
  kit.run();
  for (int i = 0; i < kStanding; ++i) ASSERT_TRUE(s.scheduleOnce(Tick{}, counter, 1h).ok());
  const detail::Scheduler::Memory start = schedulerOf(s).memory();

  std::vector<ScheduleHandle> burst;
  burst.reserve(kBurst);
  for (int i = 0; i < kBurst; ++i) {
    const auto options = named ? ScheduleOptions::create().withReference("b" + std::to_string(i))
                               : ScheduleOptions();
    burst.push_back(s.scheduleOnce(Tick{}, counter, 2h, options).handle());
    ASSERT_TRUE(burst.back().valid()) << i;
  }
  const detail::Scheduler::Memory peak = schedulerOf(s).memory();
  EXPECT_GE(peak.reservedBytes - start.reservedBytes, std::size_t{kBurst - kChunk} * 120)
      << "the burst's entries, 120 bytes each (a few in the standing ones' last chunk)";
  for (int i = 0; i < kBurst; ++i) {
    const ScheduleResult r =
        named ? s.cancelSchedule("b" + std::to_string(i)) : s.cancelSchedule(burst[i]);
    ASSERT_FALSE(r.wait()) << i;
  }
  kit.run();
  EXPECT_EQ(schedulerOf(s).memory().chunkUnmaps, start.chunkUnmaps)
      << "nothing goes back in the middle of the cancels";
  trimTwice(kit);
  const detail::Scheduler::Memory after = schedulerOf(s).memory();
  EXPECT_LE(after.reservedBytes, start.reservedBytes + start.reservedBytes / 10)
      << "held before the burst " << start.reservedBytes << " B, at its peak " << peak.reservedBytes
      << " B, after it " << after.reservedBytes << " B";
  EXPECT_GE(after.chunkUnmaps - start.chunkUnmaps, std::size_t{kBurst / kChunk * 9 / 10})
      << "most of the burst's chunks went back to the OS";
  EXPECT_EQ(s.scheduleCount(), std::size_t{kStanding});
  kit.advance(1h);
  EXPECT_EQ(ticks, kStanding) << "the standing schedules, untouched by the burst";
}

TEST(ScheduleMemory, CancellingABurstOfUnnamedSchedulesGivesItsChunksBack) {
  // SPEC S10.
  expectABurstToBeGivenBack(false);
}

TEST(ScheduleMemory, CancellingABurstOfNamedSchedulesGivesItsChunksBack) {
  // SPEC S2, S10 (the name table's own shrinking: ScheduleNamesTest).
  expectABurstToBeGivenBack(true);
}

TEST(ScheduleMemory, FiringABurstGivesItsChunksBackToo) {
  // SPEC S10: one-shots that fire end like cancelled ones.
  TestKit kit;
  ActorSystem& s = kit.system();
  int ticks = 0;
  ActorRef counter = spawnCounter(s, ticks);
  kit.run();
  const detail::Scheduler::Memory start = schedulerOf(s).memory();
  for (int i = 0; i < kBurst / 4; ++i) ASSERT_TRUE(s.scheduleOnce(Tick{}, counter, 10ms).ok());
  EXPECT_GT(schedulerOf(s).memory().chunks, start.chunks + 1);
  kit.advance(10ms);
  EXPECT_EQ(ticks, kBurst / 4);
  trimTwice(kit);
  EXPECT_LE(schedulerOf(s).memory().chunks, start.chunks + 1) << "one chunk kept in reserve";
}

TEST(ScheduleMemory, ABurstThatRecursWithinATrimPeriodKeepsItsChunksWarm) {
  // SPEC S10: made, fired, made again before a trim: no chunk is given back
  // and mapped again in between (no page faulted in anew).
  TestKit kit;
  ActorSystem& s = kit.system();
  int ticks = 0;
  ActorRef counter = spawnCounter(s, ticks);
  kit.run();
  for (int i = 0; i < kBurst / 4; ++i) ASSERT_TRUE(s.scheduleOnce(Tick{}, counter, 10ms).ok());
  kit.advance(10ms);
  const detail::Scheduler::Memory fired = schedulerOf(s).memory();
  for (int i = 0; i < kBurst / 4; ++i) ASSERT_TRUE(s.scheduleOnce(Tick{}, counter, 10ms).ok());
  kit.advance(10ms);
  EXPECT_EQ(ticks, kBurst / 2);
  const detail::Scheduler::Memory again = schedulerOf(s).memory();
  EXPECT_EQ(again.chunkMaps, fired.chunkMaps);
  EXPECT_EQ(again.chunkUnmaps, fired.chunkUnmaps);
  trimTwice(kit);
  EXPECT_GT(schedulerOf(s).memory().chunkUnmaps, again.chunkUnmaps) << "then, unused, they go";
}

TEST(ScheduleMemory, ChurnAroundOneSizeNeitherMapsNorUnmapsChunks) {
  // SPEC S10: 4,000 schedules (4% of those live) made and cancelled, again
  // and again, beside 100,000 live: after the first round, no chunk is taken
  // or given back.
  TestKit kit;
  ActorSystem& s = kit.system();
  int ticks = 0;
  ActorRef counter = spawnCounter(s, ticks);
  kit.run();
  for (int i = 0; i < kStanding; ++i) ASSERT_TRUE(s.scheduleOnce(Tick{}, counter, 1h).ok());
  std::vector<ScheduleHandle> handles(4'000);
  const auto round = [&](int r) {
    for (ScheduleHandle& h : handles) h = s.scheduleOnce(Tick{}, counter, 1h).handle();
    // Cancelled in an order that differs per round: every other one, then the rest.
    for (std::size_t i = r % 2; i < handles.size(); i += 2)
      ASSERT_TRUE(s.cancelSchedule(handles[i]).ok());
    for (std::size_t i = 1 - r % 2; i < handles.size(); i += 2)
      ASSERT_TRUE(s.cancelSchedule(handles[i]).ok());
  };
  round(0);
  const detail::Scheduler::Memory warm = schedulerOf(s).memory();
  for (int r = 1; r <= 100; ++r) round(r);
  const detail::Scheduler::Memory churned = schedulerOf(s).memory();
  EXPECT_EQ(churned.chunkMaps, warm.chunkMaps);
  EXPECT_EQ(churned.chunkUnmaps, warm.chunkUnmaps);
  EXPECT_EQ(s.scheduleCount(), std::size_t{kStanding});
}

TEST(ScheduleMemory, OneScheduleSwingingAcrossAChunkBoundaryMapsAtMostOneChunk) {
  // SPEC S10: the count climbs past a chunk's end one schedule at a time,
  // making and cancelling one schedule ten times at every size on the way.
  TestKit kit;
  ActorSystem& s = kit.system();
  int ticks = 0;
  ActorRef counter = spawnCounter(s, ticks);
  kit.run();
  for (int i = 0; i < 2 * kChunk - 100; ++i) ASSERT_TRUE(s.scheduleOnce(Tick{}, counter, 1h).ok());
  const detail::Scheduler::Memory before = schedulerOf(s).memory();
  for (int size = 2 * kChunk - 100; size < 2 * kChunk + 100; ++size) {
    for (int swing = 0; swing < 10; ++swing) {
      ASSERT_TRUE(s.cancelSchedule(s.scheduleOnce(Tick{}, counter, 1h).handle()).ok());
    }
    ASSERT_TRUE(s.scheduleOnce(Tick{}, counter, 1h).ok());  // one more, for good
  }
  const detail::Scheduler::Memory after = schedulerOf(s).memory();
  EXPECT_LE(after.chunkMaps - before.chunkMaps, 1u);
  EXPECT_EQ(after.chunkUnmaps, before.chunkUnmaps);
}

TEST(ScheduleMemory, AHandleIntoAChunkGivenBackNeverMatchesTheScheduleThatReusesItsSlot) {
  // SPEC S2: a handle names a slot and a generation; a chunk given back and
  // mapped again starts its slots above every generation they had.
  TestKit kit;
  ActorSystem& s = kit.system();
  int ticks = 0;
  ActorRef counter = spawnCounter(s, ticks);
  kit.run();
  constexpr int kMany = 4 * kChunk;
  std::vector<ScheduleHandle> old;
  for (int i = 0; i < kMany; ++i) old.push_back(s.scheduleOnce(Tick{}, counter, 1h).handle());
  const detail::Scheduler::Memory full = schedulerOf(s).memory();
  for (ScheduleHandle h : old) ASSERT_FALSE(s.cancelSchedule(h).wait());
  trimTwice(kit);
  const detail::Scheduler::Memory emptied = schedulerOf(s).memory();
  ASSERT_GT(emptied.chunkUnmaps, full.chunkUnmaps) << "chunks were given back";
  for (ScheduleHandle h : old) {
    ASSERT_EQ(s.cancelSchedule(h).wait(), Error::ErrScheduleNotFound) << "into a chunk given back";
  }
  std::vector<ScheduleHandle> reused;
  for (int i = 0; i < kMany; ++i) reused.push_back(s.scheduleOnce(Tick{}, counter, 10ms).handle());
  ASSERT_GT(schedulerOf(s).memory().chunkMaps, emptied.chunkMaps) << "and mapped again";
  std::size_t sameSlot = 0;
  for (int i = 0; i < kMany; ++i) {
    EXPECT_EQ(s.cancelSchedule(old[i]).wait(), Error::ErrScheduleNotFound);
    EXPECT_EQ(s.pauseSchedule(old[i]).wait(), Error::ErrScheduleNotFound);
    sameSlot += old[i].slot() == reused[i].slot() ? 1 : 0;
  }
  EXPECT_GT(sameSlot, 0u) << "the new schedules did reuse the old slots";
  EXPECT_EQ(s.scheduleCount(), std::size_t{kMany}) << "no stale handle reached a new schedule";
  kit.advance(10ms);
  EXPECT_EQ(ticks, kMany);
}

TEST(ScheduleMemory, AHandlerCancellingWhatIsDueBesideItLetsTheExpiryFinishSafely) {
  // SPEC S10: on a dispatcher that runs the handler inside the expiry, the
  // first tick cancels every other schedule due with it, which empties their
  // chunks; the expiry skips what it had collected there, and the chunks go
  // back at the trims that follow.
  TestKit kit;
  ActorSystem& s = kit.system();
  std::vector<ScheduleHandle> due;
  int ticks = 0;
  ActorRef canceller = s.spawn(
      "canceller",
      [&](ReceiveContext& ctx) {
        if (!ctx.is<Tick>()) return;
        ++ticks;
        for (ScheduleHandle h : due) ctx.system().cancelSchedule(h);  // itself included: not found
      },
      ActorOptions::create().withDispatcher(std::make_shared<testkit::CallingThreadDispatcher>()));
  kit.run();
  for (int i = 0; i < 3 * kChunk; ++i)
    due.push_back(s.scheduleOnce(Tick{}, canceller, 10ms).handle());
  const detail::Scheduler::Memory before = schedulerOf(s).memory();
  kit.advance(10ms);
  EXPECT_EQ(ticks, 1) << "the others were cancelled before their turn";
  EXPECT_EQ(s.scheduleCount(), 0u);
  trimTwice(kit);
  EXPECT_GT(schedulerOf(s).memory().chunkUnmaps, before.chunkUnmaps);
  kit.advance(1h);
  EXPECT_EQ(ticks, 1);
}

}  // namespace
}  // namespace coreactor
