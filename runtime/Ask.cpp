// Ask (SPEC A3): the reply slot (AskEndpoint.hpp) and Asks (Asks.hpp), the
// asks from outside the system and from an actor and the failures that
// complete a reply slot early.
#include "SystemCore.hpp"
#include "runtime/cluster/ForeignAsks.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"

namespace coreactor::detail {

namespace {
// The category of an empty std::error_code, looked up once: a default
// error_code calls std::system_category() each time.
const std::error_category& kNoErrorCategory = std::system_category();
}  // namespace

AskEndpoint::AskEndpoint(IsolateRuntime& home, std::uint32_t slot, AskCompletion completion)
    : Endpoint(Kind::Ask),
      Task(&onTimeout, &onDiscard),
      home_(home),
      slot_(slot),
      completion_(std::move(completion)) {}

AskEndpoint::AskEndpoint(IsolateRuntime& home, std::uint32_t slot, const ActorRef& asker,
                         AskContinuation continuation)
    : Endpoint(Kind::Ask),
      Task(&onTimeout, &onDiscard),
      home_(home),
      slot_(slot),
      asker_(asker),
      continuation_(std::move(continuation)) {}

AskEndpoint::~AskEndpoint() {
  if (asker_) {
    std::destroy_at(&continuation_);
  } else {
    std::destroy_at(&completion_);
  }
}

SystemCore& AskEndpoint::core() const noexcept {
  return *home_.core;
}

void AskEndpoint::run(ReceiveContext& ctx) {
  if (errorCategory_ == nullptr) {
    continuation_(ctx, &reply_, std::error_code(0, kNoErrorCategory));
  } else {
    continuation_(ctx, nullptr, std::error_code(errorValue_, *errorCategory_));
  }
}

void AskEndpoint::arm(std::chrono::nanoseconds timeout) {
  // Coarse: an ask's timeout needs no better than one loop pass of
  // precision, and a clock read per ask is a tenth of its cost.
  if (home_.asks->arm(*this, timeout)) return;
  timer_ = home_.isolate->setTimeout(timeout, static_cast<Task&>(*this),
                                     TimerOptions{.referenced = true, .coarse = true});
}

void AskEndpoint::complete(Message* reply, std::error_code error, bool fromRing) noexcept {
  completing_ = true;  // clearTimeout disposes of our timer task: onDiscard must not re-enter
  home_.asks->cancel(*this);
  if (timer_.valid()) home_.isolate->clearTimeout(timer_);
  home_.table.release(slot_, /*askDone=*/true);
  if (asker_) {
    // Into the asker's turn, carried by this very object.
    if (reply != nullptr) reply_ = std::move(*reply);
    if (error) {
      errorValue_ = error.value();
      errorCategory_ = &error.category();
    }
    // The asker lived here when it asked (askFromActor) and this runs on
    // its loop, or after the loops stopped (the isolate's disposal of its
    // timers, the system's teardown): then the reply cannot run any more.
    std::unique_ptr<Continuation> self(this);
    try {
      ActorCell* cell = core().moves().cellHere(home_, asker_);
      const bool running = cell != nullptr && !home_.isolate->stopped();
      if (cell == nullptr && !home_.isolate->stopped()) {
        // The asker moved since it asked (or stopped): the reply goes the
        // way its signals go, and finds it (or no one: a dead letter).
        core().delivery().sendSystem(
            asker_, SystemMessage{SystemMessage::Kind::Continue, {}, nullptr, std::move(self)});
      } else if (running && fromRing) {
        // Taken from a ring: for an asker with nothing else to do, its turn
        // runs here, as a word's does, before the ring's look ends (what it
        // sends goes out now, not after the look's fences and the queue of
        // units); else it is queued (ActorCell::takeCrossed decides).
        cell->takeCrossed(ActorCell::CrossedReply{std::move(self)});
      } else if (running) {
        cell->systemLine().enqueueContinue(std::move(self));
      } else {
        core().asks().dropContinuation(asker_, std::move(self), "the asking actor has stopped");
      }
    } catch (...) {
      core().log().error(
          "an ask's reply was lost, or the turn after its continuation was not "
          "scheduled: {}",
          describe(std::current_exception()));
    }
    return;
  }
  try {
    completion_(reply, error);
  } catch (...) {
    core().log().error("an ask's completion threw: {}", describe(std::current_exception()));
  }
  delete this;
}

void AskEndpoint::dismiss() noexcept {
  completing_ = true;
  home_.asks->cancel(*this);
  if (timer_.valid()) home_.isolate->clearTimeout(timer_);
  home_.table.release(slot_, /*askDone=*/true);
  delete this;
}

void AskEndpoint::onTimeout(Task& task) {
  auto& self = static_cast<AskEndpoint&>(task);
  self.timer_ = TimerId{};
  self.complete(nullptr, make_error_code(Error::ErrAskTimeout));
}

// The isolate stopped with the timeout still armed.
void AskEndpoint::onDiscard(Task& task) noexcept {
  auto& self = static_cast<AskEndpoint&>(task);
  if (self.completing_) return;
  self.timer_ = TimerId{};
  self.complete(nullptr, make_error_code(Error::ErrActorSystemNotStarted));
}

namespace {
void checkTimeout(std::chrono::nanoseconds timeout) {
  if (timeout <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidTimeout,
               "ask with a timeout of " + std::to_string(timeout.count()) + " ns");
  }
}
}  // namespace

void Asks::ask(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
               AskCompletion completion) {
  // A message that cannot cross to another rank throws here, on the calling
  // thread, before a reply slot is taken or anything is queued.
  if (RemoteRoutes::isRemote(core_.remote(), target)) core_.remote_->checkCrossable(message);
  checkTimeout(timeout);
  if (!core_.running()) {
    completion(nullptr, make_error_code(Error::ErrActorSystemNotStarted));
    return;
  }
  if (core_.routers_.isRouter(target)) {
    // Asked of the routee its logic picks (or of its head), from here.
    const ActorRef picked = core_.routers_.resolve(target, message);
    if (picked.isNone()) {
      completion(nullptr, make_error_code(Error::ErrDead));
      return;
    }
    ask(picked, std::move(message), timeout, std::move(completion));
    return;
  }
  if (!reachable(core_, target)) {
    // None, or another system's: no actor of ours answers.
    completion(nullptr, make_error_code(Error::ErrDead));
    return;
  }
  if (RemoteRoutes::isRemote(core_.remote(), target) && core_.currentRuntime() == nullptr &&
      !core_.options_.manualRun()) {
    askRankFromForeignThread(target, std::move(message), timeout, completion);
    return;
  }
  // From outside, the reply slot lives on the target's isolate (from an
  // actor, on the asker's: askFromActor); for an actor of another rank,
  // asked from one of this system's loops, on isolate 0.
  IsolateRuntime& rt = *core_.isolates_[core_.isOurs(target) ? target.isolateIndex() : 0];
  const auto reservation = rt.table.reserve(core_.isLocal(rt));
  auto* endpoint = new AskEndpoint(rt, reservation.slot, std::move(completion));
  startAsk(rt, endpoint, reservation.slot, reservation.generation, target, std::move(message),
           timeout);
}

void Asks::askRankFromForeignThread(const ActorRef& target, Message&& message,
                                    std::chrono::nanoseconds timeout, AskCompletion& completion) {
  // The reply slot lives on no loop (ForeignAsks.hpp): a long turn on an
  // isolate of this rank delays neither the reply nor the timeout. The
  // request leaves from this thread, as its tells to that rank do (SPEC A2).
  ForeignAsks& slots = core_.remote_->foreignAsks();
  const std::uint32_t id = slots.open(completion, timeout);
  if (id == 0) {  // the system has stopped meanwhile
    completion(nullptr, make_error_code(Error::ErrActorSystemNotStarted));
    return;
  }
  const ActorRef replyTo = core_.makeRef(0, ForeignAsks::kForeignAskSlot, id);
  core_.remote_->trackAsk(target, replyTo, timeout);
  try {
    core_.remote_->send(target, std::move(message), replyTo);
  } catch (...) {
    slots.dismiss(id);  // nothing went out: the caller hears it from the throw
    throw;
  }
}

void Asks::askFromActor(ActorCell& asker, const ActorRef& target, Message&& message,
                        std::chrono::nanoseconds timeout, AskContinuation&& continuation) {
  checkTimeout(timeout);
  if (core_.routers_.isRouter(target)) {
    const ActorRef picked = core_.routers_.resolve(target, message);
    askFromActor(asker, picked, std::move(message), timeout, std::move(continuation));
    return;  // none: it fails with ErrDead below
  }
  // The reply slot lives on the asker's isolate: this one.
  IsolateRuntime& rt = asker.home();
  const auto reservation = rt.table.reserve(true);
  auto* endpoint = new AskEndpoint(rt, reservation.slot, asker.self(), std::move(continuation));
  endpoint->incarnation = asker.incarnation();
  if (!reachable(core_, target)) {
    // None, or another system's: no actor of ours answers.
    rt.table.publish(reservation.slot, endpoint);
    endpoint->complete(nullptr, make_error_code(Error::ErrDead));
    return;
  }
  startAsk(rt, endpoint, reservation.slot, reservation.generation, target, std::move(message),
           timeout);
}

void Asks::startAsk(IsolateRuntime& rt, AskEndpoint* endpoint, std::uint32_t slot,
                    std::uint32_t generation, const ActorRef& target, Message&& message,
                    std::chrono::nanoseconds timeout) {
  rt.table.publish(slot, endpoint);
  const ActorRef replyTo = core_.makeRef(rt.index, slot, generation);
  if (core_.isLocal(rt)) {
    endpoint->arm(timeout);
    try {
      sendRequest(target, std::move(message), replyTo, timeout);
    } catch (...) {
      // Nothing went out (a message that cannot cross to another rank):
      // the caller hears it from the throw, and the slot goes quietly.
      endpoint->dismiss();
      throw;
    }
    return;
  }
  if (core_.currentRuntime() == nullptr) {
    // From a foreign thread. Its request is one of its messages (SPEC A2):
    // it goes the way its tells go, behind the ones it sent before and ahead
    // of the ones it sends after.
    if (core_.isOurs(target)) {
      // Through the target isolate's foreign inbox, where the reply slot
      // lives too: the timeout is armed as the request is delivered.
      core_.delivery().putForeign(rt, target, Envelope{std::move(message), replyTo},
                                  /*inTurn=*/false, timeout);
      return;
    }
    // To another rank (a manual system's; a threaded one's reply slot is a
    // ForeignAsks entry): from this thread, as its tells to that rank go.
    // The reply slot's loop arms the timeout (a reply that came first has
    // freed the slot, and the arming finds nothing). ask() has checked that
    // the message crosses.
    postOrComplete(rt, endpoint, [this, &rt, replyTo, timeout] { armAsk(rt, replyTo, timeout); });
    sendRequest(target, std::move(message), replyTo, timeout);
    return;
  }
  // From another of this system's isolates: the reply slot's loop sends.
  postOrComplete(rt, endpoint,
                 [this, endpoint, timeout, target, replyTo,
                  m = std::make_shared<Message>(std::move(message))]() mutable {
                   endpoint->arm(timeout);
                   sendRequest(target, std::move(*m), replyTo, timeout);
                 });
}

template <class F>
void Asks::postOrComplete(IsolateRuntime& rt, AskEndpoint* endpoint, F&& work) {
  try {
    rt.isolate->post(std::forward<F>(work));
  } catch (const std::system_error&) {
    // That isolate stopped: the ask fails now (its timeout cannot run).
    endpoint->complete(nullptr, make_error_code(Error::ErrActorSystemNotStarted));
  }
}

void Asks::armAsk(IsolateRuntime& rt, const ActorRef& replyTo, std::chrono::nanoseconds timeout) {
  Endpoint* endpoint = rt.table.find(replyTo.slot(), replyTo.generation());
  if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Ask) {
    static_cast<AskEndpoint*>(endpoint)->arm(timeout);
  }
}

void Asks::sendRequest(const ActorRef& target, Message&& message, const ActorRef& replyTo,
                       std::chrono::nanoseconds timeout) {
  // An ask to another rank is kept until its timeout: if that rank leaves
  // meanwhile, it fails then.
  if (RemoteRoutes::isRemote(core_.remote(), target))
    core_.remote_->trackAsk(target, replyTo, timeout);
  core_.send(target, std::move(message), replyTo);
}

void Asks::failAskOf(const ActorRef& sender, std::error_code error) {
  // An ask's reply slot lives on the target's isolate: an ask to a dead actor
  // fails at once instead of waiting for its timeout.
  if (RemoteRoutes::isRemote(core_.remote(), sender)) {
    // Asked from another rank: the failure crosses back.
    core_.remote_->failAsk(sender, error);
    return;
  }
  if (core_.remote_ != nullptr && core_.isOurs(sender) && ForeignAsks::names(sender)) {
    // Asked by a foreign thread, of another rank: no loop holds it.
    core_.remote_->foreignAsks().complete(sender.generation(), nullptr, error);
    return;
  }
  IsolateRuntime* home = core_.runtimeOfOurs(sender);
  if (home == nullptr) return;
  IsolateRuntime& rt = *home;
  if (!core_.isLocal(rt)) {
    // The asker's reply slot lives elsewhere: look there.
    try {
      rt.isolate->post([this, sender, error] { failAskOf(sender, error); });
    } catch (const std::system_error&) {
      // That isolate stopped: its reply slots were failed with it.
    }
    return;
  }
  failAskHere(rt, sender, error);
}

bool Asks::failLocalAskOf(const ActorRef& sender, std::error_code error) {
  IsolateRuntime* home = core_.runtimeOfOurs(sender);
  return home != nullptr && core_.isLocal(*home) && failAskHere(*home, sender, error);
}

bool Asks::failAskHere(IsolateRuntime& rt, const ActorRef& sender, std::error_code error) {
  Endpoint* endpoint = rt.table.find(sender.slot(), sender.generation());
  if (endpoint == nullptr || endpoint->kind != Endpoint::Kind::Ask) return false;
  static_cast<AskEndpoint*>(endpoint)->complete(nullptr, error);
  return true;
}

void Asks::dropContinuation(const ActorRef& actor, std::unique_ptr<Continuation> continuation,
                            const char* reason) {
  // A coroutine's resumption carries nothing; an ask's reply becomes a dead letter.
  if (continuation == nullptr) return;
  Message* carried = continuation->carried();
  if (carried != nullptr && !carried->empty()) {
    core_.delivery().deadLetter(actor, Envelope{std::move(*carried), ActorRef()}, reason);
  }
}

}  // namespace coreactor::detail
