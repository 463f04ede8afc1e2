// Built against an installed coreactor with its MPI component: a cluster of
// the ranks it is started with (one, when run directly), a lookup of this
// rank's own actor through the cluster, an ask.
#include <chrono>
#include <cstdio>

#include <coreactor/ActorSystem.hpp>
#include <coreactor/Cluster.hpp>

int main(int argc, char** argv) {
  auto cluster = coreactor::Cluster::mpi(&argc, &argv);
  auto system = coreactor::ActorSystem::create(
      "consumer-mpi", coreactor::ActorSystemOptions::create().withIsolates(1).withCluster(cluster));
  system->spawn("doubler", [](coreactor::ReceiveContext& ctx) {
    if (auto* n = ctx.get<int>()) ctx.reply(*n * 2);
  });
  const coreactor::ActorRef doubler = system->lookup(system->rank(), "doubler").get();
  const int answer = doubler ? system->ask<int>(doubler, 21, std::chrono::seconds(10)).get() : 0;
  std::printf("the installed coreactor::mpi answers %d on rank %d of %d\n", answer, system->rank(),
              cluster->size());
  system->shutdown();
  return answer == 42 ? 0 : 1;
}
