// coreactor-bench-http: the HTTP service of examples/http-service against
// the same server without actors, under the same load, in one run.
//
//   actors  the example itself: connections on the isolates' loops, the map
//           in 4 shard actors per isolate, each request an ActorSystem::ask
//           to its key's shard (Service.hpp + Shards.hpp)
//   plain   the same Service.hpp on N threads running one io_context, a
//           strand per connection, the map an unordered_map behind a mutex
//
// Both use the same HTTP code, the same N (isolates, threads) and the same
// client (bench/http/HttpBenchLoad.hpp): C keep-alive connections, 75% GET and
// 25% PUT, every answer checked. The arms alternate round by round, so that
// both see the same phases of the machine; each figure is the median over
// the rounds. Exit 1 if any round fails its check, 2 for a bad command line.
//
//   coreactor-bench-http [--quick] [--requests R] [--connections C]
//                        [--isolates N] [--rounds K] [--client-threads T]
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <coreactor/ActorSystem.hpp>
#include <coreactor/Asio.hpp>

#include "Kv.hpp"
#include "Service.hpp"
#include "Shards.hpp"
#include "http/HttpBenchLoad.hpp"

using namespace httpservice;
using httpbench::LoadOptions;
using httpbench::LoadResult;

namespace {

constexpr auto kStopGrace = std::chrono::seconds(10);

// The plain arm's store: one map, one mutex, answered on the calling
// connection's strand.
class LockedStore {
 public:
  static constexpr bool kMetrics = false;

  explicit LockedStore(asio::io_context& io) : io_(io), acceptor_(asio::make_strand(io)) {}

  Home nextHome() { return {asio::make_strand(io_), 0}; }
  asio::any_io_executor acceptorExecutor() { return acceptor_; }

  template <class Done>
  void kv(const Home&, KvRequest&& request, Done&& done) {
    KvAnswer answer;
    {
      const std::lock_guard lock(mutex_);
      answer = apply(map_, request);
    }
    done(std::move(answer));
  }

 private:
  asio::io_context& io_;
  asio::any_io_executor acceptor_;
  std::mutex mutex_;
  KvMap map_;
};

struct Figures {
  double requestsPerSecond = 0;
  double p50Us = 0;
  double p99Us = 0;
};

struct Arm {
  const char* name;
  const char* what;
  std::function<LoadResult(LoadOptions)> round;  // runs one round
  std::vector<Figures> rounds;
};

Figures figuresOf(LoadResult& r) {
  std::sort(r.latencyNs.begin(), r.latencyNs.end());
  const auto at = [&](double q) {
    return r.latencyNs[std::min(r.latencyNs.size() - 1,
                                static_cast<std::size_t>(q * r.latencyNs.size()))] /
           1000.0;
  };
  return {static_cast<double>(r.verified) / std::chrono::duration<double>(r.elapsed).count(),
          at(0.50), at(0.99)};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

Figures medianOf(const std::vector<Figures>& rounds) {
  std::vector<double> rps, p50, p99;
  for (const Figures& f : rounds) {
    rps.push_back(f.requestsPerSecond);
    p50.push_back(f.p50Us);
    p99.push_back(f.p99Us);
  }
  return {median(rps), median(p50), median(p99)};
}

// One round on the example's service: a fresh system, shards and server.
LoadResult actorRound(std::size_t isolates, LoadOptions load) {
  auto system = coreactor::ActorSystem::create(
      "http-bench", coreactor::ActorSystemOptions::create().withIsolates(isolates));
  ActorStore store(*system, std::chrono::seconds(10));
  std::optional<Server<ActorStore>> server;
  server.emplace(store, ServerOptions{.port = 0});
  server->start();
  load.port = server->port();
  LoadResult result = httpbench::runLoad(load);
  server->stop(kStopGrace);
  system->shutdown();
  server.reset();
  return result;
}

// One round on the plain server: N threads on one io_context.
LoadResult plainRound(std::size_t threads, LoadOptions load) {
  asio::io_context io(static_cast<int>(threads));
  LockedStore store(io);
  std::optional<Server<LockedStore>> server;
  server.emplace(store, ServerOptions{.port = 0});
  server->start();
  auto work = asio::make_work_guard(io);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back([&io] { io.run(); });
  load.port = server->port();
  LoadResult result = httpbench::runLoad(load);
  server->stop(kStopGrace);
  work.reset();
  io.stop();
  for (std::thread& t : pool) t.join();
  server.reset();
  return result;
}

template <class T>
bool parse(std::string_view text, T& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() && out > 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: coreactor-bench-http [--quick] [--requests R (default 100000; --quick "
               "20000)]\n"
               "         [--connections C (default 32)] [--isolates N (default: one per CPU)]\n"
               "         [--rounds K (default 3; --quick 1)] [--client-threads T (default 1)]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  LoadOptions load;
  // One per CPU this process may use, as a system's default.
  cpu_set_t cpus;
  std::size_t isolates = sched_getaffinity(0, sizeof cpus, &cpus) == 0
                             ? static_cast<std::size_t>(CPU_COUNT(&cpus))
                             : 1;
  std::size_t rounds = 3;
  std::optional<std::size_t> requests, roundsAsked;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--quick") {
      requests = requests.value_or(20'000);
      roundsAsked = roundsAsked.value_or(1);
      continue;
    }
    if (i + 1 >= argc) return usage();
    const std::string_view value = argv[++i];
    std::size_t n = 0;
    if (!parse(value, n)) return usage();
    if (flag == "--requests") {
      requests = n;
    } else if (flag == "--connections") {
      load.connections = n;
    } else if (flag == "--isolates") {
      isolates = n;
    } else if (flag == "--rounds") {
      roundsAsked = n;
    } else if (flag == "--client-threads") {
      load.clientThreads = n;
    } else {
      return usage();
    }
  }
  load.requests = requests.value_or(load.requests);
  rounds = roundsAsked.value_or(rounds);
  if (load.requests < load.connections) return usage();

  std::vector<Arm> arms;
  arms.push_back({"actors",
                  "4 shard actors per isolate, ask",
                  [&](LoadOptions l) { return actorRound(isolates, l); },
                  {}});
  arms.push_back({"plain",
                  "threads on one io_context, mutex + map",
                  [&](LoadOptions l) { return plainRound(isolates, l); },
                  {}});

  std::printf(
      "coreactor-bench-http: %zu isolates (actors) / %zu threads (plain), %zu keep-alive "
      "connections, %zu client thread(s), %zu requests a round (75%% GET, 25%% PUT, %zu-byte "
      "values), %zu round(s) per arm, alternating\n",
      isolates, isolates, load.connections, load.clientThreads, load.requests, load.valueBytes,
      rounds);
  std::fflush(stdout);
  bool ok = true;
  for (std::size_t r = 0; r < rounds && ok; ++r) {
    for (Arm& arm : arms) {
      LoadResult result = arm.round(load);
      if (!result.ok) {
        std::fprintf(stderr, "FAILED: %s, round %zu: %s\n", arm.name, r + 1,
                     result.failure.c_str());
        ok = false;
        break;
      }
      arm.rounds.push_back(figuresOf(result));
      const Figures& f = arm.rounds.back();
      std::fprintf(stderr, "  round %zu %-6s %10.0f requests/s  p50 %7.1f us  p99 %7.1f us\n",
                   r + 1, arm.name, f.requestsPerSecond, f.p50Us, f.p99Us);
    }
  }
  if (!ok) return 1;

  const Figures a = medianOf(arms[0].rounds);
  const Figures p = medianOf(arms[1].rounds);
  std::printf("\n| arm | requests/s | p50 | p99 |\n|---|---|---|---|\n");
  for (const Arm& arm : arms) {
    const Figures f = medianOf(arm.rounds);
    std::printf("| %s (%s) | %.0f | %.1f us | %.1f us |\n", arm.name, arm.what, f.requestsPerSecond,
                f.p50Us, f.p99Us);
  }
  std::printf("| actors / plain | %.2fx | %.2fx | %.2fx |\n",
              a.requestsPerSecond / p.requestsPerSecond, a.p50Us / p.p50Us, a.p99Us / p.p99Us);
  std::printf(
      "\nverified: %zu requests per round and arm, each answered with the right status "
      "and value\n",
      load.requests);
  return 0;
}
