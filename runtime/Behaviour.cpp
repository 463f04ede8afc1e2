// The behaviour tools an actor reaches through its ReceiveContext: become
// and unbecome (a stack of handlers in place of receive()), the stash (a
// bounded line of messages put aside, put back ahead of the mailbox), and
// the receive timeout (a message after an idle stretch). Their state lives
// in the cell's rare part, so an actor that uses none of them pays one
// flag test per message (CellFlags::kTooled) and none of their memory. Their class,
// BehaviourTools, is in BehaviourTools.hpp.
#include "BehaviourTools.hpp"

#include "SystemCore.hpp"

namespace coreactor::detail {

BehaviourTools::Data* BehaviourTools::data() const noexcept {
  return cell_.rare_ != nullptr ? cell_.rare_->tools.get() : nullptr;
}

BehaviourTools::Data& BehaviourTools::made() {
  ActorCell::Rare& r = cell_.rare();
  if (r.tools == nullptr) {
    r.tools = std::make_unique<Data>();
    cell_.flags_.set(CellFlags::kTools, true);
  }
  return *r.tools;
}

void BehaviourTools::configure(const ActorOptions& options) {
  if (options.stashCapacity() == ActorOptions::kDefaultStashCapacity &&
      options.stashOnRestart() == StashOnRestart::Keep) {
    return;
  }
  Data& t = made();
  t.stashCapacity = options.stashCapacity();
  t.dropStashOnRestart = options.stashOnRestart() == StashOnRestart::Drop;
}

void BehaviourTools::retool(const Data& t) noexcept {
  // What invoke() tests per message, kept from the tools' own state.
  cell_.flags_.set(CellFlags::kTooled,
                   !t.behaviours.empty() || t.receiveTimeout > Clock::duration::zero());
}

void BehaviourTools::invoke(ActorCell& cell, ReceiveContext& ctx) {
  Data& t = *cell.rare_->tools;
  if (t.receiveTimeout > Clock::duration::zero()) t.lastMessage = cell.home_->isolate->coarseNow();
  try {
    if (!t.behaviours.empty()) {
      // Held by pointer: a become() inside it retires it, and it is freed
      // once it has returned.
      ReceiveContext::Behavior& behavior = *t.behaviours.back();
      behavior(ctx);
    } else {
      cell.actor_->receive(ctx);
    }
  } catch (...) {
    CellLifecycle::fail(cell, std::current_exception());  // SPEC D10, as CellTurn::invoke()
  }
  if (cell.rare_ != nullptr && cell.rare_->tools != nullptr) cell.rare_->tools->retired.clear();
}

// ---- become ---------------------------------------------------------------------

void BehaviourTools::become(ReceiveContext::Behavior&& behavior, bool discardOld) {
  if (!behavior) throwError(Error::ErrInvalidOption, "become() with an empty function");
  Data& t = made();
  auto held = std::make_unique<ReceiveContext::Behavior>(std::move(behavior));
  if (discardOld && !t.behaviours.empty()) {
    t.retired.push_back(std::move(t.behaviours.back()));
    t.behaviours.back() = std::move(held);
  } else {
    t.behaviours.push_back(std::move(held));
  }
  retool(t);
}

void BehaviourTools::unbecome() {
  Data* t = data();
  if (t == nullptr || t->behaviours.empty()) return;
  t->retired.push_back(std::move(t->behaviours.back()));
  t->behaviours.pop_back();
  retool(*t);
}

// ---- the stash ------------------------------------------------------------------

void BehaviourTools::stash(Message* current, const ActorRef& sender) {
  if (current == nullptr || current->empty()) {
    throwError(Error::ErrInvalidOption,
               std::string(cell_.path()) +
                   ": stash() needs a current message (none here, or it was stashed already)");
  }
  Data& t = made();
  if (t.stash.size() >= t.stashCapacity) {
    throwError(Error::ErrStashFull, std::string(cell_.path()) + ": the stash holds its bound of " +
                                        std::to_string(t.stashCapacity) + " messages");
  }
  t.stash.push_back(Envelope{std::move(*current), sender});
  current->reset();
}

std::size_t BehaviourTools::unstash(bool all) {
  Data* t = data();
  if (t == nullptr || t->stash.empty()) return 0;
  // Ahead of everything else, what an earlier unstash put back included
  // (as a mailbox's front would take them).
  const std::size_t n = all ? t->stash.size() : 1;
  for (std::size_t i = n; i > 0; --i) {
    t->unstashed.push_front(std::move(t->stash[i - 1]));
  }
  t->stash.erase(t->stash.begin(), t->stash.begin() + static_cast<std::ptrdiff_t>(n));
  cell_.pending_ |= ActorCell::kUnstashPending;
  return n;
}

std::size_t BehaviourTools::stashSize() const noexcept {
  const Data* t = data();
  return t != nullptr ? t->stash.size() : 0;
}

void BehaviourTools::dropStash(const char* reason) {
  Data* t = data();
  if (t == nullptr) return;
  const ActorRef me = cell_.self();
  for (auto* line : {&t->unstashed, &t->stash}) {
    while (!line->empty()) {
      Envelope left = std::move(line->front());
      line->pop_front();
      cell_.core().asks().failAskOf(left.sender, make_error_code(Error::ErrDead));
      cell_.core().delivery().deadLetter(me, std::move(left), reason);
    }
  }
  cell_.pending_ &= ~ActorCell::kUnstashPending;
}

void BehaviourTools::reset() {
  Data* t = data();
  if (t == nullptr) return;
  // The initial behaviour returns; the receive timeout ends (the new
  // instance sets its own in preStart or postRestart).
  for (auto& b : t->behaviours) t->retired.push_back(std::move(b));
  t->behaviours.clear();
  t->receiveTimeout = Clock::duration::zero();
  ++t->timeoutToken;
  retool(*t);
  if (t->dropStashOnRestart) {
    dropStash("the actor restarted and its stash is dropped (StashOnRestart::Drop)");
  } else {
    unstash(/*all=*/true);
  }
}

// ---- the receive timeout ------------------------------------------------------------

void BehaviourTools::setReceiveTimeout(Clock::duration idle) {
  if (idle <= Clock::duration::zero()) {
    throwError(
        Error::ErrInvalidTimeout,
        "setReceiveTimeout(" +
            std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(idle).count()) +
            " ns): it must be positive");
  }
  Data& t = made();
  t.receiveTimeout = idle;
  t.lastMessage = cell_.home().isolate->coarseNow();
  ++t.timeoutToken;
  retool(t);
  armReceiveTimeout(idle);
}

void BehaviourTools::cancelReceiveTimeout() {
  Data* t = data();
  if (t == nullptr) return;
  t->receiveTimeout = Clock::duration::zero();
  ++t->timeoutToken;  // the armed check finds a newer token and does nothing
  retool(*t);
}

void BehaviourTools::armReceiveTimeout(Clock::duration after) {
  // The check is a continuation sent to the actor: it runs in a turn of the
  // actor wherever the actor lives by then (a move takes it elsewhere).
  struct Check final : Continuation {
    explicit Check(std::uint64_t t) : token(t) {}
    void run(ReceiveContext& ctx) override {
      ActorCell::of(ctx).tools().checkReceiveTimeout(token);
    }
    std::uint64_t token;
  };
  SystemCore& c = cell_.core();
  const ActorRef me = cell_.self();
  const std::uint64_t token = data()->timeoutToken;
  const std::uint32_t incarnation = cell_.incarnation();
  cell_.home().isolate->setTimeout(after, [&c, me, token, incarnation] {
    auto check = std::make_unique<Check>(token);
    check->incarnation = incarnation;
    c.delivery().sendSystem(
        me, SystemMessage{SystemMessage::Kind::Continue, {}, nullptr, std::move(check)});
  });
}

void BehaviourTools::checkReceiveTimeout(std::uint64_t token) {
  Data* t = data();
  if (t == nullptr) return;
  if (token != t->timeoutToken || t->receiveTimeout <= Clock::duration::zero()) return;
  const Clock::time_point now = cell_.home().isolate->coarseNow();
  const Clock::duration idle = now - t->lastMessage;
  if (idle >= t->receiveTimeout) {
    // Idle long enough: the message, and the next check a whole timeout on.
    t->lastMessage = now;
    cell_.self().tell(ReceiveTimeout{}, cell_.self());
    armReceiveTimeout(t->receiveTimeout);
  } else {
    armReceiveTimeout(t->receiveTimeout - idle);
  }
}

}  // namespace coreactor::detail
