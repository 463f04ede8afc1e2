// Timers of the loop: ordering, clearing, the manual clock. SPEC L2, L3.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>

#include "TestSupport.hpp"
#include "coreactor/Isolate.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using test::errorOf;
using test::Log;
using Entries = std::vector<std::string>;

TEST(IsolateTimers, EqualDeadlinesFireInTheOrderTheyWereArmed) {
  // SPEC L2 (documented ordering)
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  Log log;
  for (int i = 0; i < 6; ++i) isolate.setTimeout(5ms, log.recorder("t" + std::to_string(i)));
  clock.advance(5ms);
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"t0", "t1", "t2", "t3", "t4", "t5"}));
}

TEST(IsolateTimers, FireInDeadlineOrderOnlyOnceTheClockHasPassedThem) {
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  Log log;
  isolate.setTimeout(30ms, log.recorder("30"));
  isolate.setTimeout(10ms, log.recorder("10"));
  isolate.setTimeout(20ms, log.recorder("20"));
  isolate.runUntilIdle();  // a manual clock does not move by itself
  EXPECT_TRUE(log.entries.empty());
  clock.advance(20ms);
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"10", "20"}));
  clock.advance(10ms);
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"10", "20", "30"}));
}

TEST(IsolateTimers, DrainMicrotasksAfterEachTimerCallback) {
  // SPEC L3
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  Log log;
  isolate.setTimeout(1ms, [&] {
    log("t1");
    isolate.queueMicrotask(log.recorder("t1.micro"));
  });
  isolate.setTimeout(1ms, log.recorder("t2"));
  clock.advance(1ms);
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"t1", "t1.micro", "t2"}));
}

TEST(IsolateTimers, ATimerArmedByATimerWaitsForTheNextIteration) {
  // A zero-delay timer re-arming itself cannot hold the loop in the timer phase.
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  Log log;
  int rearmed = 0;
  std::function<void()> again = [&] {
    log("timer");
    if (++rearmed < 3) isolate.setTimeout(0ms, again);
  };
  isolate.setTimeout(0ms, again);
  isolate.post([&] {
    log("macro");
    isolate.post(log.recorder("macro2"));
  });
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"timer", "macro", "timer", "macro2", "timer"}));
}

TEST(IsolateTimers, ClearTimeoutDisarmsAndDisposesTheTask) {
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  test::ReusableTask task([] { FAIL() << "a cleared timer fired"; });
  const TimerId id = isolate.setTimeout(1ms, task);
  EXPECT_EQ(isolate.pendingTimers(), 1u);
  EXPECT_TRUE(isolate.clearTimeout(id));
  EXPECT_EQ(task.discarded, 1);
  EXPECT_FALSE(isolate.clearTimeout(id)) << "a stale id is recognised";
  EXPECT_FALSE(isolate.clearTimeout(TimerId{}));
  clock.advance(1s);
  isolate.runUntilIdle();
  EXPECT_EQ(isolate.pendingTimers(), 0u);
}

TEST(IsolateTimers, AFiredTimerIdIsStaleEvenWhenItsSlotIsReused) {
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  int second = 0;
  const TimerId first = isolate.setTimeout(0ms, [] {});
  isolate.runUntilIdle();
  const TimerId reused = isolate.setTimeout(1ms, [&] { ++second; });
  EXPECT_EQ(reused.slot, first.slot);
  EXPECT_FALSE(isolate.clearTimeout(first));
  clock.advance(1ms);
  isolate.runUntilIdle();
  EXPECT_EQ(second, 1);
}

// One timer of the random tests below, and the order the armed ones that
// were not cleared must fire in: by deadline, then by arm order.
struct Armed {
  int deadline;
  int seq;
  TimerId id;
  bool cleared;
};
std::vector<std::pair<int, int>> firingOrder(const std::vector<Armed>& armed) {
  std::vector<std::pair<int, int>> expected;
  for (const auto& a : armed) {
    if (!a.cleared) expected.emplace_back(a.deadline, a.seq);
  }
  std::sort(expected.begin(), expected.end());
  return expected;
}

TEST(IsolateTimers, ManyTimersWithRandomClearsFireInDeadlineThenArmOrder) {
  // The heap under churn: 20k timers, a third cleared at random.
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  std::mt19937 rng(7);
  std::vector<Armed> armed;
  std::vector<std::pair<int, int>> fired;
  for (int i = 0; i < 20000; ++i) {
    const int deadline = static_cast<int>(rng() % 500);
    const TimerId id =
        isolate.setTimeout(std::chrono::milliseconds(deadline),
                           [&fired, deadline, i] { fired.emplace_back(deadline, i); });
    armed.push_back({deadline, i, id, false});
  }
  for (auto& a : armed) {
    if (rng() % 3 == 0) a.cleared = isolate.clearTimeout(a.id);
  }
  const std::vector<std::pair<int, int>> expected = firingOrder(armed);
  clock.advance(1s);
  isolate.runUntilIdle();
  EXPECT_EQ(fired, expected);
}

TEST(IsolateTimers, MostlyAscendingTimersWithHeavyClearsFireInDeadlineThenArmOrder) {
  // The sorted lane beside the heap, and the rebuild once most entries are
  // cleared: 20k timers, most armed in deadline order (as timeouts are),
  // one in eight out of order, two thirds cleared; fired in four stages.
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  std::mt19937 rng(11);
  std::vector<Armed> armed;
  std::vector<std::pair<int, int>> fired;
  for (int i = 0; i < 20000; ++i) {
    const int deadline = rng() % 8 == 0 ? static_cast<int>(rng() % 1000) : 100 + i / 25;
    const TimerId id =
        isolate.setTimeout(std::chrono::milliseconds(deadline),
                           [&fired, deadline, i] { fired.emplace_back(deadline, i); });
    armed.push_back({deadline, i, id, false});
  }
  for (auto& a : armed) {
    if (rng() % 3 != 0) a.cleared = isolate.clearTimeout(a.id);
  }
  const std::vector<std::pair<int, int>> expected = firingOrder(armed);
  EXPECT_EQ(isolate.pendingTimers(), expected.size());
  for (int stage = 1; stage <= 4; ++stage) {
    clock.advance(250ms);
    isolate.runUntilIdle();
    const auto due = std::count_if(expected.begin(), expected.end(),
                                   [&](const auto& e) { return e.first <= 250 * stage; });
    EXPECT_EQ(static_cast<std::ptrdiff_t>(fired.size()), due) << "stage " << stage;
    EXPECT_EQ(isolate.pendingTimers(), expected.size() - fired.size());
  }
  EXPECT_EQ(fired, expected);
}

// A manual clock that counts its reads.
class CountingClock final : public Clock {
 public:
  time_point now() const noexcept override {
    ++reads;
    return inner.now();
  }
  bool isManual() const noexcept override { return true; }
  ManualClock inner;
  mutable int reads = 0;
};

TEST(IsolateTimers, CoarseTimersShareOneClockReadPerPassAndFireAfterTheirDelay) {
  // SPEC L2: 100 coarse timers armed in one pass cost at most one clock read
  // between them (100 precise ones read it 100 times), and each still fires
  // only once the clock has moved its delay past the pass's time.
  CountingClock clock;
  Isolate isolate({.clock = &clock});
  Log log;
  int readsCoarse = -1;
  int readsPrecise = -1;
  isolate.post([&] {
    const int before = clock.reads;
    for (int i = 0; i < 100; ++i) {
      isolate.setTimeout(10ms, log.recorder("coarse"), TimerOptions{.coarse = true});
    }
    readsCoarse = clock.reads - before;
    const int middle = clock.reads;
    for (int i = 0; i < 100; ++i) isolate.setTimeout(10ms, log.recorder("precise"));
    readsPrecise = clock.reads - middle;
  });
  isolate.runUntilIdle();
  EXPECT_LE(readsCoarse, 1);
  EXPECT_EQ(readsPrecise, 100);
  clock.inner.advance(9ms);
  isolate.runUntilIdle();
  EXPECT_TRUE(log.entries.empty());
  clock.inner.advance(1ms);
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries.size(), 200u);
  EXPECT_EQ(std::count(log.entries.begin(), log.entries.end(), "coarse"), 100);
}

TEST(IsolateTimers, ACoarseTimerArmedOutsideALoopPassReadsTheClock) {
  // Outside a pass (set-up here) the pass's time may be stale: it reads.
  CountingClock clock;
  Isolate isolate({.clock = &clock});
  Log log;
  isolate.runUntilIdle();  // a pass ran and ended
  clock.inner.advance(1h);
  const int before = clock.reads;
  isolate.setTimeout(10ms, log.recorder("coarse"), TimerOptions{.coarse = true});
  EXPECT_EQ(clock.reads - before, 1);
  clock.inner.advance(9ms);
  isolate.runUntilIdle();
  EXPECT_TRUE(log.entries.empty()) << "counted from now, not from the last pass an hour ago";
  clock.inner.advance(1ms);
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"coarse"}));
}

TEST(IsolateTimers, OnTheSteadyClockABusyLoopRunsATimerOnceItIsDueAndNeverBefore) {
  // SPEC L4: on the steady clock the loop skips its clock read while the
  // time-stamp counter shows the earliest timer cannot be due yet
  // (isolate/DeadlineGuard.hpp). A chain of macrotasks keeps the loop busy
  // (each posts the next) until a 3 ms timer has run: it runs between two
  // of them, and the steady clock has passed its deadline when it does.
  Isolate isolate;
  using Steady = std::chrono::steady_clock;
  Steady::time_point armed{};
  Steady::time_point ranAt{};
  bool ran = false;
  long links = 0;
  long linksWhenRan = -1;
  const auto giveUp = Steady::now() + 60s;
  std::function<void()> link = [&] {
    ++links;
    if (!ran && Steady::now() < giveUp) isolate.post(link);
  };
  isolate.post([&] {
    // A far timer, first in line once the other has fired (unreferenced:
    // it does not hold runUntilIdle()).
    isolate.setTimeout(
        1h, [] {}, TimerOptions{.referenced = false});
    armed = Steady::now();
    isolate.setTimeout(3ms, [&] {
      ranAt = Steady::now();
      ran = true;
      linksWhenRan = links;
    });
    isolate.post(link);
  });
  isolate.runUntilIdle();
  ASSERT_TRUE(ran) << "the chain ran " << links << " links over a minute without the timer";
  EXPECT_GE(ranAt - armed, 3ms);
  EXPECT_GT(linksWhenRan, 0);
  EXPECT_EQ(links, linksWhenRan + 1) << "the chain stopped right after the timer ran";
}

TEST(IsolateTimers, RefuseANegativeDelayWithErrInvalidDelay) {
  // Bad input
  Isolate isolate;
  EXPECT_EQ(errorOf([&] { isolate.setTimeout(-1ms, [] {}); }), Error::ErrInvalidDelay);
  test::ReusableTask task;
  EXPECT_EQ(errorOf([&] { isolate.setTimeout(-1ns, task); }), Error::ErrInvalidDelay);
  EXPECT_EQ(isolate.pendingTimers(), 0u);
}

}  // namespace
}  // namespace coreactor
