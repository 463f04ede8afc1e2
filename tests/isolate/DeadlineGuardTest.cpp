// The loop's check "is the earliest timer due?" without a clock read
// (isolate/DeadlineGuard.hpp): it may only ever answer "surely not yet" for
// a deadline that is still ahead. These tests sleep for at least a given
// time (sleep_for never returns early) and assert what the guard must then
// answer; none asserts how fast anything is.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "isolate/DeadlineGuard.hpp"

namespace coreactor::detail {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

Clock::time_point steadyNow() {
  return std::chrono::steady_clock::now();
}

/// A guard fed clock reads until its calibration is over (a few ms); the
/// test is skipped where the counter is not usable (the guard stays silent).
class CalibratedGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    guard.read(steadyNow());
    std::this_thread::sleep_for(DeadlineGuard::kCalibration * 2);
    guard.read(steadyNow());
    if (!guard.surelyBefore(steadyNow() + seconds(3600))) {
      GTEST_SKIP() << "no invariant time-stamp counter: the guard stays silent";
    }
  }
  DeadlineGuard guard;
};

TEST(DeadlineGuard, NeverAnswersBeforeItHasMeasuredTheCountersRate) {
  // SPEC L4: until then the loop reads the clock for every timer check.
  DeadlineGuard guard;
  EXPECT_FALSE(guard.surelyBefore(steadyNow() + seconds(3600)));
  guard.read(steadyNow());
  EXPECT_FALSE(guard.surelyBefore(steadyNow() + seconds(3600)));
}

TEST_F(CalibratedGuard, AFarDeadlineIsSurelyAheadAndAPastOneNever) {
  const Clock::time_point now = steadyNow();
  guard.read(now);
  EXPECT_TRUE(guard.surelyBefore(now + seconds(3600)));
  EXPECT_FALSE(guard.surelyBefore(now));
  EXPECT_FALSE(guard.surelyBefore(now - milliseconds(1)));
}

TEST_F(CalibratedGuard, ADeadlineThatTimeHasPassedIsNotSurelyAhead) {
  // SPEC L4: a timer due must not be skipped. 5 ms after the last clock
  // read, a deadline 2 ms after that read has come, whatever the counter.
  const Clock::time_point read = steadyNow();
  guard.read(read);
  std::this_thread::sleep_for(milliseconds(5));
  EXPECT_FALSE(guard.surelyBefore(read + milliseconds(2)));
  EXPECT_TRUE(guard.surelyBefore(read + seconds(3600)));
}

}  // namespace
}  // namespace coreactor::detail
