// One actor's behaviour tools, which it reaches through its ReceiveContext:
// become and unbecome (a stack of handlers in place of receive()), the stash
// (a bounded line of messages put aside, put back ahead of the mailbox), and
// the receive timeout (a message after an idle stretch). Their calls are in
// runtime/Behaviour.cpp. Everything here runs on the actor's isolate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "Mailbox.hpp"
#include "coreactor/Actor.hpp"

namespace coreactor::detail {

class ActorCell;

/// The behaviour tools of one cell (ActorCell::tools()): made for a call,
/// it holds nothing but the cell. What the tools keep (Data) lives in the
/// cell's rare part from their first use on, so an actor that uses none of
/// them pays one flag test per message (the cell's CellFlags::kTooled) and none of
/// their memory.
class BehaviourTools {
 public:
  // What the behaviour tools keep: the behaviours become() left (the last
  // handles messages) and those replaced while running (freed once that
  // handler returns); the stash, its bound and restart rule; what unstash
  // put back (handled before the mailbox: CellTurn::runUnstashed); the
  // receive timeout, the time of the last message, and the token that tells
  // the timer's current check from older ones.
  struct Data {
    std::vector<std::unique_ptr<ReceiveContext::Behavior>> behaviours;
    std::vector<std::unique_ptr<ReceiveContext::Behavior>> retired;
    std::deque<Envelope> stash;
    std::deque<Envelope> unstashed;
    std::size_t stashCapacity = ActorOptions::kDefaultStashCapacity;
    bool dropStashOnRestart = false;
    Clock::duration receiveTimeout{0};
    Clock::time_point lastMessage{};
    std::uint64_t timeoutToken = 0;
  };

  explicit BehaviourTools(ActorCell& cell) noexcept : cell_(cell) {}

  /// A cell being made: the stash's bound and restart rule from `options`
  /// (nothing kept while they are the defaults).
  void configure(const ActorOptions& options);
  /// Puts `behavior` on top of the behaviours, in place of the top one if
  /// `discardOld`; it handles the messages from the next one on.
  void become(ReceiveContext::Behavior&& behavior, bool discardOld);
  /// Back to the behaviour below the top one (receive() under the last).
  void unbecome();
  /// Puts `current`, the message being handled (from `sender`), aside and
  /// empties it; throws when there is none, or when the stash is full.
  void stash(Message* current, const ActorRef& sender);
  /// Puts the oldest stashed message (all of them if `all`) back, ahead of
  /// the mailbox; how many.
  std::size_t unstash(bool all);
  std::size_t stashSize() const noexcept;
  /// ReceiveTimeout to the actor once it has been idle for `idle`, and
  /// again after each such stretch.
  void setReceiveTimeout(Clock::duration idle);
  void cancelReceiveTimeout();
  /// A restart: no behaviours, no receive timeout; the stash kept or dropped.
  void reset();
  /// A stop: the stash and what was unstashed become dead letters.
  void dropStash(const char* reason);

  /// A message for an actor with tools: its behaviour (or receive) runs,
  /// and the time of the last message is noted for a receive timeout.
  /// Static: the turn calls it with the cell in hand, as it calls its own.
  [[gnu::noinline]] static void invoke(ActorCell& cell, ReceiveContext& ctx);

 private:
  Data* data() const noexcept;  // null until a tool is used
  Data& made();                 // made on first use
  // The cell's CellFlags::kTooled from `t`: after each change of the behaviours or the
  // receive timeout.
  void retool(const Data& t) noexcept;
  /// Arms the receive timeout's check `after` from now, on this isolate.
  void armReceiveTimeout(Clock::duration after);
  /// The receive timeout's check, inside a turn: ReceiveTimeout to itself
  /// if it has been idle long enough, else a check at the right time.
  void checkReceiveTimeout(std::uint64_t token);

  ActorCell& cell_;
};

}  // namespace coreactor::detail
