// How an isolate's sampling for the balancer follows its traffic
// (runtime/balance/Balancer.hpp, Sampling): about a budget of samples per
// period whether its messages are cheap and many or heavy and few.
#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/balance/Balancer.hpp"

namespace coreactor::detail {
namespace {

constexpr std::size_t kBudget = Sampling::kBudget;

TEST(BalancerSampling, FewHeavyMessagesAreSampledMoreOftenNextPeriod) {
  // SPEC X4: 100 samples at one in 64 stood for 6,400 messages; the next
  // period samples so that the same traffic gives about half the budget.
  const std::uint32_t next = Sampling::nextEvery(64, 100, 6400);
  EXPECT_EQ(next, 6400u / (kBudget / 2));
  EXPECT_GT(6400 / next, kBudget / 4) << "the same traffic lands in the band";
}

TEST(BalancerSampling, AQuietPeriodSamplesEveryMessageOfTheNext) {
  // SPEC X4
  EXPECT_EQ(Sampling::nextEvery(64, 0, 0), 1u);
  EXPECT_EQ(Sampling::nextEvery(1, 3, 3), 1u);
}

TEST(BalancerSampling, AFloodIsSampledMoreThinlyUpToTheLeastOften) {
  // SPEC X4
  const std::uint64_t messages = 4'000'000;
  const std::uint32_t next = Sampling::nextEvery(64, messages / 64, messages);
  EXPECT_EQ(next, messages / (kBudget / 2));
  EXPECT_EQ(Sampling::nextEvery(Sampling::kMostEvery, 1'000'000, std::uint64_t{1} << 40),
            Sampling::kMostEvery);
}

TEST(BalancerSampling, APeriodWithinTheBandKeepsItsGap) {
  // SPEC X4: no change between a quarter of the budget and the budget.
  EXPECT_EQ(Sampling::nextEvery(64, kBudget / 4 + 1, 64 * (kBudget / 4 + 1)), 64u);
  EXPECT_EQ(Sampling::nextEvery(64, kBudget, 64 * kBudget), 64u);
  EXPECT_NE(Sampling::nextEvery(64, kBudget + 1, 64 * (kBudget + 1)), 64u);
  EXPECT_NE(Sampling::nextEvery(64, kBudget / 4, 64 * (kBudget / 4)), 64u);
}

TEST(BalancerSampling, ABurstPastTheBudgetThinsTheRestOfItsPeriod) {
  // SPEC X4: sampling every message when a burst comes, the gap doubles at
  // each budget's worth of samples; every sample keeps the gap it was taken
  // at, so the messages they stand for are counted right.
  Sampling sampling;
  sampling.every = 1;
  std::uint64_t messages = 0;
  std::uint32_t countdown = 1;
  for (std::uint64_t m = 0; m < (1 + 2 + 4 + 8) * kBudget; ++m) {
    if (--countdown != 0) continue;
    sampling.take(balance::Sample{1, balance::Sample::kNobody, 0, sampling.every});
    countdown = sampling.every;  // a fixed gap, to count exactly
    messages = m + 1;
  }
  ASSERT_EQ(sampling.taken.size(), 4 * kBudget) << "a budget each 1, 2, 4 and 8 apart";
  EXPECT_EQ(sampling.every, 16u);
  std::uint64_t stoodFor = 0;
  for (const balance::Sample& s : sampling.taken) stoodFor += s.every;
  EXPECT_EQ(stoodFor, messages);
}

}  // namespace
}  // namespace coreactor::detail
