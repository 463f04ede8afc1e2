// The behaviour tools an actor reaches through its ReceiveContext: become
// and unbecome (a stack of handlers in place of receive()), the stash (a
// bounded line of messages put aside, put back ahead of the mailbox), and
// the receive timeout (a message after an idle stretch). Their state lives
// in the cell's rare part, so an actor that uses none of them pays one
// flag test per message (tooled_) and none of their memory.
#include "SystemCore.hpp"

namespace coreactor::detail {

void ActorCell::retool(const Tools& t) noexcept {
  // What invoke() tests per message, kept from the tools' own state.
  tooled_ = !t.behaviours.empty() || t.receiveTimeout > Clock::duration::zero();
}

ActorCell::Tools& ActorCell::tools() {
  Rare& r = rare();
  if (r.tools == nullptr) r.tools = std::make_unique<Tools>();
  return *r.tools;
}

void ActorCell::invokeTooled(ReceiveContext& ctx) {
  Tools& t = *rare_->tools;
  if (t.receiveTimeout > Clock::duration::zero()) t.lastMessage = home_->isolate->coarseNow();
  try {
    if (!t.behaviours.empty()) {
      // Held by pointer: a become() inside it retires it, and it is freed
      // once it has returned.
      ReceiveContext::Behavior& behavior = *t.behaviours.back();
      behavior(ctx);
    } else {
      actor_->receive(ctx);
    }
  } catch (...) {
    fail(std::current_exception());  // SPEC D10, as invoke()
  }
  if (rare_ != nullptr && rare_->tools != nullptr) rare_->tools->retired.clear();
}

// ---- become ---------------------------------------------------------------------

void ActorCell::become(ReceiveContext::Behavior&& behavior, bool discardOld) {
  if (!behavior) throwError(Error::ErrInvalidOption, "become() with an empty function");
  Tools& t = tools();
  auto held = std::make_unique<ReceiveContext::Behavior>(std::move(behavior));
  if (discardOld && !t.behaviours.empty()) {
    t.retired.push_back(std::move(t.behaviours.back()));
    t.behaviours.back() = std::move(held);
  } else {
    t.behaviours.push_back(std::move(held));
  }
  retool(t);
}

void ActorCell::unbecome() {
  if (rare_ == nullptr || rare_->tools == nullptr || rare_->tools->behaviours.empty()) return;
  Tools& t = *rare_->tools;
  t.retired.push_back(std::move(t.behaviours.back()));
  t.behaviours.pop_back();
  retool(t);
}

// ---- the stash ------------------------------------------------------------------

void ActorCell::stash(ReceiveContext& ctx) {
  if (ctx.message_ == nullptr || ctx.message_->empty()) {
    throwError(Error::ErrInvalidOption,
               std::string(path()) +
                   ": stash() needs a current message (none here, or it was stashed already)");
  }
  Tools& t = tools();
  if (t.stash.size() >= t.stashCapacity) {
    throwError(Error::ErrStashFull, std::string(path()) + ": the stash holds its bound of " +
                                        std::to_string(t.stashCapacity) + " messages");
  }
  t.stash.push_back(Envelope{std::move(*ctx.message_), ctx.sender_});
  ctx.message_->reset();
}

std::size_t ActorCell::unstash(bool all) {
  if (rare_ == nullptr || rare_->tools == nullptr || rare_->tools->stash.empty()) return 0;
  Tools& t = *rare_->tools;
  // Ahead of everything else, what an earlier unstash put back included
  // (as a mailbox's front would take them).
  const std::size_t n = all ? t.stash.size() : 1;
  for (std::size_t i = n; i > 0; --i) {
    t.unstashed.push_front(std::move(t.stash[i - 1]));
  }
  t.stash.erase(t.stash.begin(), t.stash.begin() + static_cast<std::ptrdiff_t>(n));
  pending_ |= kUnstashPending;
  return n;
}

std::size_t ActorCell::stashSize() const noexcept {
  return rare_ != nullptr && rare_->tools != nullptr ? rare_->tools->stash.size() : 0;
}

void ActorCell::dropStash(const char* reason) {
  if (rare_ == nullptr || rare_->tools == nullptr) return;
  Tools& t = *rare_->tools;
  const ActorRef me = self();
  for (auto* line : {&t.unstashed, &t.stash}) {
    while (!line->empty()) {
      Envelope left = std::move(line->front());
      line->pop_front();
      core().asks().failAskOf(left.sender, make_error_code(Error::ErrDead));
      core().delivery().deadLetter(me, std::move(left), reason);
    }
  }
  pending_ &= ~kUnstashPending;
}

void ActorCell::resetTools() {
  if (rare_ == nullptr || rare_->tools == nullptr) return;
  Tools& t = *rare_->tools;
  // The initial behaviour returns; the receive timeout ends (the new
  // instance sets its own in preStart or postRestart).
  for (auto& b : t.behaviours) t.retired.push_back(std::move(b));
  t.behaviours.clear();
  t.receiveTimeout = Clock::duration::zero();
  ++t.timeoutToken;
  retool(t);
  if (t.dropStashOnRestart) {
    dropStash("the actor restarted and its stash is dropped (StashOnRestart::Drop)");
  } else {
    unstash(/*all=*/true);
  }
}

// ---- the receive timeout ------------------------------------------------------------

void ActorCell::setReceiveTimeout(Clock::duration idle) {
  if (idle <= Clock::duration::zero()) {
    throwError(
        Error::ErrInvalidTimeout,
        "setReceiveTimeout(" +
            std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(idle).count()) +
            " ns): it must be positive");
  }
  Tools& t = tools();
  t.receiveTimeout = idle;
  t.lastMessage = home_->isolate->coarseNow();
  ++t.timeoutToken;
  retool(t);
  armReceiveTimeout(idle);
}

void ActorCell::cancelReceiveTimeout() {
  if (rare_ == nullptr || rare_->tools == nullptr) return;
  Tools& t = *rare_->tools;
  t.receiveTimeout = Clock::duration::zero();
  ++t.timeoutToken;  // the armed check finds a newer token and does nothing
  retool(t);
}

void ActorCell::armReceiveTimeout(Clock::duration after) {
  // The check is a continuation sent to the actor: it runs in a turn of the
  // actor wherever the actor lives by then (a move takes it elsewhere).
  struct Check final : Continuation {
    explicit Check(std::uint64_t t) : token(t) {}
    void run(ReceiveContext& ctx) override { ctx.cell_.checkReceiveTimeout(token); }
    std::uint64_t token;
  };
  SystemCore& c = core();
  const ActorRef me = self();
  const std::uint64_t token = rare_->tools->timeoutToken;
  const std::uint32_t incarnation = incarnation_;
  home_->isolate->setTimeout(after, [&c, me, token, incarnation] {
    auto check = std::make_unique<Check>(token);
    check->incarnation = incarnation;
    c.delivery().sendSystem(
        me, SystemMessage{SystemMessage::Kind::Continue, {}, nullptr, std::move(check)});
  });
}

void ActorCell::checkReceiveTimeout(std::uint64_t token) {
  if (rare_ == nullptr || rare_->tools == nullptr) return;
  Tools& t = *rare_->tools;
  if (token != t.timeoutToken || t.receiveTimeout <= Clock::duration::zero()) return;
  const Clock::time_point now = home_->isolate->coarseNow();
  const Clock::duration idle = now - t.lastMessage;
  if (idle >= t.receiveTimeout) {
    // Idle long enough: the message, and the next check a whole timeout on.
    t.lastMessage = now;
    self().tell(ReceiveTimeout{}, self());
    armReceiveTimeout(t.receiveTimeout);
  } else {
    armReceiveTimeout(t.receiveTimeout - idle);
  }
}

}  // namespace coreactor::detail
