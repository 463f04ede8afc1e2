// Spawning: a cell made on its isolate, the placement of top-level actors,
// and the registry of top-level actors (names, the count a shutdown waits
// for).
#include <charconv>

#include "Hash.hpp"
#include "SystemCore.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

ActorRef SystemCore::spawn(ActorCell* parent, std::string_view path, const ActorOptions& options,
                           ActorFactory&& factory, const std::string* topName) {
  if (!running() && parent == nullptr) {
    throwError(Error::ErrActorSystemNotStarted,
               "spawn of " + std::string(path) + " on a stopped system");
  }
  const std::size_t index = placementOf(parent, options);
  IsolateRuntime& home = runtime(index);  // ErrIsolateOutOfRange
  Dispatcher* dispatcher = home.dispatcher.get();
  if (options.dispatcher() != nullptr) {
    options.dispatcher()->bind(*home.isolate);  // ErrDispatcherBoundElsewhere
    options.dispatcher()->adoptErrorSink(dispatcherSink());
    dispatcher = options.dispatcher().get();
  }
  const auto throughput =
      static_cast<std::uint32_t>(options.throughput().value_or(options_.throughput()));
  const auto reservation = home.table.reserve(isLocal(home));
  const ActorRef self = makeRef(home.index, reservation.slot, reservation.generation);
  auto* cell = new ActorCell(home, self, parent != nullptr ? parent->self() : guardian_, path,
                             options, std::move(factory), *dispatcher, throughput, false);
  if (topName != nullptr) {
    // The name maps to the id before the actor can stop and give it back.
    std::lock_guard<std::mutex> lock(topMutex_);
    topByName_[*topName] = self.id();
    topNames_.emplace(self.id(), *topName);
    topNamed_.fetch_add(1, std::memory_order_release);
  }
  home.table.publish(reservation.slot, cell, /*topLevel=*/parent == nullptr);
  sendSystem(self, SystemMessage{SysKind::Start, {}, nullptr});
  return self;
}

std::size_t SystemCore::placementOf(const ActorCell* parent, const ActorOptions& options) {
  // The first that applies: an isolate, a peer's isolate, a key, round-robin;
  // then a child stays with its parent and a top-level actor goes round.
  if (options.isolate().has_value()) return *options.isolate();
  if (options.nearAsked()) {
    const ActorRef& peer = options.near();
    if (!isOurs(peer)) {
      throwError(Error::ErrInvalidOption,
                 "withIsolateOf: " + std::string(peer.isNone() ? "an empty reference"
                                                               : "a reference of another system"));
    }
    return peer.isolateIndex();
  }
  if (options.key().has_value()) {
    return static_cast<std::size_t>(fnv1a(*options.key()) % isolates_.size());
  }
  if (options.roundRobin() || parent == nullptr) return placeTopLevel(options);
  return parent->home().index;
}

std::size_t SystemCore::placeTopLevel(const ActorOptions&) {
  // Top-level actors without a placement go round the isolates, a run of
  // them at a time (ActorSystemOptions::withPlacementRun).
  const std::uint64_t turn = roundRobin_.fetch_add(1, std::memory_order_relaxed);
  return (turn / options_.placementRun()) % isolates_.size();
}

ActorRef SystemCore::spawnTopLevel(std::string&& name, const ActorOptions& options,
                                   ActorFactory&& factory) {
  if (!running()) {
    throwError(Error::ErrActorSystemNotStarted, "spawn on system '" + name_ + "', which stopped");
  }
  if (name.find('/') != std::string::npos || (!name.empty() && name[0] == '$')) {
    throwError(Error::ErrInvalidOption, "actor name '" + name + "': no '/' and no leading '$'");
  }
  // Counted before it can stop (the guardian's ChildTerminated uncounts it).
  topLive_.fetch_add(1, std::memory_order_relaxed);
  if (name.empty()) {
    // A generated name cannot collide with a user's (those never start with
    // '$'): no registry of names to consult, no lock.
    char path[32] = "/user/$";
    const auto end = std::to_chars(path + 7, path + sizeof path,
                                   topGenerated_.fetch_add(1, std::memory_order_relaxed) + 1);
    try {
      return spawn(nullptr, std::string_view(path, static_cast<std::size_t>(end.ptr - path)),
                   options, std::move(factory));
    } catch (...) {
      uncountTopLevel();
      throw;
    }
  }
  std::unique_lock<std::mutex> lock(topMutex_);
  if (topByName_.count(name) != 0) {
    lock.unlock();
    uncountTopLevel();
    throwError(Error::ErrDuplicateName, "a top-level actor named '" + name + "' exists");
  }
  // Hold the name while spawning, so two threads cannot both take it.
  topByName_.emplace(name, 0);
  lock.unlock();
  ActorRef ref;
  try {
    ref = spawn(nullptr, "/user/" + name, options, std::move(factory), &name);
  } catch (...) {
    lock.lock();
    if (auto held = topByName_.find(name); held != topByName_.end()) {
      if (topNames_.erase(held->second) != 0) topNamed_.fetch_sub(1, std::memory_order_relaxed);
      topByName_.erase(held);
    }
    lock.unlock();
    uncountTopLevel();
    throw;
  }
  return ref;
}

void SystemCore::topLevelTerminated(const ActorRef& child) {
  // Each top-level actor's one ChildTerminated to the guardian lands here.
  // Only a named actor takes the lock for its name.
  if (topNamed_.load(std::memory_order_acquire) != 0) {
    std::lock_guard<std::mutex> lock(topMutex_);
    auto named = topNames_.find(child.id());
    if (named != topNames_.end()) {
      topByName_.erase(named->second);
      topNames_.erase(named);
      topNamed_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  uncountTopLevel();
}

void SystemCore::uncountTopLevel() {
  // What waits (shutdown) waits for none left: only the last one notifies.
  // It takes the lock to do so, so a waiter between its check and its
  // sleep cannot miss the call.
  if (topLive_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::lock_guard<std::mutex> lock(topMutex_);
  if (stopLoopsWhenEmpty_ && topLive_.load(std::memory_order_relaxed) == 0) {
    stopLoops();  // a shutdown from an actor
  }
  topChanged_.notify_all();
}

bool SystemCore::isTopLevel(const ActorRef& child) {
  return child.isolateIndex() < isolates_.size() &&
         isolates_[child.isolateIndex()]->table.isTopLevel(child.slot(), child.generation());
}

ActorRef SystemCore::topLevelNamed(const std::string& name) {
  std::lock_guard<std::mutex> lock(topMutex_);
  const auto it = topByName_.find(name);
  // 0 while the spawn that holds the name is under way.
  if (it == topByName_.end() || it->second == 0) return ActorRef();
  return refOf(it->second);
}

std::vector<ActorRef> SystemCore::topLevel() {
  std::vector<ActorRef> refs;
  for (const auto& rt : isolates_) {
    rt->table.forEachTopLevel([&](std::uint32_t slot, std::uint32_t generation) {
      refs.push_back(makeRef(rt->index, slot, generation));
    });
  }
  return refs;
}

}  // namespace coreactor::detail
