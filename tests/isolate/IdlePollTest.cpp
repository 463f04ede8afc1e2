// The rule by which an isolate's idle poll window adapts
// (isolate/IdlePoll.hpp): the arithmetic alone, apart from any clock. The
// loop's use of the window is tested in IsolateTest.cpp (the
// Isolate.*IdlePollWindow* tests) with the window it starts from.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "isolate/IdlePoll.hpp"

namespace coreactor::detail {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

constexpr nanoseconds kConfigured = microseconds(20);
constexpr nanoseconds kLongest = kConfigured * kIdlePollGrowth;

TEST(IdlePoll, WorkThatWokeTheLoopSoonDoublesTheWindowUpToEightTimesTheConfiguredOne) {
  nanoseconds window = kConfigured;
  std::vector<nanoseconds> seen;
  for (int i = 0; i < 5; ++i) {
    window = nextIdlePoll(window, kConfigured, microseconds(30), /*byWork=*/true);
    seen.push_back(window);
  }
  EXPECT_EQ(seen, (std::vector<nanoseconds>{microseconds(40), microseconds(80), microseconds(160),
                                            microseconds(160), microseconds(160)}));
  EXPECT_EQ(kLongest, microseconds(160));
}

TEST(IdlePoll, ALongSleepHalvesTheWindowDownToTheConfiguredOne) {
  nanoseconds window = kLongest;
  std::vector<nanoseconds> seen;
  for (int i = 0; i < 4; ++i) {
    // Long, whether work or a timer ended it.
    window = nextIdlePoll(window, kConfigured, kLongest + microseconds(1), /*byWork=*/i % 2 == 0);
    seen.push_back(window);
  }
  EXPECT_EQ(seen, (std::vector<nanoseconds>{microseconds(80), microseconds(40), microseconds(20),
                                            microseconds(20)}));
}

TEST(IdlePoll, AShortSleepEndedByNoWorkLeavesTheWindowAsItIs) {
  EXPECT_EQ(nextIdlePoll(microseconds(80), kConfigured, microseconds(10), false), microseconds(80));
}

TEST(IdlePoll, NoConfiguredWindowStaysNone) {
  EXPECT_EQ(nextIdlePoll(nanoseconds(0), nanoseconds(0), microseconds(1), true), nanoseconds(0));
  EXPECT_EQ(nextIdlePoll(microseconds(50), nanoseconds(0), microseconds(1), true), nanoseconds(0));
}

TEST(IdlePoll, AWindowOutsideItsBoundsIsBroughtBackFirst) {
  EXPECT_EQ(nextIdlePoll(nanoseconds(1), kConfigured, microseconds(10), false), kConfigured);
  EXPECT_EQ(nextIdlePoll(kLongest * 4, kConfigured, microseconds(10), true), kLongest);
}

}  // namespace
}  // namespace coreactor::detail
