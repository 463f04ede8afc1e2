// The backoff supervisor (coreactor/Backoff.hpp): its options, checked as
// they are built, and the actor, written on the public API only (spawn,
// watch, scheduleOnce, tell), as a user could write it.
#include "coreactor/Backoff.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <system_error>
#include <utility>

#include "coreactor/Error.hpp"
#include "coreactor/ReceiveContext.hpp"

namespace coreactor {

namespace {

std::string nanos(std::chrono::nanoseconds d) {
  return std::to_string(d.count()) + "ns";
}

// A jitter in [0, 1): one engine per thread, so per isolate, drawn from only
// when a child has ended.
double drawJitter() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

// Tells `to`; a refusal by a bounded mailbox with the Fail policy is already
// a counted dead letter, so it is not a failure of the supervisor (which
// would take the child down with it).
void tellKeepingOn(const ActorRef& to, Message&& message, const ActorRef& sender) {
  try {
    to.deliver(std::move(message), sender);
  } catch (const std::system_error& e) {
    if (e.code() != Error::ErrMailboxFull) throw;
  }
}

}  // namespace

// ---- the options -------------------------------------------------------------------

BackoffOptions BackoffOptions::create(std::chrono::nanoseconds minBackoff,
                                      std::chrono::nanoseconds maxBackoff, double randomFactor) {
  if (minBackoff <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidBackoff,
               "BackoffOptions::create: minBackoff must be positive, got " + nanos(minBackoff));
  }
  if (maxBackoff <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidBackoff,
               "BackoffOptions::create: maxBackoff must be positive, got " + nanos(maxBackoff));
  }
  if (minBackoff > maxBackoff) {
    throwError(Error::ErrInvalidBackoff, "BackoffOptions::create: minBackoff " + nanos(minBackoff) +
                                             " is larger than maxBackoff " + nanos(maxBackoff));
  }
  if (!(randomFactor >= 0.0 && randomFactor <= 1.0)) {  // NaN fails both
    throwError(Error::ErrInvalidBackoff,
               "BackoffOptions::create: randomFactor must be in [0, 1], got " +
                   std::to_string(randomFactor));
  }
  return BackoffOptions(minBackoff, maxBackoff, randomFactor);
}

BackoffOptions BackoffOptions::withResetAfter(std::chrono::nanoseconds resetAfter) const {
  if (resetAfter <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidBackoff,
               "withResetAfter: the period must be positive, got " + nanos(resetAfter));
  }
  BackoffOptions copy = *this;
  copy.resetAfter_ = resetAfter;
  return copy;
}

BackoffOptions BackoffOptions::withMaxRestarts(int maxRestarts) const {
  if (maxRestarts < 0) {
    throwError(Error::ErrInvalidBackoff,
               "withMaxRestarts: the count must be 0 (no limit) or more, got " +
                   std::to_string(maxRestarts));
  }
  BackoffOptions copy = *this;
  copy.maxRestarts_ = maxRestarts;
  return copy;
}

BackoffOptions BackoffOptions::withBufferSize(std::size_t messages) const {
  BackoffOptions copy = *this;
  copy.bufferSize_ = messages;
  return copy;
}

BackoffOptions BackoffOptions::withChildOptions(ActorOptions options) const {
  BackoffOptions copy = *this;
  copy.childOptions_ = std::move(options);
  return copy;
}

BackoffOptions BackoffOptions::onFailure() const {
  BackoffOptions copy = *this;
  copy.restartsOnStop_ = false;
  return copy;
}

BackoffOptions BackoffOptions::onStop() const {
  BackoffOptions copy = *this;
  copy.restartsOnStop_ = true;
  return copy;
}

std::chrono::nanoseconds BackoffOptions::delay(std::uint32_t n, double jitter) const noexcept {
  using Rep = std::chrono::nanoseconds::rep;
  const Rep least = minBackoff_.count();
  const Rep most = maxBackoff_.count();
  // least * 2^n while that stays within the most; compared before the shift,
  // so that no n overflows.
  const Rep base = n < 63 && least <= (most >> n) ? least << n : most;
  if (randomFactor_ == 0.0 || !(jitter > 0.0)) return std::chrono::nanoseconds(base);
  const double lengthened =
      static_cast<double>(base) * (1.0 + std::fmin(jitter, 1.0) * randomFactor_);
  if (lengthened >= static_cast<double>(std::numeric_limits<Rep>::max())) {
    return std::chrono::nanoseconds::max();
  }
  return std::chrono::nanoseconds(static_cast<Rep>(lengthened));
}

// ---- the supervisor ----------------------------------------------------------------

BackoffSupervisor::BackoffSupervisor(ActorFactory child, std::string childName,
                                     BackoffOptions options)
    : factory_(std::move(child)), childName_(std::move(childName)), options_(std::move(options)) {
  if (!factory_) throwError(Error::ErrInvalidOption, "BackoffSupervisor: an empty child factory");
}

void BackoffSupervisor::preStart(ReceiveContext& ctx) {
  startChild(ctx, false);
}

void BackoffSupervisor::receive(ReceiveContext& ctx) {
  if (const Terminated* t = ctx.get<Terminated>()) {
    // It watches its child only; a Terminated of an earlier child (from
    // before a restart of the supervisor itself) is stale.
    const bool ended = child_ == lastChild_ || childFailed_;  // not yet handled
    if (t->actor == lastChild_ && ended) childEnded(ctx);
  } else if (const StartChild* start = ctx.get<StartChild>()) {
    if (start->incarnation == incarnation_ && child_.isNone()) startChild(ctx, true);
  } else if (const ResetBackoff* reset = ctx.get<ResetBackoff>()) {
    if (reset->incarnation == incarnation_ && !child_.isNone()) restarts_ = 0;
  } else if (ctx.is<GetCurrentChild>()) {
    ctx.reply(CurrentChild{child_});
  } else if (ctx.is<GetRestartCount>()) {
    ctx.reply(RestartCount{restarts_});
  } else {
    forward(ctx);
  }
}

void BackoffSupervisor::startChild(ReceiveContext& ctx, bool restart) {
  ActorRef child;
  try {
    child = ctx.spawn(childName_, factory_, options_.childOptions());
  } catch (const std::system_error& e) {
    if (e.code() != Error::ErrDuplicateName) throw;
    // A child that stopped itself frees its name when its end reaches this
    // actor as a system message, which may still be on its way from
    // another isolate: try again a least delay later.
    startTimer_ =
        ctx.scheduleOnce(StartChild{incarnation_}, ctx.self(), options_.minBackoff()).handle();
    return;
  }
  if (restart) ++restarts_;
  ++incarnation_;
  child_ = child;
  lastChild_ = child;
  childFailed_ = false;
  startTimer_ = ScheduleHandle();
  ctx.watch(child_);
  // What waited reaches the new child first, in the order it came.
  while (!waiting_.empty()) {
    Waiting next = std::move(waiting_.front());
    waiting_.pop_front();
    tellKeepingOn(child_, std::move(next.message), next.sender);
  }
  if (restarts_ > 0) {
    resetTimer_ =
        ctx.scheduleOnce(ResetBackoff{incarnation_}, ctx.self(), options_.resetAfter()).handle();
  }
}

void BackoffSupervisor::childEnded(ReceiveContext& ctx) {
  const bool failed = std::exchange(childFailed_, false);
  child_ = ActorRef();
  if (resetTimer_) {
    ctx.cancelSchedule(resetTimer_);
    resetTimer_ = ScheduleHandle();
  }
  if (!failed && !options_.restartsOnStop()) {
    ctx.log().info("the child '{}' stopped itself; restarts are on failure only: stopping too",
                   childName_);
    ctx.stop();
    return;
  }
  const int most = options_.maxRestarts();
  if (most > 0 && restarts_ >= static_cast<std::uint32_t>(most)) {
    ctx.log().warn("the child '{}' {} after {} restarts, the most allowed: stopping", childName_,
                   failed ? "failed" : "stopped", restarts_);
    ctx.stop();
    return;
  }
  const double jitter = options_.randomFactor() > 0.0 ? drawJitter() : 0.0;
  const std::chrono::nanoseconds delay = options_.delay(restarts_, jitter);
  ctx.log().info("the child '{}' {}; starting it again in {:.3f} ms", childName_,
                 failed ? "failed" : "stopped",
                 std::chrono::duration<double, std::milli>(delay).count());
  startTimer_ = ctx.scheduleOnce(StartChild{incarnation_}, ctx.self(), delay).handle();
}

void BackoffSupervisor::forward(ReceiveContext& ctx) {
  if (!child_.isNone()) {
    tellKeepingOn(child_, std::move(ctx.message()), ctx.sender());
  } else if (waiting_.size() < options_.bufferSize()) {
    waiting_.push_back(Waiting{std::move(ctx.message()), ctx.sender()});
  } else {
    deadLetter(std::move(ctx.message()), ctx.sender());
  }
}

void BackoffSupervisor::deadLetter(Message&& message, const ActorRef& sender) const {
  // The runtime has no public call that makes a dead letter; a tell to a
  // stopped actor is one, counted and published as any other. The child
  // ended before anything could wait for it, so lastChild_ is set.
  tellKeepingOn(lastChild_, std::move(message), sender);
}

void BackoffSupervisor::flushAsDeadLetters() {
  while (!waiting_.empty()) {
    Waiting next = std::move(waiting_.front());
    waiting_.pop_front();
    deadLetter(std::move(next.message), next.sender);
  }
}

void BackoffSupervisor::preRestart(ReceiveContext& ctx, const std::exception_ptr& cause) {
  if (startTimer_) ctx.cancelSchedule(startTimer_);
  if (resetTimer_) ctx.cancelSchedule(resetTimer_);
  if (!lastChild_.isNone()) ctx.unwatch(lastChild_);
  flushAsDeadLetters();
  Actor::preRestart(ctx, cause);
}

void BackoffSupervisor::postStop(ReceiveContext& ctx) {
  static_cast<void>(ctx);
  flushAsDeadLetters();
}

SupervisorStrategy BackoffSupervisor::supervisorStrategy() {
  // Asked on the supervisor's isolate, in its turn, for its one child: the
  // decider marks the child down at once, so that what arrives before its
  // Terminated waits for the next child instead of reaching a stopping one.
  return SupervisorStrategy::oneForOne([this](const std::exception_ptr&) {
    childFailed_ = true;
    child_ = ActorRef();
    return Directive::Stop;
  });
}

}  // namespace coreactor
