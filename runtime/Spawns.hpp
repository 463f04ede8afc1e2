// The system's spawning and its top level: runtime/Spawn.cpp. A cell is made
// on the isolate its placement picks (IsolatePlacer.hpp); the user guardian
// is the parent of every top-level actor, whose names and count are in the
// registry of top-level actors (TopLevelRegistry.hpp). Which actors are
// top-level is not kept here: the actor tables flag them (ActorTable.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ActorCell.hpp"
#include "IsolatePlacer.hpp"
#include "TopLevelRegistry.hpp"
#include "coreactor/Actor.hpp"
#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/Placement.hpp"

namespace coreactor::detail {

class SystemCore;

/// The spawns of a system: the user guardian, the actors under it (the
/// top-level ones, by name or by a generated one) and under other actors,
/// each on the isolate its placement picks; and the top-level actors looked
/// up by name, listed, and counted for a graceful shutdown. Any thread
/// unless said.
class Spawns {
 public:
  /// Plans the placement of the system's isolates from its options, which
  /// are made before this (IsolatePlacer: ErrInvalidOption for a NUMA node
  /// or a pinning the machine cannot give).
  explicit Spawns(SystemCore& core);
  Spawns(const Spawns&) = delete;
  Spawns& operator=(const Spawns&) = delete;

  /// Once, from SystemCore's constructor once the isolates are made: the
  /// user guardian on isolate 0, which receives nothing itself; its cell
  /// supervises the top-level actors (restart by default) and counts them.
  void spawnGuardian();
  /// Spawns an actor under `parent` (nullptr: the user guardian, and the
  /// actor is top-level). The name is already checked and held by the
  /// caller; a top-level `topName` is bound to the new actor's id.
  /// `extras`: a queue-depth gauge to publish into (a routee), and work on
  /// the new cell before any other thread can see it (a router's head).
  ActorRef spawn(ActorCell* parent, std::string_view path, const ActorOptions& options,
                 ActorFactory&& factory, const std::string* topName = nullptr,
                 const SpawnExtras& extras = {});
  ActorRef spawnTopLevel(std::string&& name, const ActorOptions& options, ActorFactory&& factory,
                         const SpawnExtras& extras = {});
  /// The top-level actor of that name, or none.
  ActorRef topLevelNamed(const std::string& name);
  /// The guardian's ChildTerminated of a top-level actor
  /// (TopLevelRegistry::terminated). On the guardian's isolate.
  void topLevelTerminated(const ActorRef& child) { topLevel_.terminated(child.id()); }
  /// True for a top-level actor of this system (the actor tables' flag).
  bool isTopLevel(const ActorRef& child);
  /// The top-level actors living now, read from every isolate's table.
  std::vector<ActorRef> topLevel();
  /// Each isolate's placement (ActorSystem::placement()): a copy made under
  /// the placer's lock.
  std::vector<IsolatePlacement> placement() const;
  /// The path `ref`'s actor was spawned under, read where it lives (or on
  /// a manual system's driving thread); a router's is its head's. Elsewhere,
  /// and once the actor is gone, its bare id: "#isolate:slot.generation"
  /// ("#router:slot" for a router). Builds a string (ActorRef::path).
  std::string pathOf(const ActorRef& ref);

  /// The names and the count of the top-level actors, which a graceful
  /// shutdown waits on (SystemStop).
  TopLevelRegistry& registry() noexcept { return topLevel_; }
  /// Where the isolates run: each isolate's thread is pinned through it as
  /// it starts.
  IsolatePlacer& placer() noexcept { return placer_; }

 private:
  SystemCore& core_;
  ActorRef guardian_;
  // The top-level actors' names and the count a graceful shutdown waits
  // for. Its callback calls SystemStop::stopLoops(): SystemCore declares
  // its SystemStop before this, which is made after it and gone before it.
  TopLevelRegistry topLevel_;
  // Where the isolates run and the actors go; planned before any isolate is made.
  IsolatePlacer placer_;
};

}  // namespace coreactor::detail
