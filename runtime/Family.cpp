// One actor's children (Family.hpp): spawning them under their names,
// their order, stopping them, and the supervision decisions the actor takes
// for them (requirement A6). Everything here runs on the actor's isolate.
#include "Family.hpp"

#include <algorithm>

#include "SystemCore.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

Family::Data& Family::made() {
  ActorCell::Rare& r = cell_.rare();
  if (r.family == nullptr) r.family = std::make_unique<Data>();
  return *r.family;
}

ActorRef Family::spawn(std::string name, ActorOptions options, ActorFactory factory,
                       const SpawnExtras& extras) {
  if (cell_.state() >= ActorCell::State::Terminating) {
    throwError(Error::ErrActorSystemNotStarted,
               std::string(cell_.path()) + " is stopping and spawns no children");
  }
  Data& f = made();
  if (name.empty()) {
    do {
      name = "$" + std::to_string(++f.generatedNames);
    } while (f.byName.count(name) != 0);
  } else if (name.find('/') != std::string::npos || name[0] == '$') {
    throwError(Error::ErrInvalidOption, "actor name '" + name + "': no '/' and no leading '$'");
  } else if (f.byName.count(name) != 0) {
    throwError(Error::ErrDuplicateName,
               std::string(cell_.path()) + " already has a child named '" + name + "'");
  }
  ActorRef ref = cell_.core().spawns().spawn(&cell_, std::string(cell_.path()) + "/" + name,
                                             options, std::move(factory), nullptr, extras);
  adopt(ref, std::move(name));
  return ref;
}

void Family::adopt(const ActorRef& child, std::string name) {
  Data& f = made();
  const std::uint64_t seq = f.nextSeq++;
  f.byName.emplace(name, child.id());
  f.byId.emplace(child.id(), Child{child, std::move(name), seq, {}});
}

void Family::stop(const ActorRef& actor) {
  // The name is free again at once: a restarting parent spawns its children
  // anew in postRestart while the old ones are still stopping. Another
  // system's reference is no child of ours, whatever its id.
  Data* f = cell_.core().isOurs(actor) ? data() : nullptr;
  if (f != nullptr) {
    auto it = f->byId.find(actor.id());
    if (it != f->byId.end()) {
      auto named = f->byName.find(it->second.name);
      if (named != f->byName.end() && named->second == actor.id()) f->byName.erase(named);
    }
  }
  cell_.core().delivery().sendSystem(actor, SystemMessage{SysKind::Stop, {}, nullptr});
}

void Family::forget(const ActorRef& child) {
  Data* f = data();
  if (f == nullptr) return;
  auto it = f->byId.find(child.id());
  if (it == f->byId.end()) return;
  auto named = f->byName.find(it->second.name);
  if (named != f->byName.end() && named->second == child.id()) f->byName.erase(named);
  f->byId.erase(it);
}

std::vector<ActorRef> Family::children() const {
  std::vector<const Child*> living;
  if (const Data* f = data()) {
    for (const auto& [id, c] : f->byId) living.push_back(&c);
  }
  std::sort(living.begin(), living.end(), [](auto* a, auto* b) { return a->seq < b->seq; });
  std::vector<ActorRef> refs;
  for (const Child* c : living) refs.push_back(c->ref);
  return refs;
}

ActorRef Family::child(std::string_view name) const {
  const Data* f = data();
  if (f == nullptr) return {};
  auto it = f->byName.find(std::string(name));
  if (it == f->byName.end()) return {};
  return f->byId.at(it->second).ref;
}

void Family::stopAll() {
  Data* f = data();
  if (f == nullptr) return;
  for (const auto& [id, c] : f->byId) {
    cell_.core().delivery().sendSystem(c.ref, SystemMessage{SysKind::Stop, {}, nullptr});
  }
  // Names are free again at once: a restarted parent may spawn them anew.
  f->byName.clear();
}

void Family::resumeAll() {
  if (const Data* f = data()) {
    for (const auto& [id, c] : f->byId) {
      cell_.core().delivery().sendSystem(c.ref, SystemMessage{SysKind::Resume, {}, nullptr});
    }
  }
}

void Family::supervise(const ActorRef& child, const std::exception_ptr& cause) {
  Child* info = nullptr;
  Data* f = data();
  if (f != nullptr) {
    auto it = f->byId.find(child.id());
    if (it != f->byId.end()) info = &it->second;
  }
  SystemCore& core = cell_.core();
  if (info == nullptr &&
      !(cell_.flags_.any(CellFlags::kGuardian) && core.spawns().isTopLevel(child)))
    return;  // stale

  SupervisorStrategy strategy = cell_.actor_ != nullptr ? cell_.actor_->supervisorStrategy()
                                                        : SupervisorStrategy::defaultStrategy();
  Directive directive;
  try {
    directive = strategy.decide(cause);
  } catch (...) {
    directive = Directive::Escalate;
  }
  if (directive == Directive::Restart && strategy.maxRestarts() >= 0 && info != nullptr) {
    // The only clock read of supervision, on the failure path.
    const auto now = std::chrono::steady_clock::time_point(core.clock().now().time_since_epoch());
    auto& times = info->restarts;
    times.erase(std::remove_if(times.begin(), times.end(),
                               [&](auto t) { return now - t > strategy.window(); }),
                times.end());
    if (static_cast<int>(times.size()) >= strategy.maxRestarts()) {
      directive = Directive::Stop;
    } else {
      times.push_back(now);
    }
  }
  if (directive == Directive::Escalate && cell_.flags_.any(CellFlags::kGuardian))
    directive = Directive::Stop;

  std::vector<ActorRef> targets;
  if (strategy.kind() == SupervisorStrategy::Kind::AllForOne && directive != Directive::Resume &&
      f != nullptr) {
    for (const auto& [id, c] : f->byId) targets.push_back(c.ref);
  } else {
    targets.push_back(child);
  }
  switch (directive) {
    case Directive::Resume:
      core.delivery().sendSystem(child, SystemMessage{SysKind::Resume, {}, nullptr});
      break;
    case Directive::Restart:
      for (const auto& t : targets)
        core.delivery().sendSystem(t, SystemMessage{SysKind::Restart, {}, cause});
      break;
    case Directive::Stop:
      for (const auto& t : targets) stop(t);
      break;
    case Directive::Escalate:
      CellLifecycle::fail(cell_, cause);
      break;
  }
}

}  // namespace coreactor::detail
