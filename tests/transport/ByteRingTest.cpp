// The ring of bytes between two ranks of one machine
// (transport/mpi/ByteRing.hpp): a stream, so the tests check that every byte
// comes out once and in order through many laps of a small ring, with writes
// cut where the room ends and reads cut where the data wraps, first on one
// thread and then with a producer and a consumer thread at full speed (the
// two processes of a real pair share the ring the same way, through
// lock-free atomics). SPEC X2, X3.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <thread>

#include "transport/mpi/ByteRing.hpp"

namespace coreactor::transport {
namespace {

/// Memory for one ring, formatted, and freed after.
struct SharedRing {
  explicit SharedRing(std::size_t dataBytes)
      : memory(static_cast<char*>(
            ::operator new (ByteRing::footprint(dataBytes), std::align_val_t{ByteRing::kLine}))) {
    ByteRing::format(memory);
  }
  ~SharedRing() { ::operator delete (memory, std::align_val_t{ByteRing::kLine}); }
  SharedRing(const SharedRing&) = delete;
  SharedRing& operator=(const SharedRing&) = delete;
  char* memory;
};

/// Byte `i` of the test stream: not periodic in the ring's size.
char streamByte(std::uint64_t i) {
  return static_cast<char>((i * 131 + i / 7) & 0xff);
}

TEST(ByteRing, CarriesAStreamInOrderThroughManyLapsInPiecesOfAnySize) {
  // SPEC X2: nothing lost, duplicated or reordered, whatever the cuts.
  constexpr std::size_t kData = 64;
  SharedRing memory(kData);
  ByteRing producer(memory.memory, kData);
  ByteRing consumer(memory.memory, kData);
  std::mt19937 random(11);
  std::uint64_t written = 0;
  std::uint64_t read = 0;
  std::string chunk;
  int wrapped = 0;
  for (int step = 0; step < 20000; ++step) {
    chunk.clear();
    const std::size_t want = random() % 100;  // sometimes more than the ring holds
    for (std::size_t i = 0; i < want; ++i) chunk += streamByte(written + i);
    written += producer.write(chunk.data(), chunk.size());
    ASSERT_LE(written - read, kData);
    if (random() % 3 != 0) {
      int pieces = 0;
      std::uint64_t at = read;  // a second piece goes on where the first ended
      read += consumer.read([&](const char* bytes, std::size_t size) {
        ++pieces;
        for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(bytes[i], streamByte(at + i));
        at += size;
      });
      ASSERT_EQ(at, read);
      wrapped += pieces == 2 ? 1 : 0;
      EXPECT_FALSE(consumer.ready());
    }
  }
  std::uint64_t at = read;
  read += consumer.read([&](const char* bytes, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(bytes[i], streamByte(at + i));
    at += size;
  });
  EXPECT_EQ(read, written);
  EXPECT_GT(written, 100 * kData);  // many laps
  EXPECT_GT(wrapped, 0);            // and reads that wrapped
}

TEST(ByteRing, AFullRingTakesNothingMoreUntilTheConsumerGivesRoomBack) {
  // SPEC X3: a bounded path; the producer learns of the room it has.
  constexpr std::size_t kData = 16;
  SharedRing memory(kData);
  ByteRing producer(memory.memory, kData);
  ByteRing consumer(memory.memory, kData);
  const std::string bytes(40, 'x');
  EXPECT_FALSE(consumer.ready());
  EXPECT_EQ(producer.write(bytes.data(), 10), 10u);
  EXPECT_TRUE(consumer.ready());
  EXPECT_EQ(producer.write(bytes.data(), bytes.size()), 6u);  // what is left of 16
  EXPECT_EQ(producer.write(bytes.data(), 1), 0u);
  std::size_t taken = 0;
  EXPECT_EQ(consumer.read([&](const char*, std::size_t size) { taken += size; }), 16u);
  EXPECT_EQ(taken, 16u);
  EXPECT_FALSE(consumer.ready());
  EXPECT_EQ(consumer.read([](const char*, std::size_t) { FAIL() << "nothing was there"; }), 0u);
  EXPECT_EQ(producer.write(bytes.data(), bytes.size()), 16u);  // all the room again
}

TEST(ByteRing, TwoThreadsAtFullSpeedMoveEveryByteOnceInOrder) {
  // SPEC X2: the producer's and the consumer's counters cross between
  // threads (processes, in a cluster) with release and acquire only.
  constexpr std::size_t kData = 4096;
  constexpr std::uint64_t kBytes = std::uint64_t{8} << 20;
  SharedRing memory(kData);
  ByteRing producer(memory.memory, kData);
  ByteRing consumer(memory.memory, kData);
  std::thread writer([&] {
    std::mt19937 random(5);
    std::string chunk;
    for (std::uint64_t written = 0; written < kBytes;) {
      chunk.clear();
      const std::size_t want = std::min<std::uint64_t>(1 + random() % 700, kBytes - written);
      for (std::size_t i = 0; i < want; ++i) chunk += streamByte(written + i);
      std::size_t put = 0;
      while (put < want) {
        const std::size_t n = producer.write(chunk.data() + put, want - put);
        if (n == 0) std::this_thread::yield();
        put += n;
      }
      written += want;
    }
  });
  std::uint64_t read = 0;
  std::uint64_t wrong = 0;
  while (read < kBytes) {
    if (!consumer.ready()) {
      std::this_thread::yield();
      continue;
    }
    consumer.read([&](const char* bytes, std::size_t size) {
      for (std::size_t i = 0; i < size; ++i) wrong += bytes[i] != streamByte(read + i) ? 1 : 0;
      read += size;
    });
  }
  writer.join();
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(read, kBytes);
  EXPECT_FALSE(consumer.ready());
}

}  // namespace
}  // namespace coreactor::transport
