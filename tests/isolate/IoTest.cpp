// Asio I/O on the isolate's loop. SPEC L2, L3, L6.
#include <gtest/gtest.h>

#include <array>
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

}  // namespace
}  // namespace coreactor
