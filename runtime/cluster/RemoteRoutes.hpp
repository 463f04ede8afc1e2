// runtime/cluster/RemoteRoutes.hpp — a system's side of a cluster: which isolates
// of the other ranks its references name, how a message to one of them
// becomes bytes for the process link, and how what arrives becomes
// deliveries. coreactor/Cluster.hpp tells the user's side.
//
// Numbering. This system's isolates are 0 .. n-1 as always; the isolates of
// the other ranks follow, rank by rank: rank r's isolate k is
// firstIsolate_[r] + k here. A reference to a remote actor is then an
// ActorRef of this system whose isolate index is past its own: every local
// path stays as it was, and the general send path (Delivery::sendElsewhere)
// hands such a target to send(). On the wire a reference is (rank, the id it
// has on its own rank); each side translates.
//
// A unit (one message or signal, the link's unit of bytes):
//   [u8 kind][u64 target id on the receiving rank][u32 rank][u64 id]
//   [a frame: coreactor/Remote.hpp, for a message]
// The reference after the target is the sender of a message, or the
// watcher of a watch or unwatch; none has rank kNoRank. The signals that
// cross are stop, watch and unwatch; a watched actor's Terminated comes
// back as a message. Two more kinds: "ask failed" (the target is a reply
// slot of the receiving rank whose request reached an actor that had
// stopped: it fails with ErrDead, as locally) and "leave" (no target: the
// sending rank's system is shutting down and its actors have stopped).
//
// A rank that leaves. Its teardown sends "leave" to every other rank
// before the collective stop of the link. Each rank that hears it marks the
// rank as gone: the asks it has in flight there fail with ErrDead (this
// side keeps the reply slots of its remote asks, by rank, until their
// timeouts pass), and from then on a tell to it is a dead letter here, an
// ask fails at once with ErrDead, and a watch answers Terminated at once.
//
// Threads: send() runs on whichever thread sends (an isolate, a foreign
// thread); receive() on the link's thread, or on an isolate's loop that does
// the link's work between its turns (pollerOf: the loop's poller calls the
// link's progress()). Either way each message goes into its target
// isolate's foreign inbox (with its backpressure for the link's thread),
// one rank's units in the order they came.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Cluster.hpp"
#include "coreactor/Isolate.hpp"
#include "coreactor/Remote.hpp"
#include "runtime/MailFifo.hpp"
#include "runtime/SystemMessage.hpp"
#include "runtime/cluster/ForeignAsks.hpp"
#include "transport/ProcessLink.hpp"

namespace coreactor::detail {

class SystemCore;
using SystemKind = SystemMessage::Kind;

/// ActorSystem::lookup's question to another rank: the top-level actor of
/// this name, or none.
struct LookupRequest {
  std::string name;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(name);
  }
};

class RemoteRoutes final : public transport::ProcessReceiver {
 public:
  static constexpr std::uint32_t kNoRank = 0xFFFFFFFF;

  /// Collective: learns every rank's isolates and lookup service. Throws
  /// ErrInvalidOption if the cluster already serves a system or if the
  /// cluster's isolates exceed 4096.
  RemoteRoutes(SystemCore& core, std::shared_ptr<Cluster> cluster, std::size_t messageLimit);
  ~RemoteRoutes() override;

  /// Starts the link.
  void start();
  /// The poller of isolate `isolate`'s loop: it does the link's work when
  /// no other thread is (ProcessLink::progress), once per loop iteration
  /// and while the loop polls before it sleeps. Made before the loops run.
  detail::Poller& pollerOf(std::size_t isolate);
  /// Tells every other rank that this one is leaving: its actors have
  /// stopped (after every loop of the system has).
  void leave();
  /// Collective: every message any rank sent before its stop is delivered.
  void stop();
  /// True once `rank` has said it is leaving.
  bool hasLeft(int rank) const noexcept {
    return rank >= 0 && rank < size() && left_[static_cast<std::size_t>(rank)].load();
  }

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return static_cast<int>(isolatesOf_.size()); }
  /// The cluster's isolates: this system's and every other rank's.
  std::uint32_t totalIsolates() const noexcept { return total_; }
  /// True for a reference of this system whose isolate is another rank's:
  /// an actor of another rank. A call (the system's test is SystemCore's).
  bool routes(const ActorRef& ref) const noexcept;
  /// `remote`'s routes(ref), false for a system without a cluster (`remote`
  /// null: SystemCore::remote()), which costs a load and a test, no call.
  static bool isRemote(const RemoteRoutes* remote, const ActorRef& ref) noexcept {
    return remote != nullptr && remote->routes(ref);
  }
  /// The rank of a reference of this system (this one's for a local isolate).
  int rankOf(const ActorRef& ref) const noexcept;
  /// The lookup service of `rank`, as a reference here.
  ActorRef serviceOf(int rank) const;

  /// A message to an actor of another rank (routes(target)). Throws
  /// ErrNotSerializable (a type not registered, a reference of another
  /// system inside it) or ErrMessageTooLarge; nothing is sent then. Once
  /// the link has stopped, the message is a dead letter here.
  void send(const ActorRef& target, Message&& message, const ActorRef& sender);
  /// Throws what send() would throw for `message`, ErrNotSerializable or
  /// ErrMessageTooLarge (counted in refusedAtSend), and sends nothing: for
  /// a call that would otherwise find out only later, on another thread
  /// (an ask from outside, a schedule's ticks). Any thread; costs an
  /// encoding of the message, which send() makes again.
  void checkCrossable(const Message& message);
  /// A stop of, or a watch or unwatch by `ref` of, an actor of another
  /// rank. False for any other kind (those never cross) or once the link
  /// has stopped.
  bool sendSystem(const ActorRef& target, SystemKind kind, const ActorRef& ref);
  /// Fails the ask whose reply slot `replyTo` is (on another rank) with
  /// `error`: its request reached an actor of this rank that had stopped
  /// (ErrDead) or whose mailbox refused it (ErrMailboxFull; any other error
  /// crosses as ErrDead).
  void failAsk(const ActorRef& replyTo, std::error_code error);
  /// Keeps `replyTo`, the reply slot of an ask to `target` (an actor of
  /// another rank), until its timeout has passed: if that rank leaves
  /// meanwhile, the ask fails with ErrDead. On the slot's isolate, once
  /// its timeout is armed.
  void trackAsk(const ActorRef& target, const ActorRef& replyTo, std::chrono::nanoseconds timeout);
  /// The reply slots of asks from foreign threads to actors of
  /// other ranks: on no loop, completed where the reply is taken from the
  /// link (ForeignAsks.hpp).
  ForeignAsks& foreignAsks() noexcept { return foreignAsks_; }
  void receive(int fromRank, std::string_view bytes) override;

  /// A reference as the wire carries it, and back (ActorRef's cereal
  /// save/load, on the thread that encodes or decodes).
  WireRef toWire(const ActorRef& ref) const;
  ActorRef fromWire(const WireRef& ref) const;

  ClusterStats stats() const noexcept;

 private:
  // Does the link's work from a loop (see pollerOf).
  class LinkPoller final : public detail::Poller {
   public:
    explicit LinkPoller(transport::ProcessLink& link) : link_(link) {}
    void poll() override {
      if (!awake_) unblocked();  // the loop's first pass
      link_.progress();
    }
    // The link's thread leaves the work to this loop while it is awake.
    void blocking() noexcept override {
      if (awake_) {
        awake_ = false;
        link_.loopSleeps();
      }
    }
    void unblocked() noexcept override {
      if (!awake_) {
        awake_ = true;
        link_.loopWakes();
      }
    }
    bool looksBetweenUnits() const noexcept override { return false; }
    bool pending() const noexcept override { return false; }
    // The idle window: what the link's progress delivered is in a foreign
    // inbox, which that loop sees at once.
    bool ready() const noexcept override { return link_.progress(); }

   private:
    transport::ProcessLink& link_;
    bool awake_ = false;  // told the link so (loop thread only)
  };

  // Where the link's receive() runs: `rank` is leaving.
  void heardLeave(int rank);
  // Throws ErrMessageTooLarge for a unit of `bytes` carrying `message`
  // (`to`: its rank, if known).
  void checkLimit(const Message& message, std::size_t bytes, std::string_view to) const;

  SystemCore& core_;
  std::shared_ptr<Cluster> cluster_;
  transport::ProcessLink& link_;
  std::size_t messageLimit_;
  int rank_ = 0;
  std::uint32_t localCount_ = 0;
  std::uint32_t total_ = 0;
  std::vector<std::uint32_t> firstIsolate_;  // by rank: its isolate 0, numbered here
  std::vector<std::uint32_t> isolatesOf_;    // by rank
  std::vector<int> rankOfIsolate_;           // by isolate number here
  bool started_ = false;
  bool stopped_ = false;
  bool leaveSent_ = false;
  std::unique_ptr<std::atomic<bool>[]> left_;         // by rank: it said it is leaving
  std::vector<std::unique_ptr<LinkPoller>> pollers_;  // by isolate

  // The reply slots of asks in flight to each rank, with the time after
  // which they have surely completed (their timeout): pruned from the front.
  struct TrackedAsk {
    ActorRef replyTo;
    std::chrono::steady_clock::time_point over;
  };
  std::mutex asksMutex_;
  std::vector<std::deque<TrackedAsk>> asksTo_;  // by rank
  ForeignAsks foreignAsks_;

  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> received_{0};
  std::atomic<std::uint64_t> delivered_{0};
  std::atomic<std::uint64_t> undecodable_{0};
  std::atomic<std::uint64_t> refusedAtSend_{0};
  std::atomic<std::uint64_t> toLeftRanks_{0};
  std::atomic<std::uint64_t> ranksLeft_{0};
};

/// Whether `ref` names an actor `core` (a SystemCore) can reach: one of
/// its own isolates' (the actor may be gone) or another rank's. A template
/// only so that this header needs no SystemCore definition: SystemCore.hpp
/// cannot include this one.
template <class Core>
bool reachable(const Core& core, const ActorRef& ref) noexcept {
  return core.isOurs(ref) || RemoteRoutes::isRemote(core.remote(), ref);
}

}  // namespace coreactor::detail
