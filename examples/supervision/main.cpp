// A supervisor with three workers. One worker fails on a poisoned job; the
// supervisor's one-for-one strategy restarts it (same reference, same
// mailbox) and the remaining jobs still get done. A fourth job makes a worker
// fail too often: after two restarts within a minute it is stopped, and the
// supervisor, which watches its workers, hears of it.
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include <coreactor/ActorSystem.hpp>

using namespace coreactor;
using namespace std::chrono_literals;

struct Job {
  int id;
  bool poisoned = false;
};

class Worker : public Actor {
 public:
  void preStart(ReceiveContext& ctx) override { std::printf("  %s starts\n", ctx.path().c_str()); }
  void receive(ReceiveContext& ctx) override {
    if (auto* job = ctx.get<Job>()) {
      if (job->poisoned)
        throw std::runtime_error("job " + std::to_string(job->id) + " is poisoned");
      std::printf("  %s did job %d\n", ctx.path().c_str(), job->id);
    }
  }
};

class Supervisor : public Actor {
 public:
  void preStart(ReceiveContext& ctx) override {
    for (int i = 0; i < 3; ++i) ctx.watch(ctx.spawn<Worker>("worker-" + std::to_string(i)));
  }
  void receive(ReceiveContext& ctx) override {
    if (auto* job = ctx.get<Job>()) {
      ctx.tell(ctx.children()[static_cast<std::size_t>(job->id) % ctx.children().size()], *job);
    } else if (ctx.is<Terminated>()) {
      std::printf("  supervisor: a worker restarted too often and was stopped\n");
    }
  }
  SupervisorStrategy supervisorStrategy() override {
    return SupervisorStrategy::oneForOne(
        [](const std::exception_ptr&) { return Directive::Restart; }, /*maxRestarts=*/2, 1min);
  }
};

int main() {
  auto system =
      ActorSystem::create("supervision", ActorSystemOptions::create().withLogLevel(LogLevel::Off));
  ActorRef supervisor = system->spawn<Supervisor>("supervisor");

  std::printf("jobs, one of them poisoned:\n");
  for (int id = 0; id < 6; ++id) supervisor.tell(Job{id, id == 4});
  std::this_thread::sleep_for(100ms);

  std::printf("three poisoned jobs for worker-1:\n");
  for (int i = 0; i < 3; ++i) supervisor.tell(Job{1 + 3 * i, true});
  std::this_thread::sleep_for(100ms);

  system->shutdown();
  std::printf("dead letters: %llu\n", static_cast<unsigned long long>(system->deadLetterCount()));
  return 0;
}
