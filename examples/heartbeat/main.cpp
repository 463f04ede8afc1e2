// The scheduler, end to end, on a system of two isolates. A monitor sends
// itself a heartbeat every 20 ms (a schedule it owns) and sets itself a
// reminder; an actor on the other isolate cancels the reminder; the program
// pauses and resumes the heartbeat from outside; a worker with a 100 ms idle
// timeout passivates once its jobs are done; stopping the monitor ends its
// heartbeat, and the shutdown leaves no schedule behind (docs/scheduling.md).
//
// The program waits on asks and futures, never on a guess: the one fixed
// sleep is the pause itself, to show that a paused schedule stays quiet.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <coreactor/ActorSystem.hpp>
#include <coreactor/Async.hpp>

using namespace coreactor;
using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

struct Heartbeat {};
struct Remind {};
struct WaitBeats {  // answered with the count once `count` beats have come
  int count;
};
struct Beats {};  // answered at once with the count
struct Reminders {};
struct CancelReminder {};
struct Job {
  int id;
};

constexpr auto kBeat = 20ms;
constexpr auto kReminder = 120ms;
constexpr auto kIdleTimeout = 100ms;

class Monitor : public Actor {
 public:
  void preStart(ReceiveContext& ctx) override {
    // Both are owned by this actor: they end when it stops. The references
    // let anyone else (another actor, the program) cancel, pause or resume.
    ctx.schedule(Heartbeat{}, ctx.self(), kBeat,
                 ScheduleOptions::create().withReference("heartbeat"));
    ctx.scheduleOnce(Remind{}, ctx.self(), kReminder,
                     ScheduleOptions::create().withReference("reminder"));
  }
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Heartbeat>()) {
      ++beats_;
      std::vector<std::pair<int, ActorRef>> still;
      for (auto& [count, waiter] : waiters_) {
        if (beats_ >= count) {
          ctx.tell(waiter, beats_);
        } else {
          still.emplace_back(count, waiter);
        }
      }
      waiters_.swap(still);
    } else if (const WaitBeats* w = ctx.get<WaitBeats>()) {
      if (beats_ >= w->count) {
        ctx.reply(beats_);
      } else {
        waiters_.emplace_back(w->count, ctx.sender());
      }
    } else if (ctx.is<Beats>()) {
      ctx.reply(beats_);
    } else if (ctx.is<Remind>()) {
      ++reminders_;
    } else if (ctx.is<Reminders>()) {
      ctx.reply(reminders_);
    }
  }

 private:
  int beats_ = 0;
  int reminders_ = 0;
  std::vector<std::pair<int, ActorRef>> waiters_;
};

// Lives on the other isolate: its cancel travels to the monitor's isolate,
// which holds the reminder, and the coroutine resumes here once it is done.
class Canceller : public AsyncActor {
 public:
  Async receiveAsync(ReceiveContext& ctx) override {
    if (ctx.is<CancelReminder>()) {
      const std::error_code error = co_await ctx.cancelSchedule("reminder");
      ctx.reply(error ? error.message() : std::string("cancelled"));
    }
  }
};

class Worker : public Actor {
 public:
  explicit Worker(std::atomic<Steady::rep>* lastJob) : lastJob_(lastJob) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Job>()) {
      lastJob_->store(Steady::now().time_since_epoch().count());
    }
  }

 private:
  std::atomic<Steady::rep>* lastJob_;
};

long long msSince(Steady::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - t).count();
}

int main() {
  const Steady::time_point start = Steady::now();
  // What the actors and the event stream touch is declared before the system,
  // so it outlives it.
  std::promise<Steady::time_point> workerStopped;
  std::promise<void> monitorStopped;
  std::atomic<Steady::rep> lastJob{0};
  auto system = ActorSystem::create(
      "heartbeat", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));

  // The two actors whose stop this program waits for.
  system->eventStream().subscribe<ActorStopped>([&](const ActorStopped& e) {
    if (e.path == "/user/worker") {
      workerStopped.set_value(Steady::now());
    } else if (e.path == "/user/monitor") {
      monitorStopped.set_value();
    }
  });

  ActorRef monitor = system->spawn<Monitor>("monitor", ActorOptions::create().withIsolate(0));
  ActorRef canceller = system->spawn<Canceller>("canceller", ActorOptions::create().withIsolate(1));
  ActorRef worker = system->spawn<Worker>(
      "worker", ActorOptions::create().withIsolate(1).withPassivation(kIdleTimeout), &lastJob);
  for (int id = 0; id < 3; ++id) {
    worker.tell(Job{id});
  }

  // A repeating schedule, owned by the monitor.
  const int first = system->ask<int>(monitor, WaitBeats{3}, 2s).get();
  std::printf("heartbeat: %d beats, one every %lld ms\n", first,
              static_cast<long long>(kBeat.count()));

  // Another actor cancels the monitor's reminder by its reference.
  std::printf("reminder: canceller on isolate 1 says \"%s\"\n",
              system->ask<std::string>(canceller, CancelReminder{}, 2s).get().c_str());
  std::printf("reminder: a second cancel says \"%s\"\n",
              system->cancelSchedule("reminder").wait().message().c_str());

  // Pause and resume from outside. Once the pause has completed nothing more
  // is sent, and every beat sent before it is already in the monitor's
  // mailbox, ahead of this ask.
  system->pauseSchedule("heartbeat").get();
  const int paused = system->ask<int>(monitor, Beats{}, 2s).get();
  std::this_thread::sleep_for(5 * kBeat);
  const int afterPause = system->ask<int>(monitor, Beats{}, 2s).get();
  std::printf("paused: %d beats at the pause, %d after five intervals\n", paused, afterPause);
  system->resumeSchedule("heartbeat").get();
  const int resumed = system->ask<int>(monitor, WaitBeats{afterPause + 3}, 2s).get();
  std::printf("resumed: %d beats\n", resumed);
  std::printf("reminder: fired %d times (its %lld ms have passed)\n",
              system->ask<int>(monitor, Reminders{}, 2s).get(),
              static_cast<long long>(kReminder.count()));

  // The worker had three jobs at the start and nothing since.
  std::future<Steady::time_point> workerGone = workerStopped.get_future();
  if (workerGone.wait_for(2s) != std::future_status::ready) {
    std::printf("worker: did not passivate\n");
    return 1;
  }
  const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(
      workerGone.get() - Steady::time_point(Steady::duration(lastJob.load())));
  std::printf("worker: passivated %lld ms after its last job (idle timeout %lld ms)\n",
              static_cast<long long>(idle.count()), static_cast<long long>(kIdleTimeout.count()));

  // The heartbeat belongs to the monitor: it ends when the monitor stops.
  std::printf("schedules live: %zu\n", system->scheduleCount());
  std::future<void> monitorGone = monitorStopped.get_future();
  system->stop(monitor);
  if (monitorGone.wait_for(2s) != std::future_status::ready) {
    std::printf("monitor: did not stop\n");
    return 1;
  }
  std::printf("monitor stopped; schedules live: %zu\n", system->scheduleCount());

  system->shutdown();
  std::printf("shut down after %lld ms; schedules live: %zu\n", msSince(start),
              system->scheduleCount());
  return 0;
}
