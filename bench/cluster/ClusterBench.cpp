// coreactor-bench-cluster: actors on two MPI ranks against raw MPI, in the
// same run. Launched by scripts/bench as
//   mpirun --allow-run-as-root --oversubscribe -np 2 build/release/bench/coreactor-bench-cluster
// and again with --mpi-messages after the program's name.
// Rank 0 drives and prints; rank 1 serves. Each row runs kRounds rounds and
// reports the median; each round of a row is followed by a round of its
// floor, so that both see the same phase of the machine, and the ratio is
// the median of the rounds' ratios.
//
//   floor/mpi-pingpong      one round trip of 8 bytes, MPI_Send / MPI_Recv on both sides
//   cluster/pingpong        one round trip between an actor on each rank (an 8-byte word
//                           message each way, through each rank's link)
//   floor/mpi-bulk-64B      one 64-byte message, MPI_Isend in windows of 256 / MPI_Recv
//   cluster/tell-bulk-64B   one 64-byte message told by an actor on rank 0 to a sink on
//                           rank 1, from the first tell until the sink's count is acked
//   cluster/ask             one ask from an actor on rank 0 to an actor on rank 1, one at
//                           a time (p50, with p99 beside it)
//   cluster/idle-cpu        the process's CPU time while its system sits idle for 1 s, in
//                           % of one core (rank 0; rank 1 likewise)
//   cluster/mpi-messages/*  with --mpi-messages: the same rows over a link with shared
//                           memory off (MpiOptions::withSharedMemory(false)): MPI
//                           messages, the path between ranks on different machines
//
// The cluster/* rows run the default link: two ranks of one machine pass
// their bytes through rings in shared memory (docs/cluster.md). The floors
// are raw MPI either way. The two paths run as two programs (scripts/bench
// runs both): a second link in the same process would share MPI's
// progress with the first and read slower than a program with one.
//
// Targets (docs/cluster.md): cluster/pingpong <= 1.5x floor/mpi-pingpong;
// cluster/tell-bulk-64B throughput >= 0.5x floor/mpi-bulk-64B, i.e. its ns
// per message <= 2x; idle CPU ~0.
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Cluster.hpp"
#include "coreactor/Remote.hpp"

namespace {

using namespace coreactor;
using Wall = std::chrono::steady_clock;

constexpr int kRounds = 5;
constexpr int kRoundTrips = 20'000;
constexpr int kBulk = 200'000;
constexpr int kAsks = 5'000;
constexpr int kWindow = 256;

struct Ping {
  std::int64_t n;
};
struct Payload64 {
  std::int64_t n;
  char rest[56];
};
struct Ack {
  std::int64_t count;
};
struct Start {
  std::int64_t count;
};

/// What the driving actor on rank 0 hands to the main thread.
struct Outcome {
  std::mutex mutex;
  std::condition_variable done;
  bool ready = false;
  Wall::duration elapsed{};
  std::vector<double> latencies;
  void finish(Wall::duration took) {
    std::lock_guard<std::mutex> lock(mutex);
    elapsed = took;
    ready = true;
    done.notify_one();
  }
  Wall::duration wait() {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return ready; });
    ready = false;
    return elapsed;
  }
};

/// Rank 1: answers Ping with Ping, Ping asks with the same, and acks a
/// bulk of Payload64 once `count` have come.
class Server final : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (const Ping* p = ctx.get<Ping>()) {
      ctx.reply(Ping{p->n});
    } else if (const Start* s = ctx.get<Start>()) {
      expected_ = s->count;
      received_ = 0;
      ackTo_ = ctx.sender();
    } else if (ctx.is<Payload64>()) {
      if (++received_ == expected_) ackTo_.tell(Ack{received_});
    }
  }

 private:
  std::int64_t expected_ = 0;
  std::int64_t received_ = 0;
  ActorRef ackTo_;
};

/// Rank 1: told by rank 0's main thread that a round has ended, tells
/// rank 1's main thread.
class RoundEnd final : public Actor {
 public:
  explicit RoundEnd(Outcome* outcome) : outcome_(outcome) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Ack>()) outcome_->finish({});
  }

 private:
  Outcome* outcome_;
};

enum class Mode { PingPong, Bulk, Ask };

/// Rank 0: runs one round of a row against the server.
class Driver final : public Actor {
 public:
  Driver(ActorRef server, Outcome* outcome) : server_(server), outcome_(outcome) {}
  void receive(ReceiveContext& ctx) override {
    if (const Start* s = ctx.get<Start>()) {
      mode_ = static_cast<Mode>(s->count);
      start_ = Wall::now();
      if (mode_ == Mode::PingPong) {
        left_ = kRoundTrips;
        server_.tell(Ping{left_}, ctx.self());
      } else if (mode_ == Mode::Bulk) {
        server_.tell(Start{kBulk}, ctx.self());
        Payload64 p{};
        for (std::int64_t i = 0; i < kBulk; ++i) {
          p.n = i;
          server_.tell(p);
        }
      } else {
        left_ = kAsks;
        outcome_->latencies.clear();
        askNext(ctx);
      }
    } else if (ctx.is<Ping>()) {
      if (--left_ > 0) {
        server_.tell(Ping{left_}, ctx.self());
      } else {
        outcome_->finish(Wall::now() - start_);
      }
    } else if (ctx.is<Ack>()) {
      outcome_->finish(Wall::now() - start_);
    }
  }

 private:
  void askNext(ReceiveContext& ctx) {
    const auto asked = Wall::now();
    ctx.ask<Ping>(server_, Ping{left_}, std::chrono::seconds(30),
                  [this, asked](ReceiveContext& again, AskResult<Ping>& result) {
                    if (!result.ok()) return;  // the round never finishes: reported as lost
                    outcome_->latencies.push_back(
                        std::chrono::duration<double, std::nano>(Wall::now() - asked).count());
                    if (--left_ > 0) {
                      askNext(again);
                    } else {
                      outcome_->finish(Wall::now() - start_);
                    }
                  });
  }
  ActorRef server_;
  Outcome* outcome_;
  Mode mode_ = Mode::PingPong;
  std::int64_t left_ = 0;
  Wall::time_point start_{};
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

double nsPer(Wall::duration d, int ops) {
  return std::chrono::duration<double, std::nano>(d).count() / ops;
}

// ---- the floors: raw MPI between the main threads (no system running) ------------

double mpiPingPong(int rank) {
  std::int64_t word = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = Wall::now();
  for (int i = 0; i < kRoundTrips; ++i) {
    if (rank == 0) {
      MPI_Send(&word, 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
      MPI_Recv(&word, 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&word, 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&word, 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    }
  }
  return nsPer(Wall::now() - start, kRoundTrips);
}

double mpiBulk(int rank) {
  std::vector<Payload64> window(kWindow);
  std::vector<MPI_Request> requests(kWindow);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = Wall::now();
  for (int sent = 0; sent < kBulk; sent += kWindow) {
    const int n = std::min(kWindow, kBulk - sent);
    for (int i = 0; i < n; ++i) {
      if (rank == 0) {
        window[static_cast<std::size_t>(i)].n = sent + i;
        MPI_Isend(&window[static_cast<std::size_t>(i)], sizeof(Payload64), MPI_BYTE, 1, 8,
                  MPI_COMM_WORLD, &requests[static_cast<std::size_t>(i)]);
      } else {
        MPI_Irecv(&window[static_cast<std::size_t>(i)], sizeof(Payload64), MPI_BYTE, 0, 8,
                  MPI_COMM_WORLD, &requests[static_cast<std::size_t>(i)]);
      }
    }
    MPI_Waitall(n, requests.data(), MPI_STATUSES_IGNORE);
  }
  std::int64_t ack = 0;
  if (rank == 1) {
    MPI_Send(&ack, 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&ack, 8, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return nsPer(Wall::now() - start, kBulk);
}

/// A barrier that sleeps while it waits: MPI_Barrier spins, and a spinning
/// main thread would take a CPU from the isolates and links it measures.
void quietBarrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  for (int done = 0; done == 0;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

void report(const char* row, double value, const char* unit, const char* floorRow, double ratio,
            const char* target) {
  std::printf("%-32s %10.1f %-6s", row, value, unit);
  if (floorRow != nullptr) std::printf("  %6.2fx %-20s", ratio, floorRow);
  if (target != nullptr) std::printf("  target %s", target);
  std::printf("\n");
}

/// One path's figures on rank 0: each row's medians of kRounds rounds, each
/// round paired with its floor.
struct Figures {
  std::vector<double> pingFloor, bulkFloor, ping, bulk, pingRatio, bulkRatio, askP50, askRatio;
  std::vector<double> askAll;
  double idleCpus[2] = {0, 0};
  std::uint64_t sharedMemoryRanks = 0;
};

/// Runs every row over `cluster`'s link (collective: both ranks).
Figures measure(const std::shared_ptr<Cluster>& cluster) {
  const int rank = cluster->rank();
  Figures f;
  double idleCpu = 0;
  {
    auto system = ActorSystem::create(
        "bench", ActorSystemOptions::create().withIsolates(1).withCluster(cluster).withLogLevel(
                     LogLevel::Warn));
    Outcome outcome;
    ActorRef driver;
    ActorRef roundEnd;
    if (rank == 1) {
      system->spawn<Server>("server");
      system->spawn<RoundEnd>("round-end", ActorOptions::create(), &outcome);
    }
    quietBarrier();
    if (rank == 0) {
      const ActorRef server = system->lookup(1, "server").get();
      roundEnd = system->lookup(1, "round-end").get();
      if (!server || !roundEnd) {
        std::fprintf(stderr, "coreactor-bench-cluster: rank 1's actors were not found\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      driver = system->spawn<Driver>("driver", ActorOptions::create(), server, &outcome);
    }
    const auto roundOf = [&](Mode mode) {
      quietBarrier();
      Wall::duration took{};
      // While rank 0 drives, rank 1's main thread waits for its word on a
      // condition variable, not in an MPI collective: a collective in
      // flight makes every progress call of the rank take Open MPI's
      // libnbc lock and poll the collective, which the floors (no
      // collective in flight) do not pay.
      if (rank == 0) {
        driver.tell(Start{static_cast<std::int64_t>(mode)});
        took = outcome.wait();
        roundEnd.tell(Ack{0});
      } else {
        outcome.wait();
      }
      return took;
    };
    for (int round = 0; round < kRounds; ++round) {
      const Wall::duration p = roundOf(Mode::PingPong);
      const double floorP = mpiPingPong(rank);
      const Wall::duration b = roundOf(Mode::Bulk);
      const double floorB = mpiBulk(rank);
      roundOf(Mode::Ask);
      const double floorA = mpiPingPong(rank);
      if (rank == 0) {
        f.ping.push_back(nsPer(p, kRoundTrips));
        f.pingFloor.push_back(floorP);
        f.pingRatio.push_back(f.ping.back() / floorP);
        f.bulk.push_back(nsPer(b, kBulk));
        f.bulkFloor.push_back(floorB);
        f.bulkRatio.push_back(f.bulk.back() / floorB);
        f.askP50.push_back(percentile(outcome.latencies, 0.5));
        f.askRatio.push_back(f.askP50.back() / floorA);
        f.askAll.insert(f.askAll.end(), outcome.latencies.begin(), outcome.latencies.end());
      }
    }
    // Idle: both systems up, nothing sent, for a second.
    quietBarrier();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double cpuBefore = cpuSeconds();
    const auto wallBefore = Wall::now();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    idleCpu = (cpuSeconds() - cpuBefore) /
              std::chrono::duration<double>(Wall::now() - wallBefore).count() * 100;
    quietBarrier();
    system->shutdown();
    f.sharedMemoryRanks = system->clusterStats().sharedMemoryRanks;
  }
  MPI_Gather(&idleCpu, 1, MPI_DOUBLE, f.idleCpus, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return f;
}

/// Prints one path's rows; `prefix` names the path ("cluster/" or
/// "cluster/mpi-messages/"), and only the default path carries the targets.
void print(const Figures& f, const std::string& prefix, bool targets) {
  const auto row = [&](const char* name) { return prefix + name; };
  report("  floor/mpi-pingpong", median(f.pingFloor), "ns/op", nullptr, 0, nullptr);
  report("  floor/mpi-bulk-64B", median(f.bulkFloor), "ns/op", nullptr, 0, nullptr);
  report(row("pingpong").c_str(), median(f.ping), "ns/op", "floor/mpi-pingpong",
         median(f.pingRatio), targets ? "<= 1.5x" : nullptr);
  report(row("tell-bulk-64B").c_str(), median(f.bulk), "ns/op", "floor/mpi-bulk-64B",
         median(f.bulkRatio), targets ? "<= 2x (throughput >= 0.5x)" : nullptr);
  report(row("ask").c_str(), median(f.askP50), "ns p50", "floor/mpi-pingpong", median(f.askRatio),
         nullptr);
  std::printf("%-32s %10.1f ns p99\n", row("ask").c_str(), percentile(f.askAll, 0.99));
  std::printf("%-32s %10.2f %% cpu (rank 0), %.2f %% (rank 1)\n", row("idle-cpu").c_str(),
              f.idleCpus[0], f.idleCpus[1]);
}

}  // namespace

int main(int argc, char** argv) {
  registerRemoteType<Ping>("bench.Ping");
  registerRemoteType<Payload64>("bench.Payload64");
  registerRemoteType<Ack>("bench.Ack");
  registerRemoteType<Start>("bench.Start");
  bool sharedMemory = true;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--mpi-messages") sharedMemory = false;
  }
  auto cluster = Cluster::mpi(&argc, &argv, MpiOptions::create().withSharedMemory(sharedMemory));
  const int rank = cluster->rank();
  if (cluster->size() != 2) {
    if (rank == 0) std::fprintf(stderr, "coreactor-bench-cluster: run it with mpirun -np 2\n");
    return 2;
  }
  int threads = MPI_THREAD_SINGLE;
  MPI_Query_thread(&threads);
  if (threads != MPI_THREAD_MULTIPLE) {
    if (rank == 0) std::fprintf(stderr, "coreactor-bench-cluster: needs MPI_THREAD_MULTIPLE\n");
    return 2;
  }
  const Figures figures = measure(cluster);
  if (rank == 0) {
    std::printf(
        "coreactor-bench-cluster: 2 ranks, medians of %d rounds, each paired with its floor\n",
        kRounds);
    if (sharedMemory) {
      std::printf("the default link: ranks of one machine share memory (%llu other rank)\n",
                  static_cast<unsigned long long>(figures.sharedMemoryRanks));
      print(figures, "cluster/", true);
    } else {
      std::printf("--mpi-messages: shared memory off, MPI messages as between machines\n");
      print(figures, "cluster/mpi-messages/", false);
    }
  }
  return 0;
}
