// ReceiveContext (coreactor/Actor.hpp): what an actor works through in its
// handler, each call forwarded to its cell or the system; the awaiters of
// coroutine handlers (coreactor/Async.hpp).
#include "Coroutines.hpp"
#include "Logging.hpp"
#include "SystemCore.hpp"
#include "coreactor/Actor.hpp"
#include "coreactor/Async.hpp"

namespace coreactor {

using detail::ActorCell;
using detail::SystemCore;
using detail::SystemMessage;

ActorRef ReceiveContext::parent() const noexcept {
  return cell_.parent();
}
std::string ReceiveContext::path() const {
  return std::string(cell_.path());
}
Isolate& ReceiveContext::isolate() const noexcept {
  cell_.moves().bindToIsolate();  // what it keeps of this loop cannot move with it
  return *cell_.home().isolate;
}
std::size_t ReceiveContext::isolateIndex() const noexcept {
  return cell_.home().index;
}
void ReceiveContext::move(const ActorRef& actor, std::size_t isolate) {
  const ActorRef asker = self_;
  cell_.core().moves().move(actor, isolate, [asker, actor, isolate](std::error_code error) {
    asker.tell(Moved{actor, isolate, error}, actor);
  });
}
ActorSystem& ReceiveContext::system() const noexcept {
  return *cell_.core().owner();
}

spdlog::logger& ReceiveContext::log() {
  detail::LogContext& c = detail::logContext();
  c.path = cell_.path();
  c.isolate = &cell_.home().isolate->name();
  c.messageType = message_ != nullptr ? message_->typeName() : std::string_view("(none)");
  return cell_.core().log();
}

ActorRef ReceiveContext::spawnWith(std::string name, ActorFactory factory, ActorOptions options) {
  return cell_.family().spawn(std::move(name), std::move(options), std::move(factory));
}

ActorRef ReceiveContext::spawnRouterWith(std::string name, RouterOptions options,
                                         ActorFactory routee, std::vector<ActorRef> group) {
  return cell_.core().routers().spawn(&cell_, std::move(name), options, std::move(routee),
                                      std::move(group));
}

void ReceiveContext::askFrom(const ActorRef& target, Message message,
                             std::chrono::nanoseconds timeout,
                             detail::AskContinuation continuation) {
  cell_.core().asks().askFromActor(cell_, target, std::move(message), timeout,
                                   std::move(continuation));
}

detail::DelayAwaiter ReceiveContext::delay(std::chrono::nanoseconds d) {
  return detail::DelayAwaiter(*this, d);
}

void ReceiveContext::awaitAsk(const ActorRef& target, Message message,
                              std::chrono::nanoseconds timeout, std::coroutine_handle<> h,
                              std::function<void(Message*, std::error_code)> fill) {
  const std::uint64_t token = cell_.coroutines().running();
  askFrom(target, std::move(message), timeout,
          [h, token, fill = std::move(fill)](ReceiveContext& ctx, Message* reply,
                                             std::error_code error) {
            // The frame (and the awaiter in it) may be gone: a stop or a restart.
            if (!ctx.cell_.coroutines().live(h, token)) return;
            fill(reply, error);
            ctx.cell_.coroutines().resume(h, token);
          });
}

void ReceiveContext::awaitDelay(std::chrono::nanoseconds d, std::coroutine_handle<> h) {
  const std::uint64_t token = cell_.coroutines().running();
  SystemCore& core = cell_.core();
  const ActorRef me = self();
  cell_.home().isolate->setTimeout(d, [&core, me, h, token] { resumeInTurn(core, me, h, token); });
}

void ReceiveContext::resumeInTurn(SystemCore& core, const ActorRef& actor,
                                  std::coroutine_handle<> h, std::uint64_t token) {
  struct Resume final : detail::Continuation {
    Resume(std::coroutine_handle<> handle, std::uint64_t t) : h(handle), token(t) {}
    void run(ReceiveContext& ctx) override { ctx.cell_.coroutines().resume(h, token); }
    std::coroutine_handle<> h;
    std::uint64_t token;
  };
  core.delivery().sendSystem(
      actor, SystemMessage{
                 SystemMessage::Kind::Continue, {}, nullptr, std::make_unique<Resume>(h, token)});
}

void ReceiveContext::become(Behavior behavior, bool discardOld) {
  cell_.tools().become(std::move(behavior), discardOld);
}

void ReceiveContext::unbecome() {
  cell_.tools().unbecome();
}

void ReceiveContext::stash() {
  cell_.tools().stash(message_, sender_);
}

std::size_t ReceiveContext::unstashAll() {
  return cell_.tools().unstash(/*all=*/true);
}

bool ReceiveContext::unstash() {
  return cell_.tools().unstash(/*all=*/false) != 0;
}

std::size_t ReceiveContext::stashSize() const noexcept {
  return cell_.tools().stashSize();
}

void ReceiveContext::setReceiveTimeout(std::chrono::nanoseconds idle) {
  cell_.tools().setReceiveTimeout(std::chrono::duration_cast<Clock::duration>(idle));
}

void ReceiveContext::cancelReceiveTimeout() {
  cell_.tools().cancelReceiveTimeout();
}

std::vector<ActorRef> ReceiveContext::children() const {
  return cell_.family().children();
}
ActorRef ReceiveContext::child(std::string_view name) const {
  return cell_.family().child(name);
}
void ReceiveContext::stop() {
  cell_.lifecycle().requestStop();
}

void ReceiveContext::stop(const ActorRef& actor) {
  if (actor == self()) {
    stop();
    return;
  }
  cell_.family().stop(actor);
}

void ReceiveContext::watch(const ActorRef& actor) {
  cell_.core().delivery().sendSystem(actor,
                                     SystemMessage{SystemMessage::Kind::Watch, self(), nullptr});
}

void ReceiveContext::unwatch(const ActorRef& actor) {
  cell_.core().delivery().sendSystem(actor,
                                     SystemMessage{SystemMessage::Kind::Unwatch, self(), nullptr});
}

}  // namespace coreactor
