// Built against an installed coreactor: spawns an actor, asks it, prints the answer.
#include <chrono>
#include <cstdio>

#include <coreactor/ActorSystem.hpp>

int main() {
  auto system = coreactor::ActorSystem::create("consumer");
  coreactor::ActorRef doubler = system->spawn("doubler", [](coreactor::ReceiveContext& ctx) {
    if (auto* n = ctx.get<int>()) ctx.reply(*n * 2);
  });
  const int answer = system->ask<int>(doubler, 21, std::chrono::seconds(10)).get();
  std::printf("the installed coreactor answers %d\n", answer);
  system->shutdown();
  return answer == 42 ? 0 : 1;
}
