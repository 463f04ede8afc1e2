// Asio I/O on the isolate's loop. SPEC L2, L3, L6.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <thread>

#include "TestSupport.hpp"
#include "coreactor/Asio.hpp"
#include "coreactor/Isolate.hpp"

namespace coreactor {
namespace {

namespace asio = boost::asio;
using Entries = std::vector<std::string>;
using Socket = asio::local::stream_protocol::socket;

TEST(IsolateIo, RunsAnIoCompletionOnTheLoopFollowedByItsMicrotasks) {
  // SPEC L2, L3: sockets and user code share one loop; microtasks drain after
  // an I/O completion before the next step.
  Isolate isolate;
  Socket reader(isolate.ioContext());
  Socket writer(isolate.ioContext());
  asio::local::connect_pair(reader, writer);
  test::Log log;
  std::array<char, 4> buffer{};
  asio::async_read(reader, asio::buffer(buffer), [&](boost::system::error_code ec, std::size_t n) {
    EXPECT_FALSE(ec);
    EXPECT_EQ(Isolate::current(), &isolate);
    log("read " + std::string(buffer.data(), n));
    isolate.queueMicrotask(log.recorder("read.micro"));
    isolate.post(log.recorder("after"));
  });
  asio::write(writer, asio::buffer("ping", 4));
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"read ping", "read.micro", "after"}));
  EXPECT_GE(isolate.stats().ioHandlers, 1u);
}

TEST(IsolateIo, PendingIoKeepsRunUntilIdleAlive) {
  // Outstanding Asio work is referenced: the loop waits for the read even
  // though no task or timer is queued.
  Isolate isolate;
  Socket reader(isolate.ioContext());
  Socket writer(isolate.ioContext());
  asio::local::connect_pair(reader, writer);
  std::array<char, 4> buffer{};
  bool read = false;
  asio::async_read(reader, asio::buffer(buffer),
                   [&](boost::system::error_code ec, std::size_t) { read = !ec; });
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    boost::system::error_code ec;
    asio::write(writer, asio::buffer("pong", 4), ec);
  });
  isolate.runUntilIdle();
  late.join();
  EXPECT_TRUE(read);
}

TEST(IsolateIo, AnIoHandlerThatThrowsDoesNotTakeTheLoopDown) {
  Isolate isolate({.name = "io"});
  bool after = false;
  asio::post(isolate.ioContext(), [] { throw std::runtime_error("boom in an I/O handler"); });
  asio::post(isolate.ioContext(), [&] { after = true; });
  testing::internal::CaptureStderr();
  isolate.runUntilIdle();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(after);
  EXPECT_NE(err.find("boom in an I/O handler"), std::string::npos) << err;
}

TEST(IsolateIo, ABusyLoopLooksAtIdleIoLessOftenAndStillRunsACompletionWithinTheBackoff) {
  // SPEC L4: a loop kept busy by a macrotask that posts itself (one per
  // iteration) with a socket whose looks find nothing backs off to one look
  // every kIoPollBackoffMax iterations; data written at iteration 200 is
  // read within that many iterations, and the next iteration looks again.
  Isolate isolate;
  Socket reader(isolate.ioContext());
  Socket writer(isolate.ioContext());
  asio::local::connect_pair(reader, writer);
  constexpr std::uint64_t kWriteAt = 200;
  std::array<char, 1> buffer{};
  std::uint64_t readAt = 0;
  std::uint64_t pollsBeforeWrite = 0;
  std::uint64_t pollsAtRead = 0;
  std::uint64_t pollsAfterRead = 0;
  asio::async_read(reader, asio::buffer(buffer), [&](boost::system::error_code ec, std::size_t) {
    EXPECT_FALSE(ec);
    readAt = isolate.stats().iterations;
    pollsAtRead = isolate.stats().ioPolls;
  });
  std::function<void()> spin = [&] {
    const std::uint64_t iteration = isolate.stats().iterations;
    if (iteration == kWriteAt) {
      pollsBeforeWrite = isolate.stats().ioPolls;
      asio::write(writer, asio::buffer("x", 1));
    }
    if (readAt != 0 && iteration == readAt + 1) pollsAfterRead = isolate.stats().ioPolls;
    if (iteration < kWriteAt + 100) isolate.post([&] { spin(); });
  };
  isolate.post([&] { spin(); });
  isolate.runUntilIdle();
  ASSERT_GT(readAt, kWriteAt);
  EXPECT_LE(readAt - kWriteAt, Isolate::kIoPollBackoffMax);
  EXPECT_LE(pollsBeforeWrite, kWriteAt / Isolate::kIoPollBackoffMax + 4);
  EXPECT_GE(pollsBeforeWrite, kWriteAt / Isolate::kIoPollBackoffMax);
  EXPECT_EQ(pollsAfterRead, pollsAtRead + 1) << "a look that ran a completion is followed by one "
                                                "in the next iteration";
}

}  // namespace
}  // namespace coreactor
