// Spawning (Spawns.hpp): the user guardian, a cell made on the isolate its
// placement picks (IsolatePlacer.hpp), a top-level actor's name and count
// in the registry of top-level actors (TopLevelRegistry.hpp), and the path
// an actor was spawned under, read from its reference.
#include <charconv>

#include "SystemCore.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

// The user guardian: parent of every top-level actor. It receives nothing
// itself; its cell supervises (restart by default) and counts the living.
class Guardian final : public Actor {
 public:
  void receive(ReceiveContext&) override {}
};

Spawns::Spawns(SystemCore& core)
    : core_(core), topLevel_([&core] { core.systemStop().stopLoops(); }), placer_(core.options()) {}

void Spawns::spawnGuardian() {
  // The guardian lives on isolate 0.
  IsolateRuntime& home = *core_.isolates_[0];
  const auto reservation = home.table.reserve(core_.isLocal(home));
  guardian_ = core_.makeRef(0, reservation.slot, reservation.generation);
  auto* cell = new ActorCell(
      home, guardian_, ActorRef(), "/user", ActorOptions::create(),
      [] { return std::unique_ptr<Actor>(std::make_unique<Guardian>()); }, *home.dispatcher, 1,
      /*guardian=*/true);
  home.table.publish(reservation.slot, cell);
  core_.delivery().sendSystem(guardian_, SystemMessage{SysKind::Start, {}, nullptr});
}

ActorRef Spawns::spawn(ActorCell* parent, std::string_view path, const ActorOptions& options,
                       ActorFactory&& factory, const std::string* topName,
                       const SpawnExtras& extras) {
  if (!core_.running() && parent == nullptr) {
    throwError(Error::ErrActorSystemNotStarted,
               "spawn of " + std::string(path) + " on a stopped system");
  }
  const std::size_t index = placer_.isolateFor(
      options, parent != nullptr ? std::optional<std::size_t>(parent->home().index) : std::nullopt,
      core_.isOurs(options.near()));
  IsolateRuntime& home = core_.runtime(index);  // ErrIsolateOutOfRange
  Dispatcher* dispatcher = home.dispatcher.get();
  if (options.dispatcher() != nullptr) {
    options.dispatcher()->bind(*home.isolate);  // ErrDispatcherBoundElsewhere
    options.dispatcher()->adoptErrorSink(core_.metrics().dispatcherSink());
    dispatcher = options.dispatcher().get();
  }
  const auto throughput =
      static_cast<std::uint32_t>(options.throughput().value_or(core_.options().throughput()));
  const bool local = core_.isLocal(home);  // this thread runs `home`'s loop
  const auto reservation = home.table.reserve(local);
  const ActorRef self = core_.makeRef(home.index, reservation.slot, reservation.generation);
  auto* cell = new ActorCell(home, self, parent != nullptr ? parent->self() : guardian_, path,
                             options, std::move(factory), *dispatcher, throughput, false);
  if (extras.gauge != nullptr) CellTurn::publishDepthTo(*cell, extras.gauge);
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
  if (local) {
    cell->systemLine().enqueueStart();  // on its isolate: none of its turns has run yet
  } else {
    core_.delivery().sendSystem(self, SystemMessage{SysKind::Start, {}, nullptr});
  }
  return self;
}

ActorRef Spawns::spawnTopLevel(std::string&& name, const ActorOptions& options,
                               ActorFactory&& factory, const SpawnExtras& extras) {
  if (!core_.running()) {
    throwError(Error::ErrActorSystemNotStarted,
               "spawn on system '" + core_.name() + "', which stopped");
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

bool Spawns::isTopLevel(const ActorRef& child) {
  return child.isolateIndex() < core_.isolates_.size() &&
         core_.isolates_[child.isolateIndex()]->table.isTopLevel(child.slot(), child.generation());
}

ActorRef Spawns::topLevelNamed(const std::string& name) {
  const std::optional<std::uint64_t> id = topLevel_.named(name);
  return id.has_value() ? core_.makeRef(*id) : ActorRef();
}

std::vector<ActorRef> Spawns::topLevel() {
  std::vector<ActorRef> refs;
  for (const auto& rt : core_.isolates_) {
    rt->table.forEachTopLevel([&](std::uint32_t slot, std::uint32_t generation) {
      refs.push_back(core_.makeRef(rt->index, slot, generation));
    });
  }
  return refs;
}

std::vector<IsolatePlacement> Spawns::placement() const {
  return placer_.placement();
}

std::string Spawns::pathOf(const ActorRef& ref) {
  if (ref.isNone()) return "(none)";
  if (core_.routers().isRouter(ref)) {
    // The router's head's path, read where it lives (the bare id elsewhere).
    if (const ActorRef head = core_.routers().headOf(ref); !head.isNone()) {
      std::string path = pathOf(head);
      if (path[0] == '/') return path;
    }
    return "#router:" + std::to_string(ref.slot());
  }
  if (ref.isolateIndex() < core_.isolates_.size()) {
    IsolateRuntime& rt = *core_.isolates_[ref.isolateIndex()];
    if (core_.isLocal(rt)) {
      Endpoint* e = rt.table.find(ref.slot(), ref.generation());
      if (e != nullptr && e->kind == Endpoint::Kind::Cell)
        return std::string(static_cast<ActorCell*>(e)->path());
    }
  }
  return "#" + std::to_string(ref.isolateIndex()) + ":" + std::to_string(ref.slot()) + "." +
         std::to_string(ref.generation());
}

}  // namespace coreactor::detail
