// The flat map of routes an isolate keeps for actors that moved
// (runtime/RouteMap.hpp): set, replace, find and erase agree with
// std::unordered_map over a long random run that grows the table, packs keys
// into one run of slots and erases from its middle.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

#include "runtime/RouteMap.hpp"

namespace coreactor::detail {
namespace {

TEST(RouteMap, AnEmptyMapFindsNothingAndForgetsNothing) {
  RouteMap routes;
  EXPECT_TRUE(routes.empty());
  EXPECT_EQ(routes.find(42), nullptr);
  routes.erase(42);
  EXPECT_TRUE(routes.empty());
}

TEST(RouteMap, ASetIsFoundReplacedAndForgotten) {
  RouteMap routes;
  routes.set(7, 70);
  ASSERT_NE(routes.find(7), nullptr);
  EXPECT_EQ(*routes.find(7), 70u);
  routes.set(7, 71);  // a new route replaces the old
  EXPECT_EQ(*routes.find(7), 71u);
  EXPECT_EQ(routes.size(), 1u);
  routes.erase(7);
  EXPECT_EQ(routes.find(7), nullptr);
  EXPECT_TRUE(routes.empty());
}

TEST(RouteMap, AgreesWithAStandardMapOverARandomRun) {
  RouteMap routes;
  std::unordered_map<std::uint64_t, std::uint64_t> expected;
  std::mt19937_64 random(12345);
  // Keys from a small range, so that runs of slots form, and ids as the
  // runtime makes them (large, with low bits alike).
  const auto key = [&] {
    const std::uint64_t k = random() % 2000;
    return (random() & 1) != 0 ? k : (k << 32) | 0x1000;
  };
  for (int step = 0; step < 200'000; ++step) {
    const std::uint64_t k = key();
    switch (random() % 3) {
      case 0:
      case 1: {
        const std::uint64_t v = random();
        routes.set(k, v);
        expected[k] = v;
        break;
      }
      default:
        routes.erase(k);
        expected.erase(k);
        break;
    }
    if (step % 1000 == 0) {
      ASSERT_EQ(routes.size(), expected.size()) << "step " << step;
      for (const auto& [k2, v2] : expected) {
        const std::uint64_t* found = routes.find(k2);
        ASSERT_NE(found, nullptr) << "key " << k2 << " lost at step " << step;
        ASSERT_EQ(*found, v2);
      }
    }
    const std::uint64_t* found = routes.find(k);
    const auto it = expected.find(k);
    ASSERT_EQ(found != nullptr, it != expected.end()) << "step " << step;
    if (found != nullptr) {
      ASSERT_EQ(*found, it->second);
    }
  }
}

}  // namespace
}  // namespace coreactor::detail
