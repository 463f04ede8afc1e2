// The system: isolates, the send paths, spawning, ask, shutdown.
#include "SystemCore.hpp"

#include <charconv>
#include <thread>

#include "Hash.hpp"
#include "isolate/Placement.hpp"

#include "Logging.hpp"

#include "coreactor/Dispatchers.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

std::uint64_t threadSerial() noexcept {
  static std::atomic<std::uint64_t> next{1};
  if (tThreadSerial == 0) tThreadSerial = next.fetch_add(1, std::memory_order_relaxed);
  return tThreadSerial;
}

// ---- tasks carrying work to another isolate ---------------------------------------

// A message crossing to the target's isolate. If that isolate stops first,
// the message becomes a dead letter (dispose): it is never lost silently.
class RemoteDelivery final : public Task {
 public:
  RemoteDelivery(SystemCore& core, const ActorRef& target, Envelope&& envelope)
      : Task(&run, &dispose), core_(core), target_(target), envelope_(std::move(envelope)) {}

 private:
  static void run(Task& t) {
    std::unique_ptr<RemoteDelivery> self(static_cast<RemoteDelivery*>(&t));
    try {
      self->core_.deliverLocal(self->core_.runtime(self->target_.isolateIndex()), self->target_,
                               std::move(self->envelope_.message), self->envelope_.sender);
    } catch (const std::system_error& e) {
      // A full bounded mailbox with the Fail policy: the sender is on another
      // thread and cannot be told; the message is already a dead letter.
      if (e.code() != Error::ErrMailboxFull) throw;
    }
  }
  static void dispose(Task& t) noexcept {
    std::unique_ptr<RemoteDelivery> self(static_cast<RemoteDelivery*>(&t));
    self->core_.deadLetter(self->target_, std::move(self->envelope_), "its isolate stopped");
  }
  SystemCore& core_;
  ActorRef target_;
  Envelope envelope_;
};

class RemoteSystemDelivery final : public Task {
 public:
  RemoteSystemDelivery(SystemCore& core, const ActorRef& target, SystemMessage&& message)
      : Task(&run, &dispose), core_(core), target_(target), message_(std::move(message)) {}

 private:
  static void run(Task& t) {
    std::unique_ptr<RemoteSystemDelivery> self(static_cast<RemoteSystemDelivery*>(&t));
    self->core_.deliverSystemLocal(self->core_.runtime(self->target_.isolateIndex()), self->target_,
                                   std::move(self->message_));
  }
  static void dispose(Task& t) noexcept { delete static_cast<RemoteSystemDelivery*>(&t); }
  SystemCore& core_;
  ActorRef target_;
  SystemMessage message_;
};

// The user guardian: parent of every top-level actor. It receives nothing
// itself; its cell supervises (restart by default) and counts the living.
class Guardian final : public Actor {
 public:
  void receive(ReceiveContext&) override {}
};

// ---- construction ------------------------------------------------------------------

SystemCore::SystemCore(std::string name, ActorSystemOptions options)
    : name_(std::move(name)),
      options_(std::move(options)),
      clock_(options_.clock() != nullptr ? options_.clock() : &SteadyClock::instance()) {
  logger_ = makeSystemLogger(name_, options_.logSinks(),
                             static_cast<spdlog::level::level_enum>(options_.logLevel()));
  // A subscriber's throw is reported as a dispatcher error is (SPEC D11);
  // EventStream itself keeps a DispatcherError subscriber's throw off this
  // path (stderr), so a failing report cannot feed itself.
  events_.onSubscriberError_ = [this](std::string_view type, const ActorRef& subscriber,
                                      std::exception_ptr error) {
    logger_->error("an event-stream subscriber to {}{} threw: {}", type,
                   subscriber ? " (" + pathOf(subscriber) + ")" : std::string(), describe(error));
    events_.publish(DispatcherError{"event-stream", std::move(error), subscriber});
  };
  if (options_.manualRun()) driver_ = threadSerial();
  planPlacement();  // ErrInvalidOption for a node or a pinning the machine cannot give
  const std::size_t count = placement_.size();
  for (std::size_t i = 0; i < count; ++i) {
    auto rt = std::make_unique<IsolateRuntime>();
    rt->index = static_cast<std::uint32_t>(i);
    rt->isolate =
        std::make_unique<Isolate>(IsolateOptions{.name = name_ + "/" + std::to_string(i),
                                                 .clock = options_.clock(),
                                                 .ioHandlersPerTurn = 64,
                                                 .onThreadStart = [this, i] { pinIsolate(i); },
                                                 .idlePoll = placement_[i].idlePoll});
    rt->core = this;
    rt->isolate->setUserData(rt.get());
    rt->asks = std::make_unique<AskTimeouts>(*rt->isolate);
    rt->crossings =
        std::make_unique<Crossings>(CrossingReceiver(*this, *rt), *rt->isolate, rt->index, count,
                                    options_.ringSlots(), options_.overflowLimit());
    if (count > 1) rt->isolate->addPoller(*rt->crossings);  // one isolate has no rings
    rt->scheduler = std::make_unique<Scheduler>(*this, *rt);
    // SPEC D8: one instance of the default dispatcher per isolate.
    if (options_.dispatcherFactory()) {
      rt->dispatcher = options_.dispatcherFactory()();
    } else if (options_.dispatcher() != nullptr) {
      rt->dispatcher = i == 0 ? options_.dispatcher() : instanceFor(*options_.dispatcher());
    } else {
      rt->dispatcher = std::make_shared<HybridDispatcher>();
    }
    rt->dispatcher->bind(*rt->isolate);
    rt->dispatcher->adoptErrorSink(dispatcherSink());  // SPEC D12: only where unset
    isolates_.push_back(std::move(rt));
  }
  isolateCount_ = static_cast<std::uint32_t>(isolates_.size());
  // The guardian lives on isolate 0.
  IsolateRuntime& home = *isolates_[0];
  const auto reservation = home.table.reserve(isLocal(home));
  guardian_ = makeRef(0, reservation.slot, reservation.generation);
  auto* cell = new ActorCell(
      home, guardian_, ActorRef(), "/user", ActorOptions::create(),
      [] { return std::unique_ptr<Actor>(std::make_unique<Guardian>()); }, *home.dispatcher, 1,
      /*guardian=*/true);
  home.table.publish(reservation.slot, cell);
  sendSystem(guardian_, SystemMessage{SysKind::Start, {}, nullptr});
}

SystemCore::~SystemCore() {
  stop();
}

void SystemCore::start() {
  if (options_.manualRun()) return;
  for (auto& rt : isolates_) rt->isolate->start();
}

IsolateRuntime& SystemCore::runtime(std::size_t index) {
  if (index >= isolates_.size()) {
    throwError(
        Error::ErrIsolateOutOfRange,
        "isolate " + std::to_string(index) + " of a system of " + std::to_string(isolates_.size()));
  }
  return *isolates_[index];
}

ErrorSink SystemCore::dispatcherSink() {
  return [this](std::exception_ptr error, std::string_view dispatcherId) {
    reportDispatcherError(dispatcherId, std::move(error), ActorRef());
  };
}

void SystemCore::reportDispatcherError(std::string_view dispatcherId, std::exception_ptr cause,
                                       const ActorRef& actor) noexcept {
  try {
    logger_->error("dispatcher '{}' lost a unit of work{}: {}", dispatcherId,
                   actor ? " of " + pathOf(actor) : std::string(), describe(cause));
    events_.publish(DispatcherError{std::string(dispatcherId), cause, actor});
  } catch (...) {
    std::fprintf(stderr, "[coreactor] dispatcher '%.*s': %s (and reporting it failed)\n",
                 static_cast<int>(dispatcherId.size()), dispatcherId.data(),
                 describe(cause).c_str());
  }
}

// ---- the send paths ------------------------------------------------------------------

}  // namespace coreactor::detail

namespace coreactor {

// The front door of every tell. Kept in this file with send, deliverLocal and
// ActorCell::enqueue so that the compiler sees the whole local path at once.
namespace {
[[noreturn, gnu::cold, gnu::noinline]] void throwNoSystem(const Message& message) {
  throwError(Error::ErrDead, "tell of " + std::string(message.typeName()) +
                                 " to an empty ActorRef with no sender: no system to report to");
}
}  // namespace

void ActorRef::deliver(Message&& message, ActorRef sender) const {
  detail::SystemCore* core = system_ != nullptr ? system_ : sender.system_;
  if (core == nullptr) [[unlikely]] {
    throwNoSystem(message);
  }
  core->send(*this, std::move(message), sender);
}

// The common case, a word into an unbounded mailbox on this thread's
// isolate, makes no call but its tail (the turn, for an idle actor): it
// saves no registers. It starts on a cache line of its own, as the turn
// does (runtime/ActorCell.cpp says why).
[[gnu::aligned(64)]] void ActorRef::deliverWord(const detail::MessageType* type, std::uint64_t word,
                                                ActorRef sender) const {
  if (system_ != nullptr) [[likely]] {
    if (detail::Endpoint* endpoint = system_->endpointHere(*this)) [[likely]] {
      if (endpoint->kind == detail::Endpoint::Kind::Cell) [[likely]] {
        auto* cell = static_cast<detail::ActorCell*>(endpoint);
        if (cell->pushWordInPlace(type, word, sender, system_)) [[likely]] {
          if (cell->wantsTurn()) cell->scheduleTurn();
          return;
        }
        deliverWordToCell(cell, type, word, sender);
        return;
      }
      // The reply to an ask whose reply slot lives on this isolate.
      system_->replyWord(*static_cast<detail::AskEndpoint*>(endpoint), type, word);
      return;
    }
  }
  deliverWordSlow(type, word, sender);
}

void detail::ActorCell::scheduleTurn() {
  schedule();
}

[[gnu::noinline]] void ActorRef::deliverWordToCell(detail::ActorCell* cell,
                                                   const detail::MessageType* type,
                                                   std::uint64_t word, ActorRef sender) const {
  if (cell->enqueueWord(type, word, sender)) return;
  deliver(Message(type, word), sender);
}

// A word to another isolate of this system, from one of its isolates (a
// flood's every message): its checks make no call, and the ring's send is
// its tail, so this path saves no registers. Everything else goes on in
// deliverWordElsewhere().
[[gnu::noinline]] void ActorRef::deliverWordSlow(const detail::MessageType* type,
                                                 std::uint64_t word, ActorRef sender) const {
  if (system_ != nullptr) [[likely]] {
    if (detail::IsolateRuntime* here = system_->crossingFromHere(*this, sender)) [[likely]] {
      system_->sendWordAcrossFromHere(*here, *this, type, word, sender);
      return;
    }
  }
  deliverWordElsewhere(type, word, sender);
}

[[gnu::noinline]] void ActorRef::deliverWordElsewhere(const detail::MessageType* type,
                                                      std::uint64_t word, ActorRef sender) const {
  if (system_ != nullptr && system_->sendWord(*this, type, word, sender)) return;
  deliver(Message(type, word), sender);
}

}  // namespace coreactor

namespace coreactor::detail {

bool SystemCore::sendWordAcross(IsolateRuntime& to, const ActorRef& target, const MessageType* type,
                                std::uint64_t word, const ActorRef& sender) {
  IsolateRuntime* here = currentRuntime();
  if (here == nullptr || !carriesAsId(sender)) return false;
  here->crossings->sendWord(*to.crossings, target.id(), idOf(sender), type, word);
  return true;
}

void SystemCore::sendElsewhere(const ActorRef& target, Envelope&& envelope) {
  if (target.isNone() || target.isolateIndex() >= isolates_.size()) {
    deadLetter(target, std::move(envelope), "no such actor");
    return;
  }
  IsolateRuntime& rt = *isolates_[target.isolateIndex()];
  IsolateRuntime* here = currentRuntime();
  // From another of our isolates: the ring of that pair (SPEC X1). A sender
  // of another system cannot travel as an id: that rare message crosses
  // boxed, in the same ring, so it keeps its place (SPEC A2).
  if (here != nullptr) {
    if (carriesAsId(envelope.sender)) [[likely]] {
      here->crossings->send(*rt.crossings, target.id(),
                            Crossing{idOf(envelope.sender), std::move(envelope.message)});
    } else {
      here->crossings->send(
          *rt.crossings, target.id(),
          Crossing{Crossing::kNoSender, Message(CrossingWithForeignSender{std::move(envelope)})});
    }
    return;
  }
  // From a thread that is no isolate: the target isolate's MPSC inbox,
  // waiting while it is full (SPEC X3: block for foreign threads).
  // Only a thread that runs no loop at all waits: an isolate of another
  // system must not stall its own loop on ours.
  if (rt.isolate->inboxSizeApprox() >= options_.foreignInboxLimit() && !options_.manualRun() &&
      Isolate::current() == nullptr) {
    foreignBlocked_.fetch_add(1, std::memory_order_relaxed);
    for (int spins = 0; rt.isolate->inboxSizeApprox() >= options_.foreignInboxLimit() &&
                        running() && !rt.isolate->stopped();
         ++spins) {
      if (spins < 64) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
  }
  auto* task = new RemoteDelivery(*this, target, std::move(envelope));
  try {
    rt.isolate->post(*task);
  } catch (const std::system_error&) {
    task->discard();  // dead-letters the message
  }
}

[[gnu::noinline]] void SystemCore::replyWord(AskEndpoint& endpoint, const MessageType* type,
                                             std::uint64_t word) {
  Message reply(type, word);
  endpoint.complete(&reply, {});
}

void SystemCore::deliverUncommon(IsolateRuntime& rt, const ActorRef& target, Endpoint* endpoint,
                                 Envelope&& envelope) {
  if (endpoint == nullptr) {
    failAskOf(envelope.sender, make_error_code(Error::ErrDead));
    deadLetter(target, std::move(envelope),
               rt.table.answeredAsk(target.slot(), target.generation())
                   ? "a reply to an ask that has already completed (answered, failed or timed out)"
                   : "the actor has stopped");
    return;
  }
  static_cast<AskEndpoint*>(endpoint)->complete(&envelope.message, {});
}

void SystemCore::sendSystem(const ActorRef& target, SystemMessage&& message) {
  if (target.isNone()) return;
  if (target.system_ != this || target.isolateIndex() >= isolates_.size()) {
    // Another system's reference (or one no isolate of ours can hold) names
    // no actor of this system, whatever its id: it is treated as dead here,
    // never as the actor of ours with the same id.
    deliverToNoActor(target, std::move(message));
    return;
  }
  IsolateRuntime& rt = *isolates_[target.isolateIndex()];
  if (isLocal(rt)) {
    deliverSystemLocal(rt, target, std::move(message));
    return;
  }
  if (IsolateRuntime* here = currentRuntime()) {
    // Never refused: lifecycle signals must arrive (SPEC X3's bound is for user messages).
    here->crossings->send(
        *rt.crossings, target.id(),
        Crossing{Crossing::kNoSender,
                 Message(CrossingSystemMessage{std::make_unique<SystemMessage>(std::move(message))})},
        /*refusable=*/false);
    return;
  }
  auto* task = new RemoteSystemDelivery(*this, target, std::move(message));
  try {
    rt.isolate->post(*task);
  } catch (const std::system_error&) {
    task->discard();  // the system is stopping: lifecycle signals end with it
  }
}

void SystemCore::deliverSystemLocal(IsolateRuntime& rt, const ActorRef& target,
                                    SystemMessage&& message) {
  Endpoint* endpoint = rt.table.find(target.slot(), target.generation());
  if (endpoint == nullptr || endpoint->kind != Endpoint::Kind::Cell) {
    deliverToNoActor(target, std::move(message));
    return;
  }
  static_cast<ActorCell*>(endpoint)->enqueueSystem(std::move(message));
}

void SystemCore::deliverToNoActor(const ActorRef& target, SystemMessage&& message) {
  // Watching an actor that is gone means hearing at once that it is; a
  // reply it was waiting for is undeliverable; a stop has nothing to stop.
  if (message.kind == SysKind::Watch) message.ref.tell(Terminated{target}, target);
  if (message.kind == SysKind::Continue) {
    dropContinuation(target, std::move(message.continuation), "the asking actor has stopped");
  }
}

IsolateRuntime* SystemCore::runtimeOfOurs(const ActorRef& ref) const noexcept {
  if (ref.isNone() || ref.system_ != this || ref.isolateIndex() >= isolates_.size()) return nullptr;
  return isolates_[ref.isolateIndex()].get();
}

void SystemCore::failAskOf(const ActorRef& sender, std::error_code error) {
  // An ask's reply slot lives on the target's isolate: an ask to a dead actor
  // fails at once instead of waiting for its timeout.
  IsolateRuntime* home = runtimeOfOurs(sender);
  if (home == nullptr) return;
  IsolateRuntime& rt = *home;
  if (!isLocal(rt)) {
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

bool SystemCore::failLocalAskOf(const ActorRef& sender, std::error_code error) {
  IsolateRuntime* home = runtimeOfOurs(sender);
  return home != nullptr && isLocal(*home) && failAskHere(*home, sender, error);
}

bool SystemCore::failAskHere(IsolateRuntime& rt, const ActorRef& sender, std::error_code error) {
  Endpoint* endpoint = rt.table.find(sender.slot(), sender.generation());
  if (endpoint == nullptr || endpoint->kind != Endpoint::Kind::Ask) return false;
  static_cast<AskEndpoint*>(endpoint)->complete(nullptr, error);
  return true;
}

void SystemCore::dropContinuation(const ActorRef& actor, std::unique_ptr<Continuation> continuation,
                                  const char* reason) {
  // A coroutine's resumption carries nothing; an ask's reply becomes a dead letter.
  if (continuation == nullptr) return;
  Message* carried = continuation->carried();
  if (carried != nullptr && !carried->empty()) {
    deadLetter(actor, Envelope{std::move(*carried), ActorRef()}, reason);
  }
}

void SystemCore::deadLetter(const ActorRef& recipient, Envelope&& envelope, const char* reason) {
  deadLetters_.fetch_add(1, std::memory_order_relaxed);
  if (!events_.hasSubscribers<DeadLetter>()) return;
  // A DeadLetter event that cannot reach its subscriber is counted, not
  // published again: that would feed itself for ever.
  if (envelope.message.is<DeadLetter>()) return;
  if (StrictTick* tick = envelope.message.get<StrictTick>()) {
    Message inner = std::move(tick->message);  // subscribers see what was scheduled
    envelope.message = std::move(inner);
  }
  DeadLetter letter{recipient, envelope.sender, std::string(envelope.message.typeName()), reason,
                    std::make_shared<const Message>(std::move(envelope.message))};
  events_.publish(letter);
}

// ---- spawning ----------------------------------------------------------------------

ActorRef SystemCore::spawn(ActorCell* parent, std::string_view path, const ActorOptions& options,
                           ActorFactory&& factory, const std::string* topName) {
  if (!running() && parent == nullptr) {
    throwError(Error::ErrActorSystemNotStarted,
               "spawn of " + std::string(path) + " on a stopped system");
  }
  const std::size_t index = options.isolate().has_value() ? *options.isolate()
                            : options.key().has_value()
                                ? static_cast<std::size_t>(fnv1a(*options.key()) % isolates_.size())
                            : options.roundRobin() || parent == nullptr ? placeTopLevel(options)
                                                                        : parent->home().index;
  IsolateRuntime& home = runtime(index);  // ErrIsolateOutOfRange
  Dispatcher* dispatcher = home.dispatcher.get();
  if (options.dispatcher() != nullptr) {
    options.dispatcher()->bind(*home.isolate);  // ErrDispatcherBoundElsewhere
    options.dispatcher()->adoptErrorSink(dispatcherSink());
    dispatcher = options.dispatcher().get();
  }
  const auto throughput =
      static_cast<std::uint32_t>(options.throughput().value_or(options_.throughput()));
  const auto reservation = home.table.reserve(isLocal(home));
  const ActorRef self = makeRef(home.index, reservation.slot, reservation.generation);
  auto* cell = new ActorCell(home, self, parent != nullptr ? parent->self() : guardian_, path,
                             options, std::move(factory), *dispatcher, throughput, false);
  if (topName != nullptr) {
    // The name maps to the id before the actor can stop and give it back.
    std::lock_guard<std::mutex> lock(topMutex_);
    topByName_[*topName] = self.id();
    topNames_.emplace(self.id(), *topName);
    topNamed_.fetch_add(1, std::memory_order_release);
  }
  home.table.publish(reservation.slot, cell, /*topLevel=*/parent == nullptr);
  sendSystem(self, SystemMessage{SysKind::Start, {}, nullptr});
  return self;
}

std::size_t SystemCore::placeTopLevel(const ActorOptions&) {
  // Top-level actors without a placement go round the isolates.
  return roundRobin_.fetch_add(1, std::memory_order_relaxed) % isolates_.size();
}

// ---- placement and pinning (SPEC L5) -----------------------------------------------

void SystemCore::planPlacement() {
  placement_ = detail::planPlacement(PlacementRequest{
      .isolates = options_.isolates(),
      .pinning = options_.pinning(),
      .numaNode = options_.numaNode(),
      .idlePoll = options_.idlePoll(),
      .defaultIdlePoll = ActorSystemOptions::kDefaultIdlePoll,
      .manualRun = options_.manualRun(),
  });
}

void SystemCore::pinIsolate(std::size_t index) noexcept {
  std::string why;
  std::vector<unsigned> cpus;
  {
    std::lock_guard<std::mutex> lock(placementMutex_);
    cpus = placement_[index].cpus;
  }
  // Pinned as asked, or kept on the NUMA node the options name.
  const bool wanted = options_.pinning() != Pinning::None || options_.numaNode().has_value();
  IsolatePlacement plan;
  plan.cpus = cpus;
  why = pinThread(plan, wanted);
  std::string list;
  for (unsigned cpu : cpus) list += (list.empty() ? "" : ",") + std::to_string(cpu);
  {
    std::lock_guard<std::mutex> lock(placementMutex_);
    placement_[index].pinned = wanted && why.empty();
    placement_[index].note = why;
  }
  const auto pollUs = std::chrono::duration<double, std::micro>(placement_[index].idlePoll).count();
  if (!wanted) {
    logger_->debug("isolate {} runs on CPUs {} (not pinned; idle poll {} us)", index, list, pollUs);
  } else if (why.empty()) {
    logger_->info("isolate {} pinned to CPUs {} (NUMA node {}; idle poll {} us)", index, list,
                  placement_[index].numaNode, pollUs);
  } else {
    logger_->warn("isolate {} not pinned to CPUs {}: {}", index, list, why);
  }
}

TransportStats SystemCore::transportStats() const noexcept {
  TransportStats stats;
  for (const auto& rt : isolates_) {
    const Crossings::Stats& c = rt->crossings->stats();
    stats.crossings += c.sent.load(std::memory_order_relaxed);
    stats.overflowed += c.overflowed.load(std::memory_order_relaxed);
    stats.refused += c.refused.load(std::memory_order_relaxed);
  }
  stats.foreignBlocked = foreignBlocked_.load(std::memory_order_relaxed);
  return stats;
}

std::vector<IsolatePlacement> SystemCore::placement() const {
  std::lock_guard<std::mutex> lock(placementMutex_);
  return placement_;
}

ActorRef SystemCore::spawnTopLevel(std::string&& name, const ActorOptions& options,
                                   ActorFactory&& factory) {
  if (!running()) {
    throwError(Error::ErrActorSystemNotStarted, "spawn on system '" + name_ + "', which stopped");
  }
  if (name.find('/') != std::string::npos || (!name.empty() && name[0] == '$')) {
    throwError(Error::ErrInvalidOption, "actor name '" + name + "': no '/' and no leading '$'");
  }
  // Counted before it can stop (the guardian's ChildTerminated uncounts it).
  topLive_.fetch_add(1, std::memory_order_relaxed);
  if (name.empty()) {
    // A generated name cannot collide with a user's (those never start with
    // '$'): no registry of names to consult, no lock.
    char path[32] = "/user/$";
    const auto end = std::to_chars(path + 7, path + sizeof path,
                                   topGenerated_.fetch_add(1, std::memory_order_relaxed) + 1);
    try {
      return spawn(nullptr, std::string_view(path, static_cast<std::size_t>(end.ptr - path)),
                   options, std::move(factory));
    } catch (...) {
      uncountTopLevel();
      throw;
    }
  }
  std::unique_lock<std::mutex> lock(topMutex_);
  if (topByName_.count(name) != 0) {
    lock.unlock();
    uncountTopLevel();
    throwError(Error::ErrDuplicateName, "a top-level actor named '" + name + "' exists");
  }
  // Hold the name while spawning, so two threads cannot both take it.
  topByName_.emplace(name, 0);
  lock.unlock();
  ActorRef ref;
  try {
    ref = spawn(nullptr, "/user/" + name, options, std::move(factory), &name);
  } catch (...) {
    lock.lock();
    if (auto held = topByName_.find(name); held != topByName_.end()) {
      if (topNames_.erase(held->second) != 0) topNamed_.fetch_sub(1, std::memory_order_relaxed);
      topByName_.erase(held);
    }
    lock.unlock();
    uncountTopLevel();
    throw;
  }
  return ref;
}

void SystemCore::topLevelTerminated(const ActorRef& child) {
  // Each top-level actor's one ChildTerminated to the guardian lands here.
  // Only a named actor takes the lock for its name.
  if (topNamed_.load(std::memory_order_acquire) != 0) {
    std::lock_guard<std::mutex> lock(topMutex_);
    auto named = topNames_.find(child.id());
    if (named != topNames_.end()) {
      topByName_.erase(named->second);
      topNames_.erase(named);
      topNamed_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  uncountTopLevel();
}

void SystemCore::uncountTopLevel() {
  // What waits (shutdown) waits for none left: only the last one notifies.
  // It takes the lock to do so, so a waiter between its check and its
  // sleep cannot miss the call.
  if (topLive_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::lock_guard<std::mutex> lock(topMutex_);
  if (stopLoopsWhenEmpty_ && topLive_.load(std::memory_order_relaxed) == 0) {
    stopLoops();  // a shutdown from an actor
  }
  topChanged_.notify_all();
}

bool SystemCore::isTopLevel(const ActorRef& child) {
  return child.isolateIndex() < isolates_.size() &&
         isolates_[child.isolateIndex()]->table.isTopLevel(child.slot(), child.generation());
}

std::vector<ActorRef> SystemCore::topLevel() {
  std::vector<ActorRef> refs;
  for (const auto& rt : isolates_) {
    rt->table.forEachTopLevel([&](std::uint32_t slot, std::uint32_t generation) {
      refs.push_back(makeRef(rt->index, slot, generation));
    });
  }
  return refs;
}

std::string SystemCore::pathOf(const ActorRef& ref) {
  if (ref.isNone()) return "(none)";
  if (ref.isolateIndex() < isolates_.size()) {
    IsolateRuntime& rt = *isolates_[ref.isolateIndex()];
    if (isLocal(rt)) {
      Endpoint* e = rt.table.find(ref.slot(), ref.generation());
      if (e != nullptr && e->kind == Endpoint::Kind::Cell)
        return std::string(static_cast<ActorCell*>(e)->path());
    }
  }
  return "#" + std::to_string(ref.isolateIndex()) + ":" + std::to_string(ref.slot()) + "." +
         std::to_string(ref.generation());
}

// ---- ask ---------------------------------------------------------------------------

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

void AskEndpoint::complete(Message* reply, std::error_code error) noexcept {
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
    // The asker lives here (askFromActor) and this runs on its loop, or
    // after the loops stopped (the isolate's disposal of its timers, the
    // system's teardown): then the reply cannot run any more.
    std::unique_ptr<Continuation> self(this);
    try {
      ActorCell* cell = core().cellOf(home_, asker_);
      if (cell != nullptr && !home_.isolate->stopped()) {
        cell->enqueueContinue(std::move(self));
      } else {
        core().dropContinuation(asker_, std::move(self), "the asking actor has stopped");
      }
    } catch (...) {
      core().log().error("an ask's reply was lost: {}", describe(std::current_exception()));
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

void SystemCore::ask(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
                     AskCompletion completion) {
  checkTimeout(timeout);
  if (!running()) {
    completion(nullptr, make_error_code(Error::ErrActorSystemNotStarted));
    return;
  }
  if (!isOurs(target)) {  // none, or another system's: no actor of ours answers
    completion(nullptr, make_error_code(Error::ErrDead));
    return;
  }
  // From outside, the reply slot lives on the target's isolate (from an
  // actor, on the asker's: askFromActor).
  IsolateRuntime& rt = *isolates_[target.isolateIndex()];
  const auto reservation = rt.table.reserve(isLocal(rt));
  auto* endpoint = new AskEndpoint(rt, reservation.slot, std::move(completion));
  startAsk(rt, endpoint, reservation.slot, reservation.generation, target, std::move(message),
           timeout);
}

void SystemCore::askFromActor(const ActorRef& asker, std::uint32_t incarnation,
                              const ActorRef& target, Message&& message,
                              std::chrono::nanoseconds timeout,
                              AskContinuation&& continuation) {
  checkTimeout(timeout);
  // The reply slot lives on the asker's isolate: this one.
  IsolateRuntime& rt = *isolates_[asker.isolateIndex()];
  const auto reservation = rt.table.reserve(true);
  auto* endpoint = new AskEndpoint(rt, reservation.slot, asker, std::move(continuation));
  endpoint->incarnation = incarnation;
  if (!isOurs(target)) {  // none, or another system's: no actor of ours answers
    rt.table.publish(reservation.slot, endpoint);
    endpoint->complete(nullptr, make_error_code(Error::ErrDead));
    return;
  }
  startAsk(rt, endpoint, reservation.slot, reservation.generation, target, std::move(message),
           timeout);
}

void SystemCore::startAsk(IsolateRuntime& rt, AskEndpoint* endpoint, std::uint32_t slot,
                          std::uint32_t generation, const ActorRef& target, Message&& message,
                          std::chrono::nanoseconds timeout) {
  rt.table.publish(slot, endpoint);
  const ActorRef replyTo = makeRef(rt.index, slot, generation);
  if (isLocal(rt)) {
    endpoint->arm(timeout);
    sendRequest(target, std::move(message), replyTo);
    return;
  }
  try {
    rt.isolate->post([this, endpoint, timeout, target, replyTo,
                      m = std::make_shared<Message>(std::move(message))]() mutable {
      endpoint->arm(timeout);
      sendRequest(target, std::move(*m), replyTo);
    });
  } catch (const std::system_error&) {
    endpoint->complete(nullptr, make_error_code(Error::ErrActorSystemNotStarted));
  }
}

void SystemCore::sendRequest(const ActorRef& target, Message&& message, const ActorRef& replyTo) {
  // A word takes a tell's word path (a word left in `message` needs no
  // clean-up when that path refuses it: it goes down send() below).
  if (const MessageType* type = message.type_; type != nullptr && type->word) [[likely]] {
    if (sendWord(target, type, message.storedWord(), replyTo)) return;
  }
  send(target, std::move(message), replyTo);
}

// ---- running and stopping ------------------------------------------------------------

// The outermost runUntilIdle() of a manual system's driving thread frees the
// core if a handler destroyed its owner meanwhile (orphan()): nothing of the
// core is touched after the scope ends.
class SystemCore::DriveScope {
 public:
  explicit DriveScope(SystemCore& core) noexcept : core_(core) { ++core_.driving_; }
  ~DriveScope() {
    if (--core_.driving_ == 0 && core_.orphaned_) delete &core_;
  }
  DriveScope(const DriveScope&) = delete;
  DriveScope& operator=(const DriveScope&) = delete;

 private:
  SystemCore& core_;
};

void SystemCore::runUntilIdle() {
  if (!options_.manualRun()) {
    throwError(Error::ErrNotManual, "runUntilIdle on system '" + name_ + "'");
  }
  if (!drivenHere()) {
    throwError(Error::ErrNotOnIsolate, "runUntilIdle of manual system '" + name_ +
                                           "' from a thread other than the one that created it");
  }
  const DriveScope scope(*this);
  // Isolates can feed each other: go round until a whole pass ran nothing.
  for (;;) {
    std::uint64_t before = 0;
    std::uint64_t after = 0;
    for (auto& rt : isolates_) {
      const auto& s = rt->isolate->stats();
      before += s.macrotasks + s.microtasks + s.timersFired + s.ioHandlers;
      if (!rt->isolate->stopped()) rt->isolate->runUntilIdle();
      after += s.macrotasks + s.microtasks + s.timersFired + s.ioHandlers;
    }
    if (after == before || orphaned_) return;
  }
}

bool SystemCore::onOwnIsolate() const noexcept {
  return currentRuntime() != nullptr;
}

void SystemCore::shutdown() {
  State expected = State::Running;
  const bool first = state_.compare_exchange_strong(expected, State::ShuttingDown);
  const bool inside = onOwnIsolate();
  if (first) {
    if (inside) {
      // From an actor: a loop cannot wait for itself. The stops go out now
      // and the last top-level actor to stop stops the loops
      // (uncountTopLevel); a shutdown() or the destructor from outside
      // waits for that, then joins and tears down.
      std::lock_guard<std::mutex> lock(topMutex_);
      stopLoopsWhenEmpty_ = true;
    }
    for (const ActorRef& ref : topLevel()) {
      sendSystem(ref, SystemMessage{SysKind::Stop, {}, nullptr});
    }
    if (inside) {
      std::lock_guard<std::mutex> lock(topMutex_);
      if (topLive_.load(std::memory_order_relaxed) == 0) stopLoops();
      return;
    }
  } else if (inside) {
    return;  // on its way already, and a loop cannot wait for itself
  }
  // From outside: whoever began it, wait for the graceful stop to finish.
  if (options_.manualRun() && drivenHere()) {
    const DriveScope scope(*this);  // a handler may destroy the owner meanwhile
    awaitGracefulStop();
    stop();
    return;
  }
  awaitGracefulStop();
  stop();
}

void SystemCore::awaitGracefulStop() {
  if (state_.load(std::memory_order_acquire) == State::Running) return;
  if (options_.manualRun()) {
    // The driving thread runs what the stops set going; another thread
    // cannot drive this system and has nothing to wait for.
    if (drivenHere() && Isolate::current() == nullptr) runUntilIdle();
    return;
  }
  // Until the top-level actors have reported their subtrees stopped, or an
  // immediate stop ended the loops. The bound only guards against a hook
  // that never returns.
  std::unique_lock<std::mutex> lock(topMutex_);
  if (!topChanged_.wait_for(lock, std::chrono::seconds(60), [&] {
        return topLive_.load(std::memory_order_relaxed) == 0 ||
               state_.load(std::memory_order_acquire) == State::Stopped;
      })) {
    logger_->error("shutdown: {} top-level actors did not stop within 60 s; stopping anyway",
                   topLive_.load(std::memory_order_relaxed));
  }
}

void SystemCore::stopLoops() noexcept {
  state_.store(State::Stopped, std::memory_order_release);
  for (auto& rt : isolates_) rt->isolate->stop();
}

void SystemCore::stop() {
  if (onOwnIsolate()) {
    // From an actor: the loops stop after their current step; joining and
    // tearing down is left to the destructor (or a stop() from outside).
    stopLoops();
    wakeShutdownWaiters();
    return;
  }
  std::lock_guard<std::mutex> guard(stopMutex_);
  stopLoops();
  wakeShutdownWaiters();
  if (tornDown_) return;
  tornDown_ = true;
  for (auto& rt : isolates_) rt->isolate->join();
  teardown();
}

void SystemCore::wakeShutdownWaiters() noexcept {
  // Under the lock, so that a waiter between its check and its sleep
  // cannot miss the call.
  try {
    std::lock_guard<std::mutex> lock(topMutex_);
  } catch (...) {
    // A mutex that cannot be locked wakes the waiters anyway.
  }
  topChanged_.notify_all();
}

void SystemCore::finish() {
  if (state_.load(std::memory_order_acquire) == State::ShuttingDown) {
    // A shutdown() begun inside a handler, or by another thread: every
    // postStop runs before the loops stop.
    if (options_.manualRun() && drivenHere()) {
      const DriveScope scope(*this);
      awaitGracefulStop();
    } else {
      awaitGracefulStop();
    }
  }
  stop();
}

void SystemCore::orphan() {
  owner_ = nullptr;
  stopLoops();
  wakeShutdownWaiters();
  if (options_.manualRun()) {
    if (driving_ > 0) {
      orphaned_ = true;  // the outermost runUntilIdle() frees it (DriveScope)
    } else {
      // Its isolate is driven directly (ActorSystem::isolate(i).runUntilIdle()):
      // no frame of ours returns after the handler, so nothing can free it safely.
      logger_->error(
          "system '{}' was destroyed from inside its own handler while an isolate of it was "
          "driven directly; its memory is kept until the process exits",
          name_);
    }
    return;
  }
  // A thread of its own joins the isolate threads, then tears down. The
  // loop of this thread returns once the handler does.
  std::thread([this] {
    for (auto& rt : isolates_) rt->isolate->join();
    delete this;
  }).detach();
}

// After every loop has stopped: what is left is freed, and what it held
// becomes dead letters or failed asks.
void SystemCore::teardown() noexcept {
  for (auto& rt : isolates_) rt->scheduler->clear();  // S5: no schedule outlives the system
  for (auto& rt : isolates_) rt->crossings->drainAtTeardown();  // X2: in flight: dead letters
  for (auto& rt : isolates_) {
    std::vector<Endpoint*> endpoints;
    rt->table.forEach([&](std::uint32_t, Endpoint* e) { endpoints.push_back(e); });
    for (Endpoint* e : endpoints) {
      if (e->kind == Endpoint::Kind::Cell) {
        auto* cell = static_cast<ActorCell*>(e);
        rt->table.release(cell->self().slot());
        cell->abandon();
        delete cell;
      } else {
        static_cast<AskEndpoint*>(e)->complete(nullptr,
                                               make_error_code(Error::ErrActorSystemNotStarted));
      }
    }
  }
}

}  // namespace coreactor::detail
