// The per-thread cache of small blocks that actor cells and actor objects
// come from (isolate/SmallBlocks.hpp), and Actor's allocation functions that
// use it. SPEC A1, A5: spawning and stopping in bursts.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <thread>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "isolate/SmallBlocks.hpp"

namespace coreactor {
namespace {

using detail::SmallBlocks;

TEST(SmallBlocks, ClassesAreMallocsUsableSizesAndHoldTheirRequest) {
  // A block is allocated at its class's size: 24, 40, 56, ... bytes, the
  // usable sizes of malloc's chunks, so it takes the chunk a plain new of
  // the object would take.
  EXPECT_EQ(SmallBlocks::bytesOf(SmallBlocks::classOf(1)), 24u);
  EXPECT_EQ(SmallBlocks::bytesOf(SmallBlocks::classOf(16)), 24u);
  EXPECT_EQ(SmallBlocks::bytesOf(SmallBlocks::classOf(24)), 24u);
  EXPECT_EQ(SmallBlocks::bytesOf(SmallBlocks::classOf(25)), 40u);
  EXPECT_EQ(SmallBlocks::bytesOf(SmallBlocks::classOf(168)), 168u);
  EXPECT_EQ(SmallBlocks::bytesOf(SmallBlocks::classOf(169)), 184u);
  EXPECT_EQ(SmallBlocks::bytesOf(SmallBlocks::classOf(SmallBlocks::kLargest)),
            SmallBlocks::kLargest);
  for (std::size_t bytes = 1; bytes <= SmallBlocks::kLargest; ++bytes) {
    const std::size_t cls = SmallBlocks::classOf(bytes);
    ASSERT_LT(cls, SmallBlocks::kClasses) << bytes;
    ASSERT_GE(SmallBlocks::bytesOf(cls), bytes) << bytes;
    ASSERT_TRUE(cls == 0 || SmallBlocks::bytesOf(cls - 1) < bytes) << bytes;
    // Every byte of the block is the caller's.
    void* block = SmallBlocks::get(bytes);
    std::memset(block, 0xA5, bytes);
    SmallBlocks::put(block, bytes);
  }
}

TEST(SmallBlocks, AFreedBlockIsTheNextOneOfItsClassAndAnotherClassDoesNotTakeIt) {
  void* a = SmallBlocks::get(168);
  SmallBlocks::put(a, 168);
  void* other = SmallBlocks::get(16);  // another class
  EXPECT_NE(other, a);
  void* b = SmallBlocks::get(160);  // the same class as 168
  EXPECT_EQ(b, a);
  SmallBlocks::put(b, 160);
  SmallBlocks::put(other, 16);
}

TEST(SmallBlocks, ABurstIsServedFromTheCacheUpToItsBoundAndBlocksMoveBetweenThreads) {
  // A burst freed on one thread serves the next burst there; blocks made on
  // one thread may be freed on another (a cell is made by the spawner and
  // freed on its isolate). A burst larger than the bound gives the rest back.
  const std::size_t bytes = 168;
  const std::size_t blockBytes = SmallBlocks::bytesOf(SmallBlocks::classOf(bytes));
  const std::size_t bound =
      (SmallBlocks::kParkBytes + blockBytes - 1) / blockBytes;  // just over kParkBytes
  std::vector<void*> earlier;  // what this thread parked before: out of the way
  while (SmallBlocks::parked(bytes) != 0) earlier.push_back(SmallBlocks::get(bytes));
  std::vector<void*> made(bound + 100);
  std::thread maker([&] {
    for (void*& block : made) block = SmallBlocks::get(bytes);
  });
  maker.join();
  std::set<void*> freed(made.begin(), made.end());
  for (void* block : made) SmallBlocks::put(block, bytes);
  EXPECT_EQ(SmallBlocks::parked(bytes), bound);  // the rest went back to operator delete
  std::vector<void*> again(bound);
  for (void*& block : again) {
    block = SmallBlocks::get(bytes);
    EXPECT_EQ(freed.count(block), 1u);  // a parked block, not a fresh one
  }
  EXPECT_EQ(SmallBlocks::parked(bytes), 0u);
  for (void* block : again) SmallBlocks::put(block, bytes);
  for (void* block : earlier) SmallBlocks::put(block, bytes);
}

TEST(SmallBlocks, LargerRequestsGoStraightToOperatorNew) {
  // A block parked in the largest class, which a larger request must not take.
  SmallBlocks::put(SmallBlocks::get(SmallBlocks::kLargest), SmallBlocks::kLargest);
  auto parkedNow = [] {
    std::vector<std::size_t> counts;
    for (std::size_t cls = 0; cls < SmallBlocks::kClasses; ++cls) {
      counts.push_back(SmallBlocks::parked(SmallBlocks::bytesOf(cls)));
    }
    return counts;
  };
  const std::vector<std::size_t> before = parkedNow();
  ASSERT_GE(before.back(), 1u);
  void* block = SmallBlocks::get(SmallBlocks::kLargest + 1);
  std::memset(block, 0x5A, SmallBlocks::kLargest + 1);  // every byte is the caller's
  EXPECT_EQ(parkedNow(), before) << "a larger request took a parked block";
  SmallBlocks::put(block, SmallBlocks::kLargest + 1);
  EXPECT_EQ(parkedNow(), before) << "a larger block was parked instead of freed";
}

struct Small : Actor {
  void receive(ReceiveContext&) override {}
};
struct Big : Actor {
  void receive(ReceiveContext&) override {}
  char payload[1000] = {};
};
struct alignas(64) Aligned : Actor {
  void receive(ReceiveContext&) override {}
  int value = 7;
};
struct Throws : Actor {
  Throws() { throw std::runtime_error("no"); }
  void receive(ReceiveContext&) override {}
};

TEST(SmallBlocks, EveryFormOfNewWorksOnAnActor) {
  // SPEC A1: Actor's class-level allocation functions hide the global ones,
  // so each form is declared: plain, sized delete through the base, over-
  // aligned, nothrow, placement; a throwing constructor frees its block.
  std::unique_ptr<Actor> small = std::make_unique<Small>();
  std::unique_ptr<Actor> big = std::make_unique<Big>();
  auto aligned = std::make_unique<Aligned>();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned.get()) % 64, 0u);
  EXPECT_EQ(aligned->value, 7);
  std::unique_ptr<Actor> nothrow(new (std::nothrow) Small);
  EXPECT_NE(nothrow, nullptr);
  alignas(Small) unsigned char storage[sizeof(Small)];
  Actor* placed = new (storage) Small;
  EXPECT_EQ(static_cast<void*>(placed), static_cast<void*>(storage));
  placed->~Actor();
  EXPECT_THROW(std::make_unique<Throws>(), std::runtime_error);
  EXPECT_THROW(static_cast<void>(new (std::nothrow) Throws), std::runtime_error);
  // A block freed through the base is reused for the next actor of its size.
  Actor* first = small.get();
  small.reset();
  std::unique_ptr<Actor> next = std::make_unique<Small>();
  EXPECT_EQ(next.get(), first);
}

}  // namespace
}  // namespace coreactor
