// bench/isolates/Pinning.hpp — where the two sides of an isolates/* row run,
// and the threaded systems the rows build.
//
// When the process may run on at least two CPUs, every two-sided row puts
// its two sides on the first two of them (pthread_setaffinity_np): the
// floors' threads pin themselves; an isolate is pinned by an actor on it,
// which pins the thread its turn runs on (the runtime pins nothing itself);
// isolates/ask/foreign pins its isolate to the second CPU and the
// benchmark's thread, for that row only, to the first. Isolate k of a row
// goes to CPU k. On one CPU nothing is pinned: both sides time-share it, the
// rows still run and are verified, and their descriptions say "unpinned";
// the figures are then not crossings and the targets built on them mean
// nothing.
#pragma once

#include <sched.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "coreactor/ActorSystem.hpp"

namespace coreactor::bench::isolates {

/// The CPUs this process may run on, read once (at registration, before any
/// row pins a thread: a pinned thread's children inherit its mask).
const std::vector<int>& allowedCpus();

/// True when the two-sided rows pin their sides: at least two CPUs.
bool pinning();

/// The CPU of side (or isolate) `k` of a row.
int cpuFor(std::size_t k);

/// Pins the calling thread to `cpu`; false if it could not.
bool pinCurrentThread(int cpu);

/// Pins the calling thread to one CPU for as long as it lives, then gives
/// the thread its mask back. Throws if it could not pin.
class ScopedPin {
 public:
  explicit ScopedPin(int cpu);
  ~ScopedPin();
  ScopedPin(const ScopedPin&) = delete;
  ScopedPin& operator=(const ScopedPin&) = delete;

 private:
  cpu_set_t saved_;
  bool savedOk_ = false;
};

/// A threaded system of `isolates` isolates, logging off: what every
/// isolates/* row runs on.
std::unique_ptr<ActorSystem> threadedSystem(
    std::size_t isolates, ActorSystemOptions options = ActorSystemOptions::create());

/// Pins the thread of isolate `index` to `cpu`, from inside: an actor on
/// that isolate pins the thread its turn runs on. Throws if it could not.
void pinIsolate(ActorSystem& system, std::size_t index, int cpu);

/// Isolate k of `system` to cpuFor(k), for k < isolates, when pinning().
void pinIsolates(ActorSystem& system, std::size_t isolates);

}  // namespace coreactor::bench::isolates
