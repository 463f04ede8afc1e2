// One actor's cell: its making, the send side, and where actor objects'
// memory comes from. Its turn is in CellTurn.cpp, its lifecycle in
// CellLifecycle.cpp, its coroutine handlers in Coroutines.cpp. Everything
// here runs on the actor's isolate.
#include <algorithm>

#include "Coroutines.hpp"
#include "Logging.hpp"
#include "SystemCore.hpp"

namespace coreactor::detail {

ActorCell::ActorCell(IsolateRuntime& home, ActorRef self, ActorRef parent, std::string_view path,
                     const ActorOptions& options, ActorFactory&& factory, Dispatcher& dispatcher,
                     std::uint32_t throughput, bool guardian)
    : Task(&CellTurn::runTurn, &CellTurn::disposeTurn),
      Endpoint(Kind::Cell),
      inPlace_(dispatcher.urgentUnitsMayRunInPlace()),
      throughput_(throughput),
      mailbox_(options.mailbox()),
      dispatcher_(&dispatcher),
      home_(&home),
      selfId_(self.id()),
      parentId_(SystemCore::idOf(parent)),
      path_(path),
      factory_(std::move(factory)) {
  flags_.set(CellFlags::kGuardian, guardian);
  flags_.set(CellFlags::kPinned, options.pinned());
  // A balancer: every actor spawned once it runs is sampled.
  flags_.set(CellFlags::kSampled, home.sampling != nullptr);
  tools().configure(options);
  if (options.dispatcher() != nullptr) rare().ownDispatcher = options.dispatcher();
  if (options.passivation() > Clock::duration::zero())
    rare().passivateAfter = options.passivation();
  if (options.mailboxHighWaterMark()) {
    rare();
    flags_.set(CellFlags::kWatchDepth, true);  // on the list of its isolate at start()
  }
  home_->counts.liveActors.fetch_add(1, std::memory_order_relaxed);
}

ActorCell::~ActorCell() {
  home_->counts.liveActors.fetch_sub(1, std::memory_order_relaxed);
  if (flags_.any(CellFlags::kWatchDepth)) std::erase(home_->watchedMailboxes, this);
}

ActorCell::Rare& ActorCell::rare() {
  if (rare_ == nullptr) rare_ = std::make_unique<Rare>();
  return *rare_;
}

std::string_view ActorCell::name() const noexcept {
  const std::string_view p = path_.view();
  return p.substr(p.rfind('/') + 1);
}

// ---- the send side ----------------------------------------------------------------

void ActorCell::enqueueSlow(Envelope&& envelope) {
  if (state_ >= State::Terminating) {
    core().asks().failAskOf(envelope.sender, make_error_code(Error::ErrDead));
    core().delivery().deadLetter(self(), std::move(envelope), "the actor is stopping");
    return;
  }
  Envelope displaced;
  switch (mailbox_.push(std::move(envelope), &displaced, home_->core)) {
    case Mailbox::Push::Queued:
      break;
    // A request pushed out can no longer be answered: its ask fails at once
    // rather than at its timeout, when its reply slot (the sender) lives on
    // this isolate (asks from here, and from outside the system).
    case Mailbox::Push::Evicted:
      core().asks().failLocalAskOf(displaced.sender, make_error_code(Error::ErrMailboxFull));
      core().delivery().deadLetter(self(), std::move(displaced),
                                   "evicted from a full bounded mailbox");
      break;
    case Mailbox::Push::Refused:
      // A priority mailbox refuses only what its priority function threw
      // on: no want of room, and an ask among those ends at its timeout.
      if (!mailbox_.isBounded()) {
        core().delivery().deadLetter(self(), std::move(displaced),
                                     "refused: the priority mailbox's priority function threw");
        return;
      }
      {
        const bool askFailed =
            core().asks().failLocalAskOf(displaced.sender, make_error_code(Error::ErrMailboxFull));
        core().delivery().deadLetter(self(), std::move(displaced),
                                     "refused by a full bounded mailbox");
        // Fail throws to the sender; an ask's request has its ask's result
        // for that, and the asker sees no second error.
        if (mailbox_.overflow() == OverflowPolicy::Fail && !askFailed) {
          throwError(Error::ErrMailboxFull, "mailbox of " + std::string(path()) + " is full");
        }
      }
      return;
  }
  if (state_ == State::Running && !scheduled_) schedule();
}

// Here, where AsyncState is complete.
ActorCell::Rare::~Rare() = default;

// Declared in include/coreactor/detail/ActorAllocation.hpp.
void* ActorAllocation::operator new(std::size_t size) {
  return SmallBlocks::get(size);
}
void ActorAllocation::operator delete(void* block, std::size_t size) noexcept {
  SmallBlocks::put(block, size);
}
void* ActorAllocation::operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return SmallBlocks::get(size);
  } catch (...) {
    return nullptr;
  }
}
void ActorAllocation::operator delete(void* block, const std::nothrow_t&) noexcept {
  ::operator delete(block);  // a block of the cache is operator-new memory
}

}  // namespace coreactor::detail
