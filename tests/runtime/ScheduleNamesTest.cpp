// The scheduler's reference namespace (runtime/schedule/ScheduleNames.hpp) against a
// std::unordered_map doing the same random work: open addressing with
// backward-shift deletion must find, refuse and forget exactly what the
// reference map does, through growth and long probe runs. SPEC S2.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/schedule/ScheduleNames.hpp"

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

#ifdef NDEBUG
constexpr int kMany = 1'000'000;
#else
constexpr int kMany = 200'000;  // a debug or sanitizer build: the same shape, smaller
#endif

std::string nameOf(int key) {
  // A third longer than a slot holds inline: those live in blocks of their own.
  return key % 3 == 0 ? "a-longer-reference/" + std::to_string(key) : "n" + std::to_string(key);
}

TEST(ScheduleNames, AgreesWithAReferenceMapWhileGrowingAndShrinking) {
  // SPEC S2: three times, fill the table to 100,000 names and empty it down
  // to 1,000 in random order; it shrinks on the way down, and finds exactly
  // what is still bound throughout.
  ScheduleNames names;
  std::unordered_map<std::string, ScheduleHandle> reference;
  std::mt19937 random(11);
  std::uint32_t nextSlot = 0;
  for (int cycle = 0; cycle < 3; ++cycle) {
    std::vector<std::string> bound;
    for (int i = 0; i < 100'000; ++i) {
      const std::string name = nameOf(cycle * 1'000'000 + i);
      const ScheduleHandle handle(0, nextSlot++, 1);
      ASSERT_TRUE(names.insert(name, ScheduleNames::hashOf(name), handle));
      reference.emplace(name, handle);
      bound.push_back(name);
    }
    const std::size_t full = names.capacity();
    std::shuffle(bound.begin(), bound.end(), random);
    for (std::size_t i = 0; i + 1'000 < bound.size(); ++i) {
      const std::string& name = bound[i];
      ASSERT_TRUE(names.erase(ScheduleNames::hashOf(name), reference.at(name))) << name;
      reference.erase(name);
      if (i % 97 == 0) {  // a lookup of a bound name and of the one just freed
        const std::string& other = bound[bound.size() - 1 - i % 1'000];
        const ScheduleHandle* found = names.find(other, ScheduleNames::hashOf(other));
        ASSERT_NE(found, nullptr) << other;
        ASSERT_EQ(*found, reference.at(other));
        ASSERT_EQ(names.find(name, ScheduleNames::hashOf(name)), nullptr) << name;
      }
    }
    EXPECT_LT(names.capacity(), full / 4) << "cycle " << cycle << ": shrunk on the way down";
    ASSERT_EQ(names.size(), reference.size());
    for (const auto& [name, handle] : reference) {
      const ScheduleHandle* found = names.find(name, ScheduleNames::hashOf(name));
      ASSERT_NE(found, nullptr) << name;
      EXPECT_EQ(*found, handle);
    }
  }
}

TEST(ScheduleNames, ErasingAMillionNamesGivesTheTableBackToWithinATenthOfItsStart) {
  // SPEC S2: 100,000 names bound throughout (the table 38% full), a million
  // more bound and erased: the table's slots and long names' blocks come
  // back to within 10% of what they were before. (A shrink leaves the table
  // 25-50% full: one that was fuller than half before the burst comes back
  // one size larger, at most.)
  ScheduleNames names;
  for (int i = 0; i < 100'000; ++i) {
    ASSERT_TRUE(names.insert(nameOf(i), ScheduleNames::hashOf(nameOf(i)), ScheduleHandle(0, i, 1)));
  }
  const std::size_t start = names.reservedBytes();
  for (int i = 100'000; i < 100'000 + kMany; ++i) {
    ASSERT_TRUE(names.insert(nameOf(i), ScheduleNames::hashOf(nameOf(i)), ScheduleHandle(0, i, 1)));
  }
  const std::size_t peak = names.reservedBytes();
  EXPECT_GT(peak, start * 2) << "the burst grew the table";
  for (int i = 100'000; i < 100'000 + kMany; ++i) {
    ASSERT_TRUE(names.erase(ScheduleNames::hashOf(nameOf(i)), ScheduleHandle(0, i, 1)));
  }
  EXPECT_LE(names.reservedBytes(), start + start / 10)
      << "before " << start << " B, at the peak " << peak << " B";
  EXPECT_EQ(names.size(), 100'000u);
}

TEST(ScheduleNames, ChurnAroundOneSizeDoesNotRehashEachTime) {
  // SPEC S2: 10,000 names bound and erased again and again beside 100,000,
  // and from none (the floor keeps the table), rehash nothing after the
  // first round; one name in and out at the edge of growing, at most once.
  ScheduleNames names;
  const auto churn = [&](int base, int count, int rounds) {
    for (int r = 0; r < rounds; ++r) {
      for (int i = base; i < base + count; ++i) {
        ASSERT_TRUE(
            names.insert(nameOf(i), ScheduleNames::hashOf(nameOf(i)), ScheduleHandle(0, i, 1)));
      }
      for (int i = base; i < base + count; ++i) {
        ASSERT_TRUE(names.erase(ScheduleNames::hashOf(nameOf(i)), ScheduleHandle(0, i, 1)));
      }
    }
  };
  churn(5'000'000, 10'000, 1);  // from none: grows once to its size
  std::uint64_t resizes = names.resizes();
  churn(5'000'000, 10'000, 50);
  EXPECT_EQ(names.resizes(), resizes) << "from none and back";
  for (int i = 0; i < 100'000; ++i) {
    ASSERT_TRUE(names.insert(nameOf(i), ScheduleNames::hashOf(nameOf(i)), ScheduleHandle(0, i, 1)));
  }
  churn(5'000'000, 10'000, 1);
  resizes = names.resizes();
  churn(5'000'000, 10'000, 50);
  EXPECT_EQ(names.resizes(), resizes) << "beside 100,000";
  // To the edge of growing, then one in and out, a hundred times.
  int next = 100'000;
  while ((names.size() + 1) * 10 <= names.capacity() * 7) {
    ASSERT_TRUE(names.insert(nameOf(next), ScheduleNames::hashOf(nameOf(next)),
                             ScheduleHandle(0, next, 1)));
    ++next;
  }
  resizes = names.resizes();
  churn(6'000'000, 1, 100);
  EXPECT_LE(names.resizes(), resizes + 1) << "at the edge of growing";
}

}  // namespace
}  // namespace coreactor::detail
