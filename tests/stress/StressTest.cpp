// Random traffic across isolates with exact accounting (SPEC X2, A2, A3, A6,
// A7): tells from foreign threads and between actors on different isolates,
// asks, failures handled by supervision, stops and respawns, then shutdown.
// Every message a test thread or an actor sent ends up delivered or as a dead
// letter, exactly once; every ask ends with its reply or a named error.
// The second test does the same with schedules (S1-S9): every tick sent is
// delivered or a dead letter, and every one-shot fires exactly once or is
// cancelled, never both.
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
          system->ask(to, Message(Question{1}), std::chrono::seconds(30),
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

// ---- schedules under load ---------------------------------------------------------

struct Ping {
  std::int64_t id;  // a one-shot's id; -1 for a repeating schedule's tick
};
struct Plan {
  std::int64_t id;
  ActorRef target;
};

struct ScheduleCounters {
  std::atomic<long> delivered{0};
  std::atomic<long> dead{0};
  std::atomic<long> onceCreated{0};
  std::atomic<long> onceCancelled{0};
  std::atomic<long> repeatingCreated{0};
  std::atomic<long> calls{0};
  std::atomic<long> plansSent{0};
  std::atomic<long> plansHandled{0};
  std::atomic<long> callErrors{0};  // named errors a racing call may meet
  std::atomic<long> twice{0};       // a one-shot seen firing twice: must stay 0
  std::vector<std::atomic<std::uint8_t>> fired;
  explicit ScheduleCounters(std::size_t ids) : fired(ids) {}
  void onPing(const Ping& p) {
    if (p.id >= 0 && fired[static_cast<std::size_t>(p.id)].fetch_add(1) != 0) twice.fetch_add(1);
  }
};

// Receives ticks; on a Plan, schedules a one-shot through its own context.
struct Ticked : Actor {
  explicit Ticked(ScheduleCounters* c) : counters(c) {}
  void receive(ReceiveContext& ctx) override {
    if (const Ping* p = ctx.get<Ping>()) {
      counters->delivered.fetch_add(1, std::memory_order_relaxed);
      counters->onPing(*p);
    } else if (const Plan* plan = ctx.get<Plan>()) {
      ScheduleResult r =
          ctx.scheduleOnce(Ping{plan->id}, plan->target, std::chrono::microseconds(300));
      counters->plansHandled.fetch_add(1);
      if (r.ok()) {
        counters->onceCreated.fetch_add(1);
      } else {
        counters->callErrors.fetch_add(1);  // ErrDead: the target stopped meanwhile
      }
    }
  }
  ScheduleCounters* counters;
};

TEST(Stress, AccountsForEveryScheduleTickAcrossIsolatesStopsAndCancels) {
  // SPEC S1-S9 under load: schedules from foreign threads and from actors,
  // cancelled, paused and resumed by reference and by handle from other
  // threads, to targets that stop meanwhile.
  const long target = std::max(2000L, messagesFromEnv() / 20);
  ScheduleCounters counters(static_cast<std::size_t>(target) * 2 + 1000);
  auto system = ActorSystem::create(
      "stress-schedules", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message == nullptr) return;
    if (const Ping* p = d.message->get<Ping>()) {
      counters.dead.fetch_add(1, std::memory_order_relaxed);
      counters.onPing(*p);
    }
  });
  std::vector<ActorRef> stable;
  for (int i = 0; i < 8; ++i) {
    stable.push_back(system->spawn<Ticked>(
        "", ActorOptions::create().withIsolate(static_cast<std::size_t>(i % 2)), &counters));
  }
  std::mutex mortalMutex;
  std::vector<ActorRef> mortal;
  auto spawnMortal = [&](unsigned seed) {
    return system->spawn<Ticked>("", ActorOptions::create().withIsolate(seed % 2), &counters);
  };
  for (int i = 0; i < 4; ++i) mortal.push_back(spawnMortal(static_cast<unsigned>(i)));

  std::atomic<std::int64_t> nextId{0};
  std::mutex namesMutex;
  std::vector<std::pair<std::string, bool>> names;  // every reference made; true: a one-shot
  std::vector<ScheduleHandle> handles;              // every unnamed repeating schedule
  std::atomic<bool> go{true};
  // A few one-shots far in the future: still pending at the final sweep
  // whatever the speed of the run (under TSan every short one-shot may fire
  // before a random cancel reaches it), so the sweep's cancel of a pending
  // one-shot, and its accounting, always run.
  for (int k = 0; k < 4; ++k) {
    const std::string ref = "once-late-" + std::to_string(k);
    ASSERT_TRUE(system
                    ->scheduleOnce(Ping{nextId.fetch_add(1)}, stable[k], std::chrono::hours(1),
                                   ScheduleOptions::create().withReference(ref))
                    .ok());
    counters.onceCreated.fetch_add(1);
    names.emplace_back(ref, true);
  }
  std::vector<std::thread> drivers;
  for (int t = 0; t < 2; ++t) {
    drivers.emplace_back([&, t] {
      std::minstd_rand rng(77 + t);
      long made = 0;
      int repeatingMade = 0;
      while (made < target / 2) {
        ActorRef to;
        if (rng() % 3 == 0) {
          std::lock_guard<std::mutex> lock(mortalMutex);
          to = mortal[rng() % mortal.size()];
        } else {
          to = stable[rng() % stable.size()];
        }
        const unsigned roll = rng() % 100;
        counters.calls.fetch_add(1, std::memory_order_relaxed);
        if (roll < 45) {  // a named one-shot from this thread
          const std::int64_t id = nextId.fetch_add(1);
          const std::string ref = "once-" + std::to_string(id);
          if (system
                  ->scheduleOnce(Ping{id}, to, std::chrono::microseconds(100 + rng() % 2000),
                                 ScheduleOptions::create().withReference(ref))
                  .ok()) {
            counters.onceCreated.fetch_add(1);
            std::lock_guard<std::mutex> lock(namesMutex);
            names.emplace_back(ref, true);
          } else {
            counters.callErrors.fetch_add(1);
          }
          ++made;
        } else if (roll < 60) {  // a one-shot made by an actor, through its context
          const std::int64_t id = nextId.fetch_add(1);
          counters.plansSent.fetch_add(1);
          stable[rng() % stable.size()].tell(Plan{id, to});
          ++made;
        } else if (roll < 66 && repeatingMade < 100) {  // a repeating schedule, named or not
          // At most 100 per driver: each ticks every few hundred microseconds
          // until the final sweep, whatever the length of the run.
          ++repeatingMade;
          const bool named = rng() % 2 == 0;
          const std::string ref = "every-" + std::to_string(nextId.fetch_add(1));
          ScheduleResult r = system->schedule(
              Ping{-1}, to, std::chrono::microseconds(200 + rng() % 500),
              named ? ScheduleOptions::create().withReference(ref) : ScheduleOptions::create());
          if (r.ok()) {
            counters.repeatingCreated.fetch_add(1);
            std::lock_guard<std::mutex> lock(namesMutex);
            if (named) {
              names.emplace_back(ref, false);
            } else {
              handles.push_back(r.handle());
            }
          } else {
            counters.callErrors.fetch_add(1);
          }
        } else if (roll < 90) {  // cancel, pause or resume something made earlier
          std::string ref;
          bool once = false;
          {
            std::lock_guard<std::mutex> lock(namesMutex);
            if (names.empty()) continue;
            std::tie(ref, once) = names[rng() % names.size()];
          }
          const unsigned op = rng() % 3;
          std::error_code e = op == 0   ? system->cancelSchedule(ref).wait()
                              : op == 1 ? system->pauseSchedule(ref).wait()
                                        : system->resumeSchedule(ref).wait();
          if (!e && op == 0 && once) counters.onceCancelled.fetch_add(1);
          if (e) counters.callErrors.fetch_add(1);  // ErrScheduleNotFound: fired or gone
        } else if (roll < 93) {  // a mortal target stops; a new one takes its place
          std::lock_guard<std::mutex> lock(mortalMutex);
          const std::size_t i = rng() % mortal.size();
          system->stop(mortal[i]);
          mortal[i] = spawnMortal(static_cast<unsigned>(rng()));
        }
      }
    });
  }
  for (auto& d : drivers) d.join();
  go = false;

  // Every one-shot still pending is cancelled (or has just fired: NotFound),
  // every repeating schedule is cancelled (or was dropped after its target stopped).
  const auto settle = [&](auto&& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return done();
  };
  // The one-shots made by actors exist once their Plan was handled.
  ASSERT_TRUE(settle([&] { return counters.plansHandled.load() == counters.plansSent.load(); }));
  for (const auto& [ref, once] : names) {
    if (!system->cancelSchedule(ref).wait() && once) counters.onceCancelled.fetch_add(1);
  }
  for (const ScheduleHandle& h : handles) system->cancelSchedule(h).wait();
  ASSERT_TRUE(settle([&] { return system->scheduleCount() == 0; }))
      << system->scheduleCount() << " schedules left";
  ASSERT_TRUE(settle([&] {
    return counters.delivered.load() + counters.dead.load() ==
           static_cast<long>(system->tickCount());
  }));
  long onceFired = 0;
  for (const auto& f : counters.fired) onceFired += f.load() != 0 ? 1 : 0;
  const std::uint64_t ticks = system->tickCount();
  system->shutdown();

  EXPECT_EQ(counters.twice.load(), 0) << "a one-shot fired twice";
  EXPECT_EQ(counters.delivered.load() + counters.dead.load(), static_cast<long>(ticks))
      << "every tick sent is delivered or a dead letter";
  EXPECT_EQ(onceFired + counters.onceCancelled.load(), counters.onceCreated.load())
      << "every one-shot fired or was cancelled, exactly one of the two";
  EXPECT_GT(counters.dead.load(), 0) << "the run met stopped targets";
  EXPECT_GT(counters.onceCancelled.load(), 0);
  std::printf(
      "[ stress   ] schedule calls %ld (%ld named errors), one-shots %ld (%ld fired, %ld "
      "cancelled), repeating %ld, ticks %llu (%ld delivered, %ld dead letters)\n",
      counters.calls.load(), counters.callErrors.load(), counters.onceCreated.load(), onceFired,
      counters.onceCancelled.load(), counters.repeatingCreated.load(),
      static_cast<unsigned long long>(ticks), counters.delivered.load(), counters.dead.load());
}

}  // namespace
}  // namespace coreactor
