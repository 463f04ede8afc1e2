// runtime/cluster/RemoteRoutes.cpp — see the header.
#include "runtime/cluster/RemoteRoutes.hpp"

#include <cereal/types/string.hpp>
#include <cstring>

#include "runtime/SystemCore.hpp"
#include "runtime/SystemMessage.hpp"
#include "runtime/cluster/ClusterAccess.hpp"
#include "transport/SoleWriter.hpp"

namespace coreactor {

/// cereal's way to write a Terminated: the reference it carries.
template <class Archive>
void serialize(Archive& archive, Terminated& terminated) {
  archive(terminated.actor);
}

}  // namespace coreactor

namespace coreactor::detail {

namespace {

/// The routes of the message this thread is encoding or decoding, for the
/// references inside it (refToWire, refFromWire).
thread_local const RemoteRoutes* tRoutes = nullptr;

struct RoutesScope {
  explicit RoutesScope(const RemoteRoutes* routes) noexcept : saved(tRoutes) { tRoutes = routes; }
  ~RoutesScope() { tRoutes = saved; }
  RoutesScope(const RoutesScope&) = delete;
  RoutesScope& operator=(const RoutesScope&) = delete;
  const RemoteRoutes* saved;
};

/// The id of a rank's lookup service: isolate 0, the slot no actor table
/// hands out, generation 0.
constexpr std::uint64_t kServiceId = std::uint64_t{0xFFFFFF} << 28;

/// What a unit carries: a user message (then a frame follows), or one of
/// the lifecycle signals that cross (no frame; the reference is the
/// watcher's for a watch).
enum class UnitKind : std::uint8_t {
  Message = 0,
  Stop = 1,
  Watch = 2,
  Unwatch = 3,
  AskFailed = 4,  // the target is a reply slot here whose request found a stopped actor
  Leave = 5,      // no target: the sending rank is leaving
};

/// [kind: 1][target id: 8][reference's rank: 4][reference's id: 8]
constexpr std::size_t kUnitHeader = 1 + 8 + 4 + 8;

std::string unitHeader(UnitKind kind, const WireRef& to, const WireRef& ref) {
  std::string unit(kUnitHeader, '\0');
  unit[0] = static_cast<char>(kind);
  std::memcpy(unit.data() + 1, &to.id, 8);
  std::memcpy(unit.data() + 9, &ref.rank, 4);
  std::memcpy(unit.data() + 13, &ref.id, 8);
  return unit;
}

std::uint64_t withIsolate(std::uint64_t id, std::uint32_t isolate) noexcept {
  return (id & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{isolate} << 52);
}

/// The runtime's own messages cross without the program registering them
/// (docs/cluster.md). A program that registered one itself, under a name
/// of its own, keeps that name: every rank runs the same program.
template <class T>
void registerBuiltIn(std::string_view name) {
  if (!wire::isRegistered(Message(T{}))) registerRemoteType<T>(name);
}

}  // namespace

// ---- references inside messages -----------------------------------------------------

WireRef refToWire(const ActorRef& ref) {
  if (tRoutes == nullptr) {
    throwError(Error::ErrNotSerializable,
               "an ActorRef is written only inside a message for another rank");
  }
  return tRoutes->toWire(ref);
}

ActorRef refFromWire(const WireRef& ref) {
  if (tRoutes == nullptr) {
    throwError(Error::ErrMalformedFrame, "an ActorRef is read only from a message of another rank");
  }
  return tRoutes->fromWire(ref);
}

// ---- set-up -------------------------------------------------------------------------

RemoteRoutes::RemoteRoutes(SystemCore& core, std::shared_ptr<Cluster> cluster,
                           std::size_t messageLimit)
    : core_(core),
      cluster_(std::move(cluster)),
      link_(ClusterAccess::link(*cluster_)),
      messageLimit_(messageLimit),
      rank_(link_.rank()),
      localCount_(static_cast<std::uint32_t>(core.isolateCount())) {
  if (!ClusterAccess::attach(*cluster_)) {
    throwError(Error::ErrInvalidOption, "the cluster already serves another actor system");
  }
  registerBuiltIn<ActorRef>("coreactor.ActorRef");
  registerBuiltIn<LookupRequest>("coreactor.LookupRequest");
  registerBuiltIn<Terminated>("coreactor.Terminated");
  registerBuiltIn<PoisonPill>("coreactor.PoisonPill");
  const std::vector<std::uint64_t> counts = link_.allGather(localCount_);
  std::uint64_t total = 0;
  for (const std::uint64_t n : counts) total += n;
  if (total > 4096) {
    ClusterAccess::detach(*cluster_);
    throwError(Error::ErrInvalidOption, "a cluster of " + std::to_string(total) +
                                            " isolates: at most 4096 in all ranks together");
  }
  total_ = static_cast<std::uint32_t>(total);
  left_ = std::make_unique<std::atomic<bool>[]>(counts.size());
  asksTo_.resize(counts.size());
  firstIsolate_.assign(counts.size(), 0);
  isolatesOf_.assign(counts.size(), 0);
  rankOfIsolate_.assign(total_, rank_);
  std::uint32_t next = localCount_;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    isolatesOf_[r] = static_cast<std::uint32_t>(counts[r]);
    if (static_cast<int>(r) == rank_) continue;
    firstIsolate_[r] = next;
    for (std::uint32_t k = 0; k < isolatesOf_[r]; ++k)
      rankOfIsolate_[next + k] = static_cast<int>(r);
    next += isolatesOf_[r];
  }
}

RemoteRoutes::~RemoteRoutes() {
  ClusterAccess::detach(*cluster_);
}

void RemoteRoutes::start() {
  link_.start(*this);
  started_ = true;
}

detail::Poller& RemoteRoutes::pollerOf(std::size_t isolate) {
  while (pollers_.size() <= isolate) pollers_.push_back(std::make_unique<LinkPoller>(link_));
  return *pollers_[isolate];
}

void RemoteRoutes::leave() {
  if (!started_ || stopped_ || leaveSent_) return;
  leaveSent_ = true;
  for (int rank = 0; rank < size(); ++rank) {
    if (rank == rank_) continue;
    if (link_.send(rank, unitHeader(UnitKind::Leave, WireRef{}, WireRef{kNoRank, 0}))) {
      sent_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void RemoteRoutes::stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  link_.stop();
}

int RemoteRoutes::rankOf(const ActorRef& ref) const noexcept {
  return ref.isolateIndex() < total_ ? rankOfIsolate_[ref.isolateIndex()] : -1;
}

ActorRef RemoteRoutes::serviceOf(int rank) const {
  if (rank < 0 || rank >= size()) {
    throwError(Error::ErrInvalidOption,
               "rank " + std::to_string(rank) + " of a cluster of " + std::to_string(size()));
  }
  return core_.makeRef(withIsolate(kServiceId, rank == rank_ ? 0 : firstIsolate_[rank]));
}

// ---- references ---------------------------------------------------------------------

bool RemoteRoutes::routes(const ActorRef& ref) const noexcept {
  return core_.minted(ref) && ref.isolateIndex() >= localCount_ && ref.isolateIndex() < total_;
}

WireRef RemoteRoutes::toWire(const ActorRef& ref) const {
  if (ref.isNone()) return WireRef{};
  if (core_.routers().isRouter(ref)) {
    throwError(Error::ErrNotSerializable,
               "a router's reference cannot cross to another rank (its routees' can)");
  }
  if (!core_.isOurs(ref) && !routes(ref)) {
    throwError(Error::ErrNotSerializable,
               "a reference of another actor system cannot cross to another rank");
  }
  const std::uint32_t isolate = ref.isolateIndex();
  if (isolate < localCount_) return WireRef{static_cast<std::uint32_t>(rank_), ref.id()};
  const int rank = rankOfIsolate_[isolate];
  return WireRef{static_cast<std::uint32_t>(rank),
                 withIsolate(ref.id(), isolate - firstIsolate_[static_cast<std::size_t>(rank)])};
}

ActorRef RemoteRoutes::fromWire(const WireRef& ref) const {
  if (ref.rank == kNoRank) return ActorRef();
  if (ref.rank >= isolatesOf_.size()) {
    throwError(Error::ErrMalformedFrame, "a reference to rank " + std::to_string(ref.rank) +
                                             " of a cluster of " + std::to_string(size()));
  }
  const auto isolate = static_cast<std::uint32_t>(ref.id >> 52);
  if (isolate >= isolatesOf_[ref.rank]) {
    throwError(Error::ErrMalformedFrame, "a reference to isolate " + std::to_string(isolate) +
                                             " of rank " + std::to_string(ref.rank) +
                                             ", which has " +
                                             std::to_string(isolatesOf_[ref.rank]));
  }
  if (static_cast<int>(ref.rank) == rank_) return core_.makeRef(ref.id);
  return core_.makeRef(withIsolate(ref.id, firstIsolate_[ref.rank] + isolate));
}

// ---- sending ------------------------------------------------------------------------

void RemoteRoutes::send(const ActorRef& target, Message&& message, const ActorRef& sender) {
  if (const int rank = rankOf(target); hasLeft(rank)) {
    // Its actors have stopped: what it would have received is a dead letter
    // here, and an ask fails at once.
    toLeftRanks_.fetch_add(1, std::memory_order_relaxed);
    core_.asks().failAskOf(sender, make_error_code(Error::ErrDead));
    core_.delivery().deadLetter(target, Envelope{std::move(message), sender},
                                "the actor's rank has left the cluster");
    return;
  }
  std::string unit;
  try {
    const RoutesScope scope(this);
    const WireRef to = toWire(target);
    unit = unitHeader(UnitKind::Message, to, toWire(sender));
    wire::encode(message, unit);
    checkLimit(message, unit.size(), " for rank " + std::to_string(to.rank));
  } catch (...) {
    refusedAtSend_.fetch_add(1, std::memory_order_relaxed);
    throw;
  }
  const int rank = rankOf(target);
  if (!link_.send(rank, std::move(unit))) {
    // The link stopped (the system is going away): what it would have
    // carried is this rank's dead letter.
    core_.delivery().deadLetter(target, Envelope{std::move(message), sender},
                                "the cluster link has stopped");
    return;
  }
  sent_.fetch_add(1, std::memory_order_relaxed);
}

void RemoteRoutes::checkCrossable(const Message& message) {
  try {
    const RoutesScope scope(this);
    std::string frame;
    wire::encode(message, frame);
    checkLimit(message, kUnitHeader + frame.size(), "");
  } catch (...) {
    refusedAtSend_.fetch_add(1, std::memory_order_relaxed);
    throw;
  }
}

void RemoteRoutes::checkLimit(const Message& message, std::size_t bytes,
                              std::string_view to) const {
  if (bytes <= messageLimit_) return;
  throwError(Error::ErrMessageTooLarge, std::string(message.typeName()) + " encodes to " +
                                            std::to_string(bytes) + " bytes" + std::string(to) +
                                            "; the limit is " + std::to_string(messageLimit_) +
                                            " (ActorSystemOptions::withCluster)");
}

bool RemoteRoutes::sendSystem(const ActorRef& target, SystemKind kind, const ActorRef& ref) {
  UnitKind unitKind = UnitKind::Stop;
  if (kind == SystemKind::Watch) unitKind = UnitKind::Watch;
  if (kind == SystemKind::Unwatch) unitKind = UnitKind::Unwatch;
  if (kind != SystemKind::Stop && unitKind == UnitKind::Stop) return false;  // never crosses
  if (hasLeft(rankOf(target))) {
    toLeftRanks_.fetch_add(1, std::memory_order_relaxed);
    return false;  // as to a stopped actor: a watch answers Terminated at once
  }
  std::string unit;
  {
    const RoutesScope scope(this);
    unit = unitHeader(unitKind, toWire(target), toWire(ref));
  }
  if (!link_.send(rankOf(target), std::move(unit))) return false;
  sent_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void RemoteRoutes::failAsk(const ActorRef& replyTo, std::error_code error) {
  const int rank = rankOf(replyTo);
  if (hasLeft(rank)) return;
  // The error rides in the reference's id.
  const Error crossing = error == Error::ErrMailboxFull ? Error::ErrMailboxFull : Error::ErrDead;
  std::string unit;
  try {
    const RoutesScope scope(this);
    unit = unitHeader(UnitKind::AskFailed, toWire(replyTo),
                      WireRef{kNoRank, static_cast<std::uint64_t>(crossing)});
  } catch (const std::exception&) {
    return;  // not a reference the wire can carry: nothing waits for it
  }
  if (link_.send(rank, std::move(unit))) sent_.fetch_add(1, std::memory_order_relaxed);
}

void RemoteRoutes::trackAsk(const ActorRef& target, const ActorRef& replyTo,
                            std::chrono::nanoseconds timeout) {
  const int rank = rankOf(target);
  if (rank < 0 || rank >= size()) return;
  const auto now = std::chrono::steady_clock::now();
  const auto left = std::chrono::steady_clock::time_point::max() - now;
  const auto over =
      now +
      std::min(std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout), left);
  std::lock_guard<std::mutex> lock(asksMutex_);
  std::deque<TrackedAsk>& asks = asksTo_[static_cast<std::size_t>(rank)];
  while (!asks.empty() && asks.front().over < now) asks.pop_front();
  asks.push_back({replyTo, over});
}

// ---- receiving (the link's thread) -------------------------------------------------

// The link calls receive() one unit at a time (ProcessLink.hpp), so its
// counters have one writer at a time: a load and a store, no locked add.
void RemoteRoutes::receive(int fromRank, std::string_view bytes) {
  const auto bump = [](std::atomic<std::uint64_t>& counter) {
    transport::addAsSoleWriter(counter, 1);
  };
  bump(received_);
  ActorRef target;
  ActorRef sender;
  Message message;
  UnitKind kind = UnitKind::Message;
  try {
    if (bytes.size() < kUnitHeader) {
      throwError(Error::ErrMalformedFrame, "a unit of " + std::to_string(bytes.size()) + " bytes");
    }
    const RoutesScope scope(this);
    kind = static_cast<UnitKind>(bytes[0]);
    if (kind == UnitKind::Leave) {
      bump(delivered_);
      heardLeave(fromRank);
      return;
    }
    if (kind > UnitKind::AskFailed) {
      throwError(Error::ErrMalformedFrame,
                 "a unit of kind " + std::to_string(static_cast<int>(kind)));
    }
    WireRef to{static_cast<std::uint32_t>(rank_), 0};
    WireRef from;
    std::memcpy(&to.id, bytes.data() + 1, 8);
    std::memcpy(&from.rank, bytes.data() + 9, 4);
    std::memcpy(&from.id, bytes.data() + 13, 8);
    target = fromWire(to);
    if (kind == UnitKind::AskFailed) {
      const Error error = from.id == static_cast<std::uint64_t>(Error::ErrMailboxFull)
                              ? Error::ErrMailboxFull
                              : Error::ErrDead;
      bump(delivered_);
      core_.asks().failAskOf(target, make_error_code(error));
      return;
    }
    sender = fromWire(from);
    if (kind == UnitKind::Message) {
      std::size_t used = 0;
      message = wire::decode(bytes.substr(kUnitHeader), used);
    }
  } catch (const std::exception& e) {
    bump(undecodable_);
    core_.log().error("a message from rank {} could not be decoded, dropped: {}", fromRank,
                      e.what());
    return;
  }
  bump(delivered_);
  if (kind != UnitKind::Message) {
    // A stop, or a watch by (an unwatch of) `sender`, an actor of the
    // sending rank: as if said here.
    const SystemKind signal = kind == UnitKind::Stop    ? SystemKind::Stop
                              : kind == UnitKind::Watch ? SystemKind::Watch
                                                        : SystemKind::Unwatch;
    core_.delivery().signalFromRank(
        target, SystemMessage{signal, signal == SystemKind::Stop ? ActorRef() : sender, nullptr});
    return;
  }
  if (target.id() == kServiceId) {
    // A lookup of a top-level actor by name: answered from here.
    ActorRef found;
    if (const LookupRequest* lookup = message.get<LookupRequest>()) {
      found = core_.spawns().topLevelNamed(lookup->name);
    }
    try {
      sender.tell(found);
    } catch (const std::exception& e) {
      core_.log().error("the answer to a lookup from rank {} was not sent: {}", fromRank, e.what());
    }
    return;
  }
  if (ForeignAsks::names(target)) {
    // The reply to an ask from a foreign thread: it completes
    // here, on the thread that took it from the link, whatever the loops do.
    if (!foreignAsks_.complete(target.generation(), &message, {})) {
      core_.delivery().deadLetter(
          target, Envelope{std::move(message), sender},
          "a reply to an ask that has already completed (answered, failed or timed out)");
    }
    return;
  }
  core_.delivery().deliverFromRank(target, Envelope{std::move(message), sender});
}

void RemoteRoutes::heardLeave(int rank) {
  if (rank < 0 || rank >= size() || rank == rank_) return;
  if (left_[static_cast<std::size_t>(rank)].exchange(true)) return;
  ranksLeft_.fetch_add(1, std::memory_order_relaxed);
  // Whatever that rank answered came before this, on the same link: the
  // asks still waiting will get no answer.
  std::deque<TrackedAsk> asks;
  {
    std::lock_guard<std::mutex> lock(asksMutex_);
    asks.swap(asksTo_[static_cast<std::size_t>(rank)]);
  }
  for (const TrackedAsk& ask : asks) {
    core_.asks().failAskOf(ask.replyTo, make_error_code(Error::ErrDead));
  }
  core_.log().info("rank {} has left the cluster; {} asks to it failed", rank, asks.size());
}

ClusterStats RemoteRoutes::stats() const noexcept {
  const transport::ProcessLinkStats link = link_.stats();
  ClusterStats s;
  s.sent = sent_.load(std::memory_order_relaxed);
  s.received = received_.load(std::memory_order_relaxed);
  s.delivered = delivered_.load(std::memory_order_relaxed);
  s.undecodable = undecodable_.load(std::memory_order_relaxed);
  s.refusedAtSend = refusedAtSend_.load(std::memory_order_relaxed);
  s.bytesSent = link.bytesSent;
  s.bytesReceived = link.bytesReceived;
  s.batchesSent = link.batchesSent;
  s.toLeftRanks = toLeftRanks_.load(std::memory_order_relaxed);
  s.ranksLeft = ranksLeft_.load(std::memory_order_relaxed);
  s.sharedMemoryRanks = link.sharedMemoryRanks;
  return s;
}

}  // namespace coreactor::detail
