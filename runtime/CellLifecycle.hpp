// One actor's lifecycle (requirement A5, A6; runtime/CellLifecycle.cpp): what
// its system messages do (start, stop, watch, supervision, continuations),
// its failure, restarts, stopping, its passivation check and the anchor of
// its schedules. The order its system messages come in and run in is its
// system line (SystemLine.hpp), its turn is CellTurn.hpp, its children and
// the supervision decisions it takes for them Family.hpp. Everything here
// runs on the actor's isolate.
#pragma once

#include <cstdint>
#include <exception>

namespace coreactor::detail {

class ActorCell;
struct SystemMessage;

/// The lifecycle of one cell (ActorCell::lifecycle()): made for a call, it
/// holds nothing but the cell, whose state it works on. A spawn, a stop, a
/// restart: cold. The calls the turn makes (fail, beginStop, finishStop)
/// are static, as SystemLine::run is: the turn calls them with the cell in
/// hand, as it called its own, and makes no view on its hot path.
class CellLifecycle {
 public:
  explicit CellLifecycle(ActorCell& cell) noexcept : cell_(cell) {}

  /// A system message of the cell's queue (SystemLine::run), by its kind.
  void handleSystem(SystemMessage& message);
  /// Its Start: a first instance and its preStart; its passivation checks.
  void start();
  /// Stops it from inside one of its turns (ReceiveContext::stop).
  void requestStop() noexcept;

  /// The anchor of this actor's schedules (made on first use, S6).
  std::uint32_t scheduleAnchor();
  /// A passivation check (SPEC A10): false once the actor was idle for its
  /// whole timeout and has been told to stop.
  bool passivationCheck();

  /// Tears the cell down without running any hook (system stop): its
  /// mailbox becomes dead letters. Only when no loop runs.
  void abandon() noexcept;

  /// Its handler, or what runs for it, threw `cause`: the actor is
  /// suspended and its parent decides (SPEC D10).
  static void fail(ActorCell& cell, std::exception_ptr cause);
  /// Its stop begins (a Stop, a PoisonPill, ctx.stop()): its children stop.
  static void beginStop(ActorCell& cell);
  /// Its stop ends, once its children are gone: postStop, its watchers and
  /// parent are told, its mailbox becomes dead letters.
  static void finishStop(ActorCell& cell);

 private:
  void restart(const std::exception_ptr& cause);
  template <class Hook>
  bool becomeNewInstance(const char* what, Hook&& hook);
  /// finishStop's steps on the rare part, which `cell` has: its system
  /// line's queue, its watchers, its schedules. `me` is cell.self().
  static void endRare(ActorCell& cell, const ActorRef& me);
  static void reportHookError(ActorCell& cell, const char* hook, std::exception_ptr error) noexcept;

  ActorCell& cell_;
};

}  // namespace coreactor::detail
