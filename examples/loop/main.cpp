// The isolate loop on its own: a macrotask, a microtask, timers and a socket
// read on one thread, printed in the order the loop runs them.
#include <array>
#include <chrono>
#include <cstdio>

#include <coreactor/Asio.hpp>
#include <coreactor/coreactor.hpp>

using namespace coreactor;
using namespace std::chrono_literals;
namespace asio = boost::asio;

int main() {
  Isolate isolate({.name = "demo"});
  HybridDispatcher dispatcher;
  dispatcher.bind(isolate);

  asio::local::stream_protocol::socket reader(isolate.ioContext());
  asio::local::stream_protocol::socket writer(isolate.ioContext());
  asio::local::connect_pair(reader, writer);
  std::array<char, 5> buffer{};
  asio::async_read(reader, asio::buffer(buffer), [&](boost::system::error_code, std::size_t n) {
    std::printf("I/O: read '%.*s'\n", static_cast<int>(n), buffer.data());
    isolate.queueMicrotask([] { std::printf("  microtask after the I/O completion\n"); });
  });

  isolate.setTimeout(2ms, [] { std::printf("timer: 2 ms\n"); });
  isolate.setTimeout(1h, [] { std::printf("never: this timer is unreferenced\n"); },
                     {.referenced = false});
  isolate.post([&] {
    std::printf("macrotask 1\n");
    isolate.queueMicrotask([] { std::printf("  microtask queued by macrotask 1\n"); });
    dispatcher.execute([] { std::printf("  a unit on the hybrid dispatcher (a microtask)\n"); });
    isolate.post([] { std::printf("macrotask 3, posted by macrotask 1: next iteration\n"); });
    asio::write(writer, asio::buffer("hello", 5));
  });
  isolate.post([] { std::printf("macrotask 2\n"); });

  isolate.runUntilIdle();
  std::printf(
      "idle: %llu macrotasks, %llu microtasks, %llu timers, %zu timer left (unreferenced)\n",
      static_cast<unsigned long long>(isolate.stats().macrotasks),
      static_cast<unsigned long long>(isolate.stats().microtasks),
      static_cast<unsigned long long>(isolate.stats().timersFired), isolate.pendingTimers());
  return 0;
}
