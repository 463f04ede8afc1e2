// Two actors volley a ball N times on the default (hybrid) dispatcher, then
// the program asks the pinger how many rounds it saw.
//
//   example-ping-pong [rounds]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <coreactor/ActorSystem.hpp>

using namespace coreactor;

struct Ball {
  int round;
};
struct Start {
  ActorRef ponger;
  int rounds;
};
struct HowMany {};

class Pinger : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (auto* start = ctx.get<Start>()) {
      rounds_ = start->rounds;
      ctx.tell(start->ponger, Ball{0});
    } else if (auto* ball = ctx.get<Ball>()) {
      seen_ = ball->round + 1;
      if (seen_ < rounds_) ctx.reply(Ball{seen_});
    } else if (ctx.is<HowMany>()) {
      ctx.reply(seen_);
    }
  }

 private:
  int rounds_ = 0;
  int seen_ = 0;
};

class Ponger : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (auto* ball = ctx.get<Ball>()) ctx.reply(Ball{ball->round});
  }
};

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 100000;
  if (rounds <= 0) {
    std::fprintf(stderr, "usage: example-ping-pong [rounds > 0]\n");
    return 2;
  }
  auto system = ActorSystem::create("ping-pong");
  ActorRef ponger = system->spawn<Ponger>("ponger");
  ActorRef pinger = system->spawn<Pinger>("pinger");

  const auto begin = std::chrono::steady_clock::now();
  pinger.tell(Start{ponger, rounds});
  // Ask until the volley is over (the ask queues behind the balls).
  int seen = 0;
  while (seen < rounds) {
    seen = system->ask<int>(pinger, HowMany{}, std::chrono::seconds(10)).get();
  }
  const auto elapsed = std::chrono::steady_clock::now() - begin;
  std::printf("%d round trips in %.2f ms\n", seen,
              std::chrono::duration<double, std::milli>(elapsed).count());
  system->shutdown();
  return 0;
}
