// A key-value store over HTTP/1.1, its connections served on the isolates'
// own loops and every request handled by an actor (README.md beside this
// file has the routes and the design).
//
//   GET /kv/<key>     200 and the value, or 404
//   PUT /kv/<key>     the body is the value: 201 (created) or 204 (replaced)
//   DELETE /kv/<key>  204, or 404
//   GET /metrics      the system's metrics, Prometheus text format 0.0.4
//
// One acceptor on isolate 0 hands connections round-robin to the isolates;
// each connection's socket lives on its isolate's io_context (Service.hpp).
// The map is split over 4 shard actors per isolate (Shards.hpp); a request
// asks the shard of its key and the answer is written back on the
// connection's own loop.
//
// SIGINT or SIGTERM stops it: no more connections, idle ones closed, the
// requests in flight answered; then the system shuts down and the program
// prints how many requests it answered.
//
//   example-http-service [--port P] [--isolates N] [--max-body BYTES]
//                        [--address A] [--ask-timeout-ms MS] [--shard-delay-ms MS]
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <coreactor/ActorSystem.hpp>
#include <coreactor/Asio.hpp>

#include "Service.hpp"
#include "Shards.hpp"

using namespace coreactor;
using namespace httpservice;

namespace {

// How long a stop waits for the requests in flight.
constexpr auto kGrace = std::chrono::seconds(10);

struct Flags {
  ServerOptions server;
  std::size_t isolates = 0;  // 0: one per CPU this process may use
  std::chrono::milliseconds askTimeout{5000};
  std::chrono::milliseconds shardDelay{0};
};

int usage(const char* why) {
  std::fprintf(stderr,
               "%s\nusage: example-http-service [--port P (default 8080, 0: any free port)]\n"
               "         [--isolates N (default: one per CPU)] [--max-body BYTES (default 65536)]\n"
               "         [--address A (default 127.0.0.1)] [--ask-timeout-ms MS (default 5000)]\n"
               "         [--shard-delay-ms MS (default 0)]\n",
               why);
  return 2;
}

template <class T>
bool parse(std::string_view text, T& out, T least, T most) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < least || value > most) {
    return false;
  }
  out = value;
  return true;
}

std::optional<Flags> parseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return std::nullopt;
    const std::string_view value = argv[++i];
    bool ok = false;
    if (flag == "--port") {
      ok = parse<std::uint16_t>(value, flags.server.port, 0, 65535);
    } else if (flag == "--isolates") {
      ok = parse<std::size_t>(value, flags.isolates, 1, 4096);
    } else if (flag == "--max-body") {
      ok = parse<std::size_t>(value, flags.server.maxBody, 0, std::size_t{1} << 30);
    } else if (flag == "--address") {
      flags.server.address = std::string(value);
      ok = true;
    } else if (flag == "--ask-timeout-ms") {
      long long ms = 0;
      ok = parse<long long>(value, ms, 1, 3'600'000);
      flags.askTimeout = std::chrono::milliseconds(ms);
    } else if (flag == "--shard-delay-ms") {
      long long ms = 0;
      ok = parse<long long>(value, ms, 0, 3'600'000);
      flags.shardDelay = std::chrono::milliseconds(ms);
    }
    if (!ok) return std::nullopt;
  }
  return flags;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<Flags> flags = parseFlags(argc, argv);
  if (!flags) return usage("bad arguments");

  ActorSystemOptions options = ActorSystemOptions::create();
  if (flags->isolates != 0) options = options.withIsolates(flags->isolates);
  std::unique_ptr<ActorSystem> system = ActorSystem::create("http-service", options);
  ActorStore store(*system, flags->askTimeout, flags->shardDelay);

  std::optional<Server<ActorStore>> server;
  try {
    server.emplace(store, flags->server);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot listen on %s:%u: %s\n", flags->server.address.c_str(),
                 flags->server.port, e.what());
    system->shutdown();
    return 1;
  }

  // The signals are waited for on this thread, which is no isolate: it does
  // nothing else until one comes.
  asio::io_context waiting;
  asio::signal_set signals(waiting, SIGINT, SIGTERM);
  signals.async_wait([](const boost::system::error_code&, int) {});

  server->start();
  std::printf("listening on %s:%u\n", flags->server.address.c_str(), server->port());
  std::fflush(stdout);
  std::fprintf(stderr, "%zu isolates, %zu shards, bodies up to %zu bytes\n", system->isolateCount(),
               store.shardCount(), flags->server.maxBody);

  waiting.run();  // until SIGINT or SIGTERM

  if (!server->stop(kGrace)) {
    std::fprintf(stderr, "some connections were still busy after %lld s; closing them\n",
                 static_cast<long long>(kGrace.count()));
  }
  const std::uint64_t served = server->served();
  system->shutdown();
  server.reset();
  std::printf("served %llu requests\n", static_cast<unsigned long long>(served));
  std::fflush(stdout);
  return 0;
}
