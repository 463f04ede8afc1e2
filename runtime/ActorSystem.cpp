// The public faces of the runtime: ActorSystem, ActorRef, ReceiveContext,
// the options and the event stream. Each forwards to SystemCore/ActorCell.
#include "coreactor/ActorSystem.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "Logging.hpp"
#include "RemoteRoutes.hpp"
#include "SystemCore.hpp"
#include "coreactor/Async.hpp"
#include "coreactor/detail/CpuRelax.hpp"

namespace coreactor {

using detail::ActorCell;
using detail::Envelope;
using detail::SystemCore;
using detail::SystemMessage;

// ---- options -------------------------------------------------------------------------

MailboxOptions MailboxOptions::bounded(std::size_t capacity, OverflowPolicy policy) {
  if (capacity == 0) throwError(Error::ErrInvalidCapacity, "MailboxOptions::bounded(0)");
  MailboxOptions m;
  m.kind_ = Kind::Bounded;
  m.capacity_ = capacity;
  m.overflow_ = policy;
  return m;
}

MailboxOptions MailboxOptions::priority(PriorityOf priorityOf) {
  if (!priorityOf)
    throwError(Error::ErrInvalidOption, "MailboxOptions::priority without a function");
  MailboxOptions m;
  m.kind_ = Kind::Priority;
  m.priorityOf_ = std::move(priorityOf);
  return m;
}

ActorOptions ActorOptions::withDispatcher(std::shared_ptr<Dispatcher> dispatcher) const {
  if (dispatcher == nullptr) throwError(Error::ErrInvalidOption, "withDispatcher(nullptr)");
  ActorOptions o = *this;
  o.dispatcher_ = std::move(dispatcher);
  return o;
}

ActorOptions ActorOptions::withThroughput(std::size_t messagesPerTurn) const {
  if (messagesPerTurn == 0) throwError(Error::ErrInvalidThroughput, "withThroughput(0)");
  ActorOptions o = *this;
  o.throughput_ = messagesPerTurn;
  return o;
}

ActorOptions ActorOptions::withMailbox(MailboxOptions mailbox) const {
  ActorOptions o = *this;
  o.mailbox_ = std::move(mailbox);
  return o;
}

ActorOptions ActorOptions::withIsolate(std::size_t index) const {
  ActorOptions o = *this;
  o.isolate_ = index;
  return o;
}

ActorSystemOptions ActorSystemOptions::withCrossIsolateBuffer(std::size_t ringSlots,
                                                              std::size_t overflowLimit) const {
  if (ringSlots < 2 || ringSlots > (std::size_t{1} << 20)) {
    throwError(Error::ErrInvalidOption,
               "withCrossIsolateBuffer needs 2 to 1M ring slots, got " + std::to_string(ringSlots));
  }
  ActorSystemOptions o = *this;
  o.ringSlots_ = ringSlots;
  o.overflowLimit_ = overflowLimit;
  return o;
}

ActorSystemOptions ActorSystemOptions::withCrossIsolateBufferGrowth(
    std::size_t maxRingSlots) const {
  if (maxRingSlots == 0 || maxRingSlots > (std::size_t{1} << 20)) {
    throwError(Error::ErrInvalidOption,
               "withCrossIsolateBufferGrowth needs 1 to 1M ring slots, got " +
                   std::to_string(maxRingSlots));
  }
  ActorSystemOptions o = *this;
  o.maxRingSlots_ = maxRingSlots;
  return o;
}

ActorSystemOptions ActorSystemOptions::withForeignInboxLimit(std::size_t limit) const {
  if (limit == 0) throwError(Error::ErrInvalidOption, "withForeignInboxLimit(0)");
  ActorSystemOptions o = *this;
  o.foreignInboxLimit_ = limit;
  return o;
}

ActorSystemOptions ActorSystemOptions::withPlacementRun(std::size_t run) const {
  if (run == 0)
    throwError(Error::ErrInvalidOption, "withPlacementRun(0): a run is 1 actor or more");
  ActorSystemOptions o = *this;
  o.placementRun_ = run;
  return o;
}

ActorSystemOptions ActorSystemOptions::withIdlePoll(std::chrono::nanoseconds window) const {
  if (window < std::chrono::nanoseconds::zero() || window > kMaxIdlePoll) {
    throwError(Error::ErrInvalidOption, "withIdlePoll(" + std::to_string(window.count()) +
                                            " ns): the window is 0 to " +
                                            std::to_string(kMaxIdlePoll.count()) + " ns");
  }
  ActorSystemOptions o = *this;
  o.idlePoll_ = window;
  return o;
}

ActorOptions ActorOptions::withPassivation(std::chrono::nanoseconds idleTimeout) const {
  if (idleTimeout <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidOption, "withPassivation needs a positive idle timeout, got " +
                                            std::to_string(idleTimeout.count()) + " ns");
  }
  ActorOptions o = *this;
  o.passivation_ = idleTimeout;
  return o;
}

ActorSystemOptions ActorSystemOptions::withDispatcher(std::shared_ptr<Dispatcher> prototype) const {
  if (prototype == nullptr) throwError(Error::ErrInvalidOption, "withDispatcher(nullptr)");
  ActorSystemOptions o = *this;
  o.dispatcher_ = std::move(prototype);
  return o;
}

ActorSystemOptions ActorSystemOptions::withDispatcherFactory(DispatcherFactory factory) const {
  if (!factory) throwError(Error::ErrInvalidOption, "withDispatcherFactory(empty)");
  ActorSystemOptions o = *this;
  o.factory_ = std::move(factory);
  return o;
}

ActorSystemOptions ActorSystemOptions::withThroughput(std::size_t messagesPerTurn) const {
  if (messagesPerTurn == 0) throwError(Error::ErrInvalidThroughput, "withThroughput(0)");
  ActorSystemOptions o = *this;
  o.throughput_ = messagesPerTurn;
  return o;
}

ActorSystemOptions ActorSystemOptions::withIsolates(std::size_t count) const {
  if (count == 0 || count > 4096) {
    throwError(Error::ErrInvalidOption, "withIsolates(" + std::to_string(count) + "): 1 to 4096");
  }
  ActorSystemOptions o = *this;
  o.isolates_ = count;
  return o;
}

ActorSystemOptions ActorSystemOptions::withPinning(Pinning pinning) const {
  ActorSystemOptions o = *this;
  o.pinning_ = pinning;
  return o;
}

ActorSystemOptions ActorSystemOptions::withNumaNode(int node) const {
  if (node < 0) {
    throwError(Error::ErrInvalidOption, "withNumaNode(" + std::to_string(node) + "): no such node");
  }
  ActorSystemOptions o = *this;
  o.numaNode_ = node;
  return o;
}

ActorOptions ActorOptions::withIsolateOf(const ActorRef& peer) const {
  ActorOptions o = *this;
  o.near_ = peer;
  o.nearAsked_ = true;
  return o;
}

ActorOptions ActorOptions::withKey(std::string key) const {
  ActorOptions o = *this;
  o.key_ = std::move(key);
  return o;
}

ActorOptions ActorOptions::withRoundRobin() const {
  ActorOptions o = *this;
  o.roundRobin_ = true;
  return o;
}

ActorSystemOptions ActorSystemOptions::withManualRun(bool manual) const {
  ActorSystemOptions o = *this;
  o.manualRun_ = manual;
  return o;
}

ActorSystemOptions ActorSystemOptions::withLogSink(
    std::shared_ptr<spdlog::sinks::sink> sink) const {
  if (sink == nullptr) throwError(Error::ErrInvalidOption, "withLogSink(nullptr)");
  ActorSystemOptions o = *this;
  o.logSinks_.push_back(std::move(sink));
  return o;
}

ActorSystemOptions ActorSystemOptions::withLogLevel(LogLevel level) const {
  ActorSystemOptions o = *this;
  o.logLevel_ = level;
  return o;
}

ActorSystemOptions ActorSystemOptions::withClock(const Clock* clock) const {
  ActorSystemOptions o = *this;
  o.clock_ = clock;
  return o;
}

// ---- supervision ---------------------------------------------------------------------

SupervisorStrategy SupervisorStrategy::oneForOne(Decider decider, int maxRestarts,
                                                 std::chrono::milliseconds window) {
  SupervisorStrategy s;
  s.kind_ = Kind::OneForOne;
  s.decider_ = std::move(decider);
  s.maxRestarts_ = maxRestarts;
  s.window_ = window;
  return s;
}

SupervisorStrategy SupervisorStrategy::allForOne(Decider decider, int maxRestarts,
                                                 std::chrono::milliseconds window) {
  SupervisorStrategy s = oneForOne(std::move(decider), maxRestarts, window);
  s.kind_ = Kind::AllForOne;
  return s;
}

void Actor::preRestart(ReceiveContext& ctx, const std::exception_ptr&) {
  for (const ActorRef& child : ctx.children()) ctx.stop(child);
}

void Actor::postRestart(ReceiveContext& ctx, const std::exception_ptr&) {
  preStart(ctx);
}

// ---- references ----------------------------------------------------------------------

std::string ActorRef::path() const {
  return system_ != nullptr ? system_->pathOf(*this) : std::string("(none)");
}

// ---- the receive context -------------------------------------------------------------

ActorRef ReceiveContext::parent() const noexcept {
  return cell_.parent();
}
std::string ReceiveContext::path() const {
  return std::string(cell_.path());
}
Isolate& ReceiveContext::isolate() const noexcept {
  return *cell_.home().isolate;
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
  return cell_.spawnChild(std::move(name), std::move(options), std::move(factory));
}

void ReceiveContext::askFrom(const ActorRef& target, Message message,
                             std::chrono::nanoseconds timeout,
                             detail::AskContinuation continuation) {
  cell_.core().askFromActor(self(), cell_.incarnation(), target, std::move(message), timeout,
                            std::move(continuation));
}

detail::DelayAwaiter ReceiveContext::delay(std::chrono::nanoseconds d) {
  return detail::DelayAwaiter(*this, d);
}

void ReceiveContext::awaitAsk(const ActorRef& target, Message message,
                              std::chrono::nanoseconds timeout, std::coroutine_handle<> h,
                              std::function<void(Message*, std::error_code)> fill) {
  const std::uint64_t token = cell_.runningCoroutine();
  askFrom(target, std::move(message), timeout,
          [h, token, fill = std::move(fill)](ReceiveContext& ctx, Message* reply,
                                             std::error_code error) {
            // The frame (and the awaiter in it) may be gone: a stop or a restart.
            if (!ctx.cell_.coroutineLive(h, token)) return;
            fill(reply, error);
            ctx.cell_.resumeCoroutine(h, token);
          });
}

void ReceiveContext::awaitDelay(std::chrono::nanoseconds d, std::coroutine_handle<> h) {
  const std::uint64_t token = cell_.runningCoroutine();
  SystemCore& core = cell_.core();
  const ActorRef me = self();
  isolate().setTimeout(d, [&core, me, h, token] { resumeInTurn(core, me, h, token); });
}

void ReceiveContext::resumeInTurn(SystemCore& core, const ActorRef& actor,
                                  std::coroutine_handle<> h, std::uint64_t token) {
  struct Resume final : detail::Continuation {
    Resume(std::coroutine_handle<> handle, std::uint64_t t) : h(handle), token(t) {}
    void run(ReceiveContext& ctx) override { ctx.cell_.resumeCoroutine(h, token); }
    std::coroutine_handle<> h;
    std::uint64_t token;
  };
  core.sendSystem(
      actor, SystemMessage{
                 SystemMessage::Kind::Continue, {}, nullptr, std::make_unique<Resume>(h, token)});
}

void AsyncActor::receive(ReceiveContext& ctx) {
  ctx.cell_.runAsync(*this, ctx);
}

std::vector<ActorRef> ReceiveContext::children() const {
  return cell_.children();
}
ActorRef ReceiveContext::child(std::string_view name) const {
  return cell_.child(name);
}
void ReceiveContext::stop() {
  cell_.requestStop();
}

void ReceiveContext::stop(const ActorRef& actor) {
  if (actor == self()) {
    stop();
    return;
  }
  cell_.stopChild(actor);
}

void ReceiveContext::watch(const ActorRef& actor) {
  cell_.core().sendSystem(actor, SystemMessage{SystemMessage::Kind::Watch, self(), nullptr});
}

void ReceiveContext::unwatch(const ActorRef& actor) {
  cell_.core().sendSystem(actor, SystemMessage{SystemMessage::Kind::Unwatch, self(), nullptr});
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
    // returned (SystemCore::orphan).
    core_.release()->orphan();
    return;
  }
  core_->finish();
}

const std::string& ActorSystem::name() const noexcept {
  return core_->name();
}

ActorRef ActorSystem::spawnWith(std::string name, ActorFactory factory, ActorOptions options) {
  return core_->spawnTopLevel(std::move(name), options, std::move(factory));
}

void ActorSystem::stop(const ActorRef& actor) {
  core_->sendSystem(actor, SystemMessage{SystemMessage::Kind::Stop, {}, nullptr});
}

void ActorSystem::ask(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
                      AskCompletion completion) {
  core_->ask(target, std::move(message), timeout, std::move(completion));
}

detail::AskWaitGuard ActorSystem::waitGuard(const ActorRef& target) noexcept {
  // From outside, the reply slot lives on the target's isolate
  // (SystemCore::ask); an ask to no actor of ours fails at once.
  if (!core_->isOursOrRemote(target)) return {};
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
  if (detail::IsolateHooks::currentUserData() == replyIsolate) {
    refuse("on the isolate that must run the reply");
  }
  if (!manual || !core.drivenHere()) return;  // another thread runs the reply
  if (Isolate::current() != nullptr) refuse("inside the loops of a manual system");
  core.runUntilIdle();  // the driving thread runs what the reply needs
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
  return core_->deadLetterCount();
}
void ActorSystem::shutdown() {
  core_->shutdown();
}
void ActorSystem::stop() {
  core_->stop();
}
bool ActorSystem::running() const noexcept {
  return core_->running();
}
void ActorSystem::runUntilIdle() {
  core_->runUntilIdle();
}
std::size_t ActorSystem::isolateCount() const noexcept {
  return core_->isolateCount();
}
std::vector<IsolatePlacement> ActorSystem::placement() const {
  return core_->placement();
}
int ActorSystem::rank() const noexcept {
  return core_->remote() != nullptr ? core_->remote()->rank() : 0;
}

int ActorSystem::rankOf(const ActorRef& ref) const noexcept {
  if (core_->isOurs(ref)) return rank();
  return core_->isRemote(ref) ? core_->remote()->rankOf(ref) : -1;
}

AskFuture<ActorRef> ActorSystem::lookup(int rank, const std::string& name,
                                        std::chrono::nanoseconds timeout) {
  detail::RemoteRoutes* remote = core_->remote();
  if (remote == nullptr) throwError(Error::ErrInvalidOption, "lookup: the system has no cluster");
  const ActorRef service = remote->serviceOf(rank);  // ErrInvalidOption for no such rank
  if (rank == remote->rank()) {
    std::promise<ActorRef> here;
    here.set_value(core_->topLevelNamed(name));
    return AskFuture<ActorRef>(here.get_future(), detail::AskWaitGuard{});
  }
  return ask<ActorRef>(service, detail::LookupRequest{name}, timeout);
}

ClusterStats ActorSystem::clusterStats() const noexcept {
  return core_->remote() != nullptr ? core_->remote()->stats() : ClusterStats{};
}

std::uint16_t ActorSystem::metricsEndpointPort() const noexcept {
  return core_->metricsEndpointPort();
}

TransportStats ActorSystem::transportStats() const noexcept {
  return core_->transportStats();
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

// ---- the event stream ------------------------------------------------------------------

EventStream::SubscriptionId EventStream::add(const void* type, Subscriber subscriber) {
  std::lock_guard<std::mutex> lock(mutex_);
  subscriber.id = nextId_++;
  byType_[type].push_back(std::move(subscriber));
  subscribed_.fetch_add(1, std::memory_order_release);
  return nextId_ - 1;
}

void EventStream::unsubscribe(SubscriptionId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [type, subs] : byType_) {
    const auto before = subs.size();
    std::erase_if(subs, [&](const Subscriber& s) { return s.id == id; });
    subscribed_.fetch_sub(before - subs.size(), std::memory_order_release);
  }
}

void EventStream::unsubscribe(const ActorRef& subscriber) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [type, subs] : byType_) {
    const auto before = subs.size();
    std::erase_if(subs, [&](const Subscriber& s) { return s.actor == subscriber; });
    subscribed_.fetch_sub(before - subs.size(), std::memory_order_release);
  }
}

void EventStream::deliver(const void* type, const void* event) {
  std::vector<Subscriber> targets;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = byType_.find(type);
    if (it == byType_.end()) return;
    targets = it->second;
  }
  for (const Subscriber& s : targets) {
    try {
      if (s.callback) {
        s.callback(event);
      } else {
        s.toActor(s.actor, event);
      }
    } catch (...) {
      subscriberFailed(type, s, std::current_exception());
    }
  }
}

void EventStream::subscriberFailed(const void* type, const Subscriber& subscriber,
                                   std::exception_ptr error) noexcept {
  const std::string_view name = static_cast<const detail::MessageType*>(type)->name;
  try {
    if (onSubscriberError_ && type != key<DispatcherError>()) {
      onSubscriberError_(name, subscriber.actor, error);
      return;
    }
  } catch (...) {
    // Reporting failed too: stderr gets the original error below.
  }
  std::fprintf(stderr, "[coreactor] an event-stream subscriber to %.*s threw: %s\n",
               static_cast<int>(name.size()), name.data(), describe(error).c_str());
}

std::size_t EventStream::count(const void* type) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byType_.find(type);
  return it == byType_.end() ? 0 : it->second.size();
}

}  // namespace coreactor
