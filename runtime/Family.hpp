// One actor's children: their spawning and names, their order, and the
// supervision decisions the actor takes for them (runtime/Family.cpp).
// Everything here runs on the actor's isolate.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coreactor/Actor.hpp"

namespace coreactor::detail {

class ActorCell;
struct RouteeGauge;

/// What a spawn may add to a cell (Spawns::spawn): a gauge its queue
/// depth is published into at the end of each turn (a routee of a pool
/// that reads depths), and work on the new cell before any other thread
/// can see it (a router's head takes its routees so).
struct SpawnExtras {
  RouteeGauge* gauge = nullptr;
  const std::function<void(ActorCell&)>* beforePublish = nullptr;
};

/// The children of one cell (ActorCell::family()): made for a call, it
/// holds nothing but the cell. What it keeps of them (Data) lives in the
/// cell's rare part from the first child on.
class Family {
 public:
  struct Child {
    ActorRef ref;
    std::string name;
    std::uint64_t seq;
    std::vector<std::chrono::steady_clock::time_point> restarts;
  };
  struct Data {
    std::unordered_map<std::uint64_t, Child> byId;
    std::unordered_map<std::string, std::uint64_t> byName;
    std::uint64_t nextSeq = 0;
    std::uint64_t generatedNames = 0;
  };

  explicit Family(ActorCell& cell) noexcept : cell_(cell) {}

  /// Spawns a child named `name` ($1, $2, ... if empty). Throws for a
  /// stopping cell, a name with '/' or a leading '$', and a name taken.
  ActorRef spawn(std::string name, ActorOptions options, ActorFactory factory,
                 const SpawnExtras& extras = {});
  /// Takes `child` (spawned with this cell as parent from elsewhere: a
  /// router's routees) into the family as `name`.
  void adopt(const ActorRef& child, std::string name);
  /// The living children, oldest first.
  std::vector<ActorRef> children() const;
  /// The living child named `name`, or none.
  ActorRef child(std::string_view name) const;
  /// Stops any actor; a child of ours gives its name back at once.
  void stop(const ActorRef& actor);
  /// A child stopped (ChildTerminated): it leaves the family.
  void forget(const ActorRef& child);
  /// The cell stops: each child is told to stop, and their names are free
  /// again at once.
  void stopAll();
  /// The cell resumes after an escalation: so does the subtree that escalated.
  void resumeAll();
  /// `child` failed with `cause`: the supervisor strategy decides, and the
  /// decision is carried out (requirement A6).
  void supervise(const ActorRef& child, const std::exception_ptr& cause);
  /// Whether it has living children. Inline, with the cell
  /// (runtime/ActorCell.hpp): a stopping cell's turn tests it as it ends.
  bool hasChildren() const noexcept;

 private:
  Data* data() const noexcept;  // null until the first child (inline, as hasChildren)
  Data& made();                 // made on first use

  ActorCell& cell_;
};

}  // namespace coreactor::detail
