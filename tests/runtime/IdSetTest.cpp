// The registry of top-level actors (runtime/IdSet.hpp) against a
// std::unordered_set doing the same random work: open addressing with
// backward-shift deletion, growth and shrinking must agree with it.
#include <gtest/gtest.h>

#include <random>
#include <unordered_set>
#include <vector>

#include "../runtime/IdSet.hpp"

namespace coreactor::detail {
namespace {

TEST(IdSet, AgreesWithAReferenceSetOverRandomInsertsErasesAndLookups) {
  IdSet ids;
  std::unordered_set<std::uint64_t> reference;
  std::mt19937_64 random(3);
  for (int step = 0; step < 300000; ++step) {
    // Ids shaped like ActorRef ids (isolate, slot, generation), from a pool
    // that first fills (the set grows) and later mostly drains (it shrinks).
    const std::uint64_t slot = random() % 5000;
    const std::uint64_t id = ((slot % 4) << 52) | (slot << 28) | (slot % 7);
    const bool filling = step < 150000;
    const unsigned op = random() % 10;
    if (op < (filling ? 6u : 2u)) {
      ASSERT_EQ(ids.insert(id), reference.insert(id).second) << "step " << step;
    } else if (op < 8) {
      ASSERT_EQ(ids.erase(id), reference.erase(id) == 1) << "step " << step;
    } else {
      ASSERT_EQ(ids.contains(id), reference.count(id) == 1) << "step " << step;
    }
    ASSERT_EQ(ids.size(), reference.size());
  }
  std::unordered_set<std::uint64_t> seen;
  ids.forEach([&](std::uint64_t id) { seen.insert(id); });
  EXPECT_EQ(seen, reference);
  // Emptied one by one, the set shrinks on the way down and keeps the rest.
  std::vector<std::uint64_t> left(reference.begin(), reference.end());
  for (std::size_t i = 0; i < left.size(); ++i) {
    ASSERT_TRUE(ids.erase(left[i]));
    ASSERT_FALSE(ids.contains(left[i]));
    if (i + 1 < left.size()) {
      ASSERT_TRUE(ids.contains(left[i + 1])) << i;
    }
    ASSERT_EQ(ids.size(), left.size() - i - 1);
  }
  EXPECT_TRUE(ids.empty());
}

}  // namespace
}  // namespace coreactor::detail
