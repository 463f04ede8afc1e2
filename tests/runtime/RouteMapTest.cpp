// The flat map of routes an isolate keeps for actors that moved
// (runtime/RouteMap.hpp): set, replace, find and erase agree with
// std::unordered_map over a long random run that grows the table, packs keys
// into one run of slots and erases from its middle. And the cache in front
// of the routes that end on the isolate itself (RouteCache).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

#include "runtime/ActorTable.hpp"
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

// An id whose slot bits are `slot` (ActorRef's layout), of `generation`.
std::uint64_t idOf(std::uint64_t isolate, std::uint64_t slot, std::uint64_t generation) {
  return (isolate << 52) | (slot << 28) | generation;
}

TEST(RouteCache, FindsWhatWasNotedUntilItIsForgotten) {
  RouteCache cache;
  Endpoint cell(Endpoint::Kind::Cell);
  const std::uint64_t actor = idOf(0, 5, 1);
  EXPECT_EQ(cache.find(actor), nullptr);
  cache.note(actor, &cell);
  EXPECT_EQ(cache.find(actor), &cell);
  EXPECT_EQ(cache.find(idOf(0, 5, 2)), nullptr);  // another generation of the slot
  EXPECT_EQ(cache.find(idOf(1, 5, 1)), nullptr);  // the same slot of another isolate
  cache.forget(actor);
  EXPECT_EQ(cache.find(actor), nullptr);
}

TEST(RouteCache, AnActorOnTheSameLineTakesItAndForgettingTheOtherLeavesIt) {
  RouteCache cache;
  Endpoint first(Endpoint::Kind::Cell);
  Endpoint second(Endpoint::Kind::Cell);
  const std::uint64_t a = idOf(0, 3, 1);
  const std::uint64_t b = idOf(1, 3 + RouteCache::kLines, 1);  // the same line
  cache.note(a, &first);
  cache.note(b, &second);
  EXPECT_EQ(cache.find(a), nullptr);  // found through its route again
  EXPECT_EQ(cache.find(b), &second);
  cache.forget(a);  // not on its line any more: the line stays
  EXPECT_EQ(cache.find(b), &second);
  cache.note(idOf(0, 4, 1), &first);  // the next slot, the next line
  EXPECT_EQ(cache.find(b), &second);
  EXPECT_EQ(cache.find(idOf(0, 4, 1)), &first);
}

}  // namespace
}  // namespace coreactor::detail
