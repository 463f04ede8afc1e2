// The placement of a system's isolates and of its actors (IsolatePlacer.hpp).
#include "IsolatePlacer.hpp"

#include <chrono>
#include <string>

#include "Hash.hpp"
#include "coreactor/Error.hpp"
#include "isolate/Placement.hpp"

namespace coreactor::detail {

IsolatePlacer::IsolatePlacer(const ActorSystemOptions& options)
    : placement_(planPlacement(PlacementRequest{
          .isolates = options.isolates(),
          .pinning = options.pinning(),
          .numaNode = options.numaNode(),
          .idlePoll = options.idlePoll(),
          .defaultIdlePoll = ActorSystemOptions::kDefaultIdlePoll,
          .manualRun = options.manualRun(),
      })),
      isolates_(placement_.size()),
      run_(options.placementRun()),
      bindingWanted_(options.pinning() != Pinning::None || options.numaNode().has_value()) {}

std::vector<IsolatePlacement> IsolatePlacer::placement() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return placement_;
}

void IsolatePlacer::pin(std::size_t index, spdlog::logger& log) noexcept {
  IsolatePlacement where;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    where = placement_[index];
  }
  const auto listed = [](const std::vector<unsigned>& cpus) {
    std::string list;
    for (unsigned cpu : cpus) list += (list.empty() ? "" : ",") + std::to_string(cpu);
    return list;
  };
  const std::string asked = listed(where.cpus);
  // pinThread reads the affinity back, so the placement says what the
  // kernel does, whatever hwloc answered.
  pinThread(where, bindingWanted_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    placement_[index] = where;
  }
  const std::string runs = listed(where.cpus);
  const auto pollUs = std::chrono::duration<double, std::micro>(where.idlePoll).count();
  if (!bindingWanted_) {
    log.debug("isolate {} runs on CPUs {} (not pinned; idle poll {} us)", index, runs, pollUs);
  } else if (where.pinned) {
    log.info("isolate {} pinned to CPUs {} (NUMA node {}; idle poll {} us)", index, runs,
             where.numaNode, pollUs);
  } else {
    log.warn("isolate {} not pinned to CPUs {}: {}; it runs on CPUs {}", index, asked, where.note,
             runs);
  }
}

std::size_t IsolatePlacer::isolateFor(const ActorOptions& options,
                                      std::optional<std::size_t> parentIsolate, bool nearIsOurs) {
  if (options.isolate().has_value()) return *options.isolate();
  if (options.nearAsked()) {
    const ActorRef& peer = options.near();
    if (!nearIsOurs) {
      throwError(Error::ErrInvalidOption,
                 "withIsolateOf: " + std::string(peer.isNone() ? "an empty reference"
                                                               : "a reference of another system"));
    }
    return peer.isolateIndex();
  }
  if (options.key().has_value()) {
    return static_cast<std::size_t>(fnv1a(*options.key()) % isolates_);
  }
  if (options.roundRobin() || !parentIsolate.has_value()) {
    const std::uint64_t turn = roundRobin_.fetch_add(1, std::memory_order_relaxed);
    return (turn / run_) % isolates_;
  }
  return *parentIsolate;
}

}  // namespace coreactor::detail
