// bench/isolates/Pinning.cpp — see the header.
#include "isolates/Pinning.hpp"

#include <pthread.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

#include "isolates/Families.hpp"

namespace coreactor::bench::isolates {

const std::vector<int>& allowedCpus() {
  static const std::vector<int> cpus = [] {
    std::vector<int> ids;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &set)) ids.push_back(cpu);
      }
    }
    return ids;
  }();
  return cpus;
}

bool pinning() {
  return allowedCpus().size() >= 2;
}

int cpuFor(std::size_t k) {
  const std::vector<int>& cpus = allowedCpus();
  return cpus[k % cpus.size()];
}

bool pinCurrentThread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

ScopedPin::ScopedPin(int cpu) {
  CPU_ZERO(&saved_);
  savedOk_ = pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) == 0;
  if (!pinCurrentThread(cpu)) throw std::system_error(errno, std::generic_category(), "pin");
}

ScopedPin::~ScopedPin() {
  if (savedOk_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

std::unique_ptr<ActorSystem> threadedSystem(std::size_t isolates, ActorSystemOptions options) {
  return ActorSystem::create("cross-bench",
                             options.withIsolates(isolates).withLogLevel(LogLevel::Off));
}

namespace {

struct PinTo {
  int cpu;
};

}  // namespace

void pinIsolate(ActorSystem& system, std::size_t index, int cpu) {
  const ActorRef pinner = system.spawn(
      "",
      [](ReceiveContext& ctx) {
        if (const PinTo* to = ctx.get<PinTo>()) ctx.reply(pinCurrentThread(to->cpu));
      },
      ActorOptions::create().withIsolate(index));
  const bool pinned = system.ask<bool>(pinner, PinTo{cpu}, kGiveUp).get();
  system.stop(pinner);
  if (!pinned) {
    throw std::runtime_error("could not pin isolate " + std::to_string(index) + " to CPU " +
                             std::to_string(cpu));
  }
}

void pinIsolates(ActorSystem& system, std::size_t isolates) {
  if (!pinning()) return;
  for (std::size_t k = 0; k < isolates; ++k) pinIsolate(system, k, cpuFor(k));
}

}  // namespace coreactor::bench::isolates
