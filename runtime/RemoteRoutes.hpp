// runtime/RemoteRoutes.hpp — a system's side of a cluster: which isolates
// of the other ranks its references name, how a message to one of them
// becomes bytes for the process link, and how what arrives becomes
// deliveries. coreactor/Cluster.hpp tells the user's side.
//
// Numbering. This system's isolates are 0 .. n-1 as always; the isolates of
// the other ranks follow, rank by rank: rank r's isolate k is
// firstIsolate_[r] + k here. A reference to a remote actor is then an
// ActorRef of this system whose isolate index is past its own: every local
// path stays as it was, and the general send path (SystemCore::sendElsewhere)
// hands such a target to send(). On the wire a reference is (rank, the id it
// has on its own rank); each side translates.
//
// A unit (one message or signal, the link's unit of bytes):
//   [u8 kind][u64 target id on the receiving rank][u32 rank][u64 id]
//   [a frame: coreactor/Remote.hpp, for a message]
// The reference after the target is the sender of a message, or the
// watcher of a watch or unwatch; none has rank kNoRank. The signals that
// cross are stop, watch and unwatch; a watched actor's Terminated comes
// back as a message.
//
// Threads: send() runs on whichever thread sends (an isolate, a foreign
// thread); receive() on the link's thread, where each message is delivered
// as a tell from a thread that is no isolate (the foreign inbox, with its
// backpressure).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Cluster.hpp"
#include "coreactor/Remote.hpp"
#include "runtime/MailFifo.hpp"
#include "runtime/SystemMessage.hpp"
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
  /// Collective: every message any rank sent before its stop is delivered.
  void stop();

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return static_cast<int>(isolatesOf_.size()); }
  /// The cluster's isolates: this system's and every other rank's.
  std::uint32_t totalIsolates() const noexcept { return total_; }
  /// True for a reference whose isolate is another rank's.
  bool routes(const ActorRef& ref) const noexcept {
    return ref.isolateIndex() >= localCount_ && ref.isolateIndex() < total_;
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
  /// A stop of, or a watch or unwatch by `ref` of, an actor of another
  /// rank. False for any other kind (those never cross) or once the link
  /// has stopped.
  bool sendSystem(const ActorRef& target, SystemKind kind, const ActorRef& ref);
  void receive(int fromRank, std::string_view bytes) override;

  /// A reference as the wire carries it, and back (ActorRef's cereal
  /// save/load, on the thread that encodes or decodes).
  WireRef toWire(const ActorRef& ref) const;
  ActorRef fromWire(const WireRef& ref) const;

  ClusterStats stats() const noexcept;

 private:
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

  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> received_{0};
  std::atomic<std::uint64_t> delivered_{0};
  std::atomic<std::uint64_t> undecodable_{0};
  std::atomic<std::uint64_t> refusedAtSend_{0};
};

}  // namespace coreactor::detail
