// ActorSystem (coreactor/ActorSystem.hpp), each call forwarded to
// SystemCore; the wait guard and the spin of an ask's future; an
// ActorRef's path. The options are ActorOptions.cpp, the context
// ReceiveContext.cpp, the event stream EventStream.cpp.
#include "coreactor/ActorSystem.hpp"

#include <thread>

#include "SystemCore.hpp"
#include "coreactor/detail/CpuRelax.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"

namespace coreactor {

using detail::SystemCore;
using detail::SystemMessage;

// ---- references ----------------------------------------------------------------------

std::string ActorRef::path() const {
  return system_ != nullptr ? system_->spawns().pathOf(*this) : std::string("(none)");
}

// ---- the system ------------------------------------------------------------------------

std::unique_ptr<ActorSystem> ActorSystem::create(std::string name, ActorSystemOptions options) {
  auto core = std::make_unique<SystemCore>(std::move(name), std::move(options));
  std::unique_ptr<ActorSystem> system(new ActorSystem(std::move(core)));
  system->core_->setOwner(system.get());
  system->core_->start();
  return system;
}

ActorSystem::ActorSystem(std::unique_ptr<SystemCore> core) : core_(std::move(core)) {}
ActorSystem::~ActorSystem() {
  if (core_->onOwnIsolate()) {
    // From inside one of its own handlers: no loop can join itself. The
    // loops stop now and the core tears itself down once they have
    // returned (SystemStop::orphan).
    core_.release()->systemStop().orphan();
    return;
  }
  core_->systemStop().finish();
}

const std::string& ActorSystem::name() const noexcept {
  return core_->name();
}

ActorRef ActorSystem::spawnWith(std::string name, ActorFactory factory, ActorOptions options) {
  return core_->spawns().spawnTopLevel(std::move(name), options, std::move(factory));
}

ActorRef ActorSystem::spawnRouterWith(std::string name, RouterOptions options, ActorFactory routee,
                                      std::vector<ActorRef> group) {
  return core_->routers().spawn(nullptr, std::move(name), options, std::move(routee),
                                std::move(group));
}

void ActorSystem::stop(const ActorRef& actor) {
  core_->delivery().sendSystem(actor, SystemMessage{SystemMessage::Kind::Stop, {}, nullptr});
}

void ActorSystem::ask(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
                      AskCompletion completion) {
  core_->asks().ask(target, std::move(message), timeout, std::move(completion));
}

AskFuture<void> ActorSystem::move(const ActorRef& actor, std::size_t isolate) {
  auto promise = std::make_shared<std::promise<void>>();
  AskFuture<void> future(promise->get_future(),
                         detail::AskWaitGuard{this, nullptr, core_->options().manualRun(),
                                              /*anyLoop=*/true});
  core_->moves().move(actor, isolate, [promise](std::error_code error) {
    if (error) {
      promise->set_exception(std::make_exception_ptr(std::system_error(error)));
    } else {
      promise->set_value();
    }
  });
  return future;
}

void ActorSystem::move(const ActorRef& actor, std::size_t isolate, MoveCompletion done) {
  core_->moves().move(actor, isolate, std::move(done));
}

detail::AskWaitGuard ActorSystem::waitGuard(const ActorRef& target) noexcept {
  // From outside, the reply slot lives on the target's isolate
  // (Asks::ask); an ask to no actor of ours fails at once.
  if (!detail::reachable(*core_, target)) return {};
  const std::size_t replyIsolate = core_->isOurs(target) ? target.isolateIndex() : 0;
  return detail::AskWaitGuard{this, &core_->runtime(replyIsolate), core_->options().manualRun()};
}

void detail::AskWaitGuard::beforeWait(bool (*ready)(const void*), const void* future) const {
  auto refuse = [](const char* why) {
    throwError(Error::ErrWouldDeadlock, std::string("waiting for an ask's reply ") + why +
                                            "; from an actor, use ReceiveContext::ask or "
                                            "co_await ctx.ask instead of blocking");
  };
  SystemCore& core = detail::coreOf(*system);
  if (anyLoop && core.onOwnIsolate()) refuse("on one of the system's loops");
  if (replyIsolate != nullptr && detail::IsolateHooks::currentUserData() == replyIsolate) {
    refuse("on the isolate that must run the reply");
  }
  if (!manual || !core.drivenHere()) return;  // another thread runs the reply
  if (Isolate::current() != nullptr) refuse("inside the loops of a manual system");
  core.systemStop().runUntilIdle();  // the driving thread runs what the reply needs
  if (!ready(future)) {
    refuse("of a manual system with nothing left to run (its timeout waits for the clock)");
  }
}

// A blocking ask from a plain thread is two wake-ups if both sides sleep:
// the loop's (which its idle poll window mostly saves, as the next ask
// comes soon after the last reply) and the waiting thread's, 20-25 us each
// on a VM (docs/benchmarks.md, isolates/ask/foreign). The reply usually
// comes within a few microseconds: spinning that long first saves the
// second wake-up, and the reply's side then makes no system call (the
// future's state wakes only a thread that sleeps on it). The yields give
// the CPU to the loop where both share one.
void detail::spinBeforeBlocking(bool (*ready)(const void*), const void* future) noexcept {
  constexpr auto kSpin = std::chrono::microseconds(50);
  constexpr unsigned kLooksBetweenYields = 64;
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (unsigned look = 1;; ++look) {
    if (ready(future)) return;
    if (look % kLooksBetweenYields == 0) {
      if (std::chrono::steady_clock::now() >= until) return;
      std::this_thread::yield();
    } else {
      detail::cpuRelax();
    }
  }
}

EventStream& ActorSystem::eventStream() noexcept {
  return core_->events();
}
std::uint64_t ActorSystem::deadLetterCount() const noexcept {
  return core_->delivery().deadLetterCount();
}
void ActorSystem::shutdown() {
  core_->systemStop().shutdown();
}
void ActorSystem::stop() {
  core_->systemStop().stop();
}
bool ActorSystem::running() const noexcept {
  return core_->running();
}
void ActorSystem::runUntilIdle() {
  core_->systemStop().runUntilIdle();
}
std::size_t ActorSystem::isolateCount() const noexcept {
  return core_->isolateCount();
}
std::vector<IsolatePlacement> ActorSystem::placement() const {
  return core_->spawns().placement();
}
int ActorSystem::rank() const noexcept {
  return core_->remote() != nullptr ? core_->remote()->rank() : 0;
}

int ActorSystem::rankOf(const ActorRef& ref) const noexcept {
  if (core_->isOurs(ref)) return rank();
  return detail::RemoteRoutes::isRemote(core_->remote(), ref) ? core_->remote()->rankOf(ref) : -1;
}

AskFuture<ActorRef> ActorSystem::lookup(int rank, const std::string& name,
                                        std::chrono::nanoseconds timeout) {
  detail::RemoteRoutes* remote = core_->remote();
  if (remote == nullptr) throwError(Error::ErrInvalidOption, "lookup: the system has no cluster");
  const ActorRef service = remote->serviceOf(rank);  // ErrInvalidOption for no such rank
  if (rank == remote->rank()) {
    std::promise<ActorRef> here;
    here.set_value(core_->spawns().topLevelNamed(name));
    return AskFuture<ActorRef>(here.get_future(), detail::AskWaitGuard{});
  }
  return ask<ActorRef>(service, detail::LookupRequest{name}, timeout);
}

ClusterStats ActorSystem::clusterStats() const noexcept {
  return core_->remote() != nullptr ? core_->remote()->stats() : ClusterStats{};
}

std::uint16_t ActorSystem::metricsEndpointPort() const noexcept {
  return core_->metrics().metricsEndpointPort();
}

TransportStats ActorSystem::transportStats() const noexcept {
  return core_->metrics().transportStats();
}
Isolate& ActorSystem::isolate(std::size_t index) {
  return *core_->runtime(index).isolate;
}
Dispatcher& ActorSystem::dispatcher(std::size_t index) {
  return *core_->runtime(index).dispatcher;
}

detail::SystemCore& detail::coreOf(ActorSystem& system) noexcept {
  return *system.core_;
}

}  // namespace coreactor
