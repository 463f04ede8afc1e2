// The scheduler's reference namespace (runtime/ScheduleNames.hpp) against a
// std::unordered_map doing the same random work: open addressing with
// backward-shift deletion must find, refuse and forget exactly what the
// reference map does, through growth and long probe runs. SPEC S2.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>

#include "../runtime/ScheduleNames.hpp"

namespace coreactor::detail {
namespace {

TEST(ScheduleNames, AgreesWithAReferenceMapOverRandomInsertsFindsAndErases) {
  // SPEC S2.
  ScheduleNames names;
  std::unordered_map<std::string, ScheduleHandle> reference;
  std::mt19937 random(5);
  std::uint32_t nextSlot = 0;
  for (int step = 0; step < 200000; ++step) {
    // 3,000 possible names: the table fills, grows, and its runs get long.
    // A third are longer than a slot holds inline and live on the heap.
    const unsigned key = random() % 3000;
    const std::string name =
        key % 3 == 0 ? "a-longer-reference/" + std::to_string(key) : "n" + std::to_string(key);
    const std::uint64_t hash = ScheduleNames::hashOf(name);
    const unsigned op = random() % 3;
    if (op == 0) {
      const ScheduleHandle handle(0, nextSlot++, 1);
      const bool inserted = names.insert(name, hash, handle);
      ASSERT_EQ(inserted, reference.try_emplace(name, handle).second) << "step " << step;
    } else if (op == 1) {
      const ScheduleHandle* found = names.find(name, hash);
      const auto it = reference.find(name);
      ASSERT_EQ(found != nullptr, it != reference.end()) << "step " << step;
      if (found != nullptr) {
        ASSERT_EQ(*found, it->second);
      }
    } else {
      const auto it = reference.find(name);
      const ScheduleHandle handle = it != reference.end() ? it->second : ScheduleHandle(0, 0, 9);
      ASSERT_EQ(names.erase(hash, handle), it != reference.end()) << "step " << step;
      if (it != reference.end()) reference.erase(it);
    }
    ASSERT_EQ(names.size(), reference.size());
  }
  for (const auto& [name, handle] : reference) {
    const ScheduleHandle* found = names.find(name, ScheduleNames::hashOf(name));
    ASSERT_NE(found, nullptr) << name;
    EXPECT_EQ(*found, handle);
  }
}

TEST(ScheduleNames, ErasingNeedsTheHandleItWasBoundTo) {
  // SPEC S2: a stale schedule cannot free a name a newer one holds.
  ScheduleNames names;
  const std::uint64_t hash = ScheduleNames::hashOf("beat");
  ASSERT_TRUE(names.insert("beat", hash, ScheduleHandle(0, 1, 1)));
  EXPECT_FALSE(names.insert("beat", hash, ScheduleHandle(0, 2, 1)));
  EXPECT_FALSE(names.erase(hash, ScheduleHandle(0, 1, 2)));
  EXPECT_TRUE(names.erase(hash, ScheduleHandle(0, 1, 1)));
  EXPECT_EQ(names.find("beat", hash), nullptr);
}

}  // namespace
}  // namespace coreactor::detail
