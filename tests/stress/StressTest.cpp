// Random traffic across isolates with exact accounting (SPEC X2, A2, A3, A6,
// A7): tells from foreign threads and between actors on different isolates,
// asks, failures handled by supervision, stops and respawns, then shutdown.
// Every message a test thread or an actor sent ends up delivered or as a dead
// letter, exactly once; every ask ends with its reply or a named error.
//
// CI runs a bounded mode in seconds (also under the sanitizers); set
// COREACTOR_STRESS_MESSAGES=100000000 for the long run.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "coreactor/ActorSystem.hpp"

namespace coreactor {
namespace {

struct Load {
  std::uint32_t hops;  // forward this many more times before stopping
};
struct Crash {};
struct Question {
  int n;
};

struct Counters {
  std::atomic<long> sent{0};       // every Load tell, by threads and by actors
  std::atomic<long> delivered{0};  // every Load handled
  std::atomic<long> dead{0};       // every Load dead-lettered
  std::atomic<long> crashesSent{0};
  std::atomic<long> crashesHandled{0};
  std::atomic<long> crashesDead{0};
  std::atomic<long> asks{0};
  std::atomic<long> answered{0};
  std::atomic<long> askErrors{0};
};

long messagesFromEnv() {
  const char* v = std::getenv("COREACTOR_STRESS_MESSAGES");
  return v != nullptr ? std::atol(v) : 200'000;
}

// Workers forward Load to a peer (often on the other isolate) until hops run out.
struct Worker : Actor {
  Worker(Counters* c, std::vector<ActorRef>* peers, std::uint32_t seed)
      : counters(c), peers(peers), rng(seed) {}
  void receive(ReceiveContext& ctx) override {
    if (auto* load = ctx.get<Load>()) {
      counters->delivered.fetch_add(1, std::memory_order_relaxed);
      if (load->hops > 0) {
        const ActorRef& next = (*peers)[rng() % peers->size()];
        counters->sent.fetch_add(1, std::memory_order_relaxed);
        ctx.tell(next, Load{load->hops - 1});
      }
    } else if (ctx.is<Crash>()) {
      counters->crashesHandled.fetch_add(1, std::memory_order_relaxed);
      throw std::runtime_error("crash on purpose");
    } else if (auto* q = ctx.get<Question>()) {
      ctx.reply(q->n + 1);
    }
  }
  Counters* counters;
  std::vector<ActorRef>* peers;  // read-only while the test runs
  std::minstd_rand rng;
};

TEST(Stress, AccountsForEveryMessageAcrossIsolatesStopsAndRestarts) {
  // SPEC X2, A2, A6, A7
  const long target = messagesFromEnv();
  Counters counters;
  auto system = ActorSystem::create(
      "stress", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message == nullptr) return;
    if (d.message->is<Load>()) counters.dead.fetch_add(1, std::memory_order_relaxed);
    if (d.message->is<Crash>()) counters.crashesDead.fetch_add(1, std::memory_order_relaxed);
  });

  // Stable workers forward to each other and are never stopped (they do
  // crash and get restarted); mortal ones are stopped and respawned by the
  // drivers, so traffic keeps meeting dead references and stopping actors.
  constexpr int kStable = 32;
  constexpr int kMortal = 8;
  std::vector<ActorRef> stable;
  for (int i = 0; i < kStable; ++i) {
    stable.push_back(system->spawn<Worker>(
        "", ActorOptions::create().withIsolate(static_cast<std::size_t>(i % 2)), &counters, &stable,
        static_cast<std::uint32_t>(i + 1)));
  }
  std::mutex mortalMutex;
  std::vector<ActorRef> mortal;
  auto spawnMortal = [&](std::uint32_t seed) {
    return system->spawn<Worker>("", ActorOptions::create().withIsolate(seed % 2), &counters,
                                 &stable, seed);
  };
  for (int i = 0; i < kMortal; ++i) mortal.push_back(spawnMortal(100 + i));

  constexpr int kThreads = 2;
  std::vector<std::thread> drivers;
  for (int t = 0; t < kThreads; ++t) {
    drivers.emplace_back([&, t] {
      std::minstd_rand rng(1000 + t);
      while (counters.sent.load(std::memory_order_relaxed) < target) {
        ActorRef to;
        const bool toMortal = rng() % 4 == 0;
        if (toMortal) {
          std::lock_guard<std::mutex> lock(mortalMutex);
          to = mortal[rng() % mortal.size()];
        } else {
          to = stable[rng() % stable.size()];
        }
        const unsigned roll = rng() % 10000;
        if (roll < 9900) {
          counters.sent.fetch_add(1, std::memory_order_relaxed);
          to.tell(Load{static_cast<std::uint32_t>(rng() % 8)});
        } else if (roll < 9960) {
          counters.crashesSent.fetch_add(1, std::memory_order_relaxed);
          to.tell(Crash{});  // the guardian restarts the worker: same ref, same mailbox
        } else if (roll < 9990) {
          counters.asks.fetch_add(1, std::memory_order_relaxed);
          system->askWith(to, Message(Question{1}), std::chrono::seconds(30),
                          [&](Message* reply, std::error_code error) {
                            if (!error && reply->is<int>()) {
                              counters.answered.fetch_add(1);
                            } else {
                              counters.askErrors.fetch_add(1);
                            }
                          });
        } else if (toMortal) {
          // Stop a mortal worker and put a fresh one in its place: its later
          // messages (and those queued behind the stop) become dead letters.
          std::lock_guard<std::mutex> lock(mortalMutex);
          const std::size_t i = rng() % mortal.size();
          system->stop(mortal[i]);
          mortal[i] = spawnMortal(static_cast<std::uint32_t>(rng()));
        }
      }
    });
  }
  for (auto& d : drivers) d.join();

  // Let the forwarding chains run out, then stop everything gracefully.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (counters.delivered + counters.dead < counters.sent &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  system->shutdown();

  EXPECT_GE(counters.sent.load(), target);
  EXPECT_EQ(counters.delivered.load() + counters.dead.load(), counters.sent.load())
      << "delivered " << counters.delivered << ", dead " << counters.dead;
  EXPECT_EQ(counters.crashesHandled.load() + counters.crashesDead.load(),
            counters.crashesSent.load());
  EXPECT_EQ(counters.answered.load() + counters.askErrors.load(), counters.asks.load());
  std::printf(
      "[ stress   ] sent %ld, delivered %ld, dead letters %ld, crashes %ld, asks %ld "
      "(%ld answered)\n",
      counters.sent.load(), counters.delivered.load(), counters.dead.load(),
      counters.crashesSent.load(), counters.asks.load(), counters.answered.load());
}

}  // namespace
}  // namespace coreactor
