// Spawning: a cell made on the isolate its placement picks
// (IsolatePlacer.hpp), and a top-level actor's name and count in the
// registry of top-level actors (TopLevelRegistry.hpp).
#include <charconv>

#include "SystemCore.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

ActorRef SystemCore::spawn(ActorCell* parent, std::string_view path, const ActorOptions& options,
                           ActorFactory&& factory, const std::string* topName,
                           const SpawnExtras& extras) {
  if (!running() && parent == nullptr) {
    throwError(Error::ErrActorSystemNotStarted,
               "spawn of " + std::string(path) + " on a stopped system");
  }
  const std::size_t index = placer_.isolateFor(
      options, parent != nullptr ? std::optional<std::size_t>(parent->home().index) : std::nullopt,
      isOurs(options.near()));
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
  if (extras.gauge != nullptr) cell->publishDepthTo(extras.gauge);
  if (extras.beforePublish != nullptr) {
    try {
      (*extras.beforePublish)(*cell);
    } catch (...) {
      delete cell;  // never seen; its reserved slot stays empty (dead letters to its id)
      throw;
    }
  }
  if (topName != nullptr) topLevel_.bind(*topName, self.id());  // before it can stop
  home.table.publish(reservation.slot, cell, /*topLevel=*/parent == nullptr);
  sendSystem(self, SystemMessage{SysKind::Start, {}, nullptr});
  return self;
}

ActorRef SystemCore::spawnTopLevel(std::string&& name, const ActorOptions& options,
                                   ActorFactory&& factory, const SpawnExtras& extras) {
  if (!running()) {
    throwError(Error::ErrActorSystemNotStarted, "spawn on system '" + name_ + "', which stopped");
  }
  if (name.find('/') != std::string::npos || (!name.empty() && name[0] == '$')) {
    throwError(Error::ErrInvalidOption, "actor name '" + name + "': no '/' and no leading '$'");
  }
  // Counted before it can stop (the guardian's ChildTerminated uncounts it).
  topLevel_.count();
  if (name.empty()) {
    // A generated name cannot collide with a user's (those never start with
    // '$'): no registry of names to consult, no lock.
    char path[32] = "/user/$";
    const auto end = std::to_chars(path + 7, path + sizeof path, topLevel_.nextGenerated());
    try {
      return spawn(nullptr, std::string_view(path, static_cast<std::size_t>(end.ptr - path)),
                   options, std::move(factory), nullptr, extras);
    } catch (...) {
      topLevel_.uncount();
      throw;
    }
  }
  // Held while spawning, so two threads cannot both take it.
  if (!topLevel_.reserve(name)) {
    topLevel_.uncount();
    throwError(Error::ErrDuplicateName, "a top-level actor named '" + name + "' exists");
  }
  try {
    return spawn(nullptr, "/user/" + name, options, std::move(factory), &name, extras);
  } catch (...) {
    topLevel_.unreserve(name);
    topLevel_.uncount();
    throw;
  }
}

bool SystemCore::isTopLevel(const ActorRef& child) {
  return child.isolateIndex() < isolates_.size() &&
         isolates_[child.isolateIndex()]->table.isTopLevel(child.slot(), child.generation());
}

ActorRef SystemCore::topLevelNamed(const std::string& name) {
  const std::optional<std::uint64_t> id = topLevel_.named(name);
  return id.has_value() ? makeRef(*id) : ActorRef();
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
