// One actor's coroutine handlers (coreactor/Async.hpp): the state an actor
// with coroutine handlers keeps beside its cell, and the calls that start,
// resume and destroy them (runtime/Coroutines.cpp). Everything here runs on
// the actor's isolate.
#pragma once

#include <coroutine>
#include <cstdint>
#include <utility>
#include <vector>

#include "ActorCell.hpp"

namespace coreactor::detail {

// What an actor with coroutine handlers keeps beside its cell: the context
// its coroutines hold, the message a suspended (non-reentrant) handler works
// on, and the suspended frames with their tokens (a token tells a resumption
// meant for a frame that a stop or a restart has since destroyed).
struct ActorCell::AsyncState {
  explicit AsyncState(ReceiveContext&& c) : ctx(std::move(c)) {}
  ReceiveContext ctx;
  Envelope current;
  std::coroutine_handle<> awaiting;  // non-reentrant: the one suspended handler
  std::uint64_t awaitingToken = 0;
  std::vector<std::pair<std::coroutine_handle<>, std::uint64_t>> inflight;  // reentrant
  std::uint64_t running = 0;  // token of the coroutine being started or resumed
  std::uint64_t nextToken = 1;
};

/// The coroutine handlers of one cell (ActorCell::coroutines()): made for a
/// call, it holds nothing but the cell. Their state (AsyncState) is in the
/// cell's rare part from the first handler on. Nested in the cell: it sets
/// the message of a ReceiveContext, which only the cell's code may.
class ActorCell::Coroutines {
 public:
  explicit Coroutines(ActorCell& cell) noexcept : cell_(cell) {}

  /// Runs `actor`'s handler for the message of `ctx` (AsyncActor::receive)
  /// as a coroutine, kept if it suspends; a throw before its first suspension
  /// goes to supervision, as a plain handler's does.
  void run(AsyncActor& actor, ReceiveContext& ctx);
  /// The token of the coroutine being started or resumed (0 for none).
  std::uint64_t running() const noexcept;
  /// Whether `h`, started or resumed with `token`, is still suspended here
  /// (a stop or a restart destroys it) and the actor has not begun to stop.
  bool live(std::coroutine_handle<> h, std::uint64_t token) const noexcept;
  /// Resumes `h` if it is live(); a throw after an await reaches supervision.
  void resume(std::coroutine_handle<> h, std::uint64_t token);
  /// A handler is suspended: the actor moves once none is.
  bool suspended() const noexcept;
  /// A stop or a restart: its suspended handlers are destroyed.
  void destroy() noexcept;

 private:
  AsyncState* state() const noexcept;  // null for an actor with no coroutine handler

  ActorCell& cell_;
};

inline ActorCell::Coroutines ActorCell::coroutines() noexcept {
  return Coroutines(*this);
}

// Here, where AsyncState is complete.
inline bool ActorCell::blocked() const noexcept {
  return flags_.any(CellFlags::kAsync) && static_cast<bool>(rare_->async->awaiting);
}

}  // namespace coreactor::detail
