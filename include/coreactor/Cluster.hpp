/// @file
/// `coreactor/Cluster.hpp` — the processes (MPI ranks) of one program whose
/// actor systems work as one.
//
// Every rank runs the same program: it joins the cluster, registers the
// message types that cross (coreactor/Remote.hpp), and creates its actor
// system with the cluster, at the same point on every rank (creating the
// system is collective: the ranks learn one another's isolates there):
//
//   auto cluster = Cluster::mpi(&argc, &argv);          // link coreactor::mpi
//   registerRemoteType<Count>("demo.Count");
//   auto system = ActorSystem::create("demo",
//       ActorSystemOptions::create().withCluster(cluster));
//   ... system->lookup(rank, "counter") ... ref.tell(Count{1}) ...
//   system->shutdown();                                  // collective too
//
// A reference to an actor of another rank is an ActorRef like any other: it
// can be told, asked, kept, compared, hashed and sent inside messages (a
// type that holds one crosses through cereal: give it a `serialize`). In
// this process it names the remote isolate by a number past this system's
// own isolates (ActorSystem::rankOf says which rank), so the whole cluster
// may hold at most 4096 isolates.
//
// What crosses: tell, ask (the timeout runs on the asker's rank), replies,
// references inside messages, watch/unwatch (Terminated comes back as a
// message), ActorSystem::stop, and schedules aimed at an actor of another
// rank (each tick crosses as a tell; docs/cluster.md says what differs).
//
// Shutdown is collective: each rank's shutdown() (or the system's
// destruction) waits until every rank has begun its own, and delivers every
// message any rank sent before that, to an actor or as a dead letter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace coreactor {

namespace transport {
class ProcessLink;
}  // namespace transport
namespace detail {
struct ClusterAccess;  // the runtime's way in (runtime/cluster/ClusterAccess.hpp)
}  // namespace detail

/// Counters of one rank's traffic with the others (ActorSystem::clusterStats).
/// Across all ranks, after shutdown: the sum of `sent` equals the sum of
/// `received`, and each received message was delivered to an actor, became
/// a dead letter there, or is counted in `undecodable`.
struct ClusterStats {
  std::uint64_t sent = 0;           ///< messages handed to the link for another rank
  std::uint64_t received = 0;       ///< messages that arrived from another rank
  std::uint64_t delivered = 0;      ///< received and handed to this system (actor or dead letter)
  std::uint64_t undecodable = 0;    ///< received but not decoded (unknown type, bad bytes): logged
  std::uint64_t refusedAtSend = 0;  ///< sends refused (not serializable, too large): a tell,
                                    ///< ask or reply that threw, a schedule's failed result
  std::uint64_t bytesSent = 0;      ///< bytes of messages handed to the link, since it was made
  std::uint64_t bytesReceived = 0;  ///< bytes of messages the link received, since it was made
  std::uint64_t batchesSent = 0;    ///< transport messages: one carries many messages
  std::uint64_t toLeftRanks = 0;    ///< messages for a rank that had left: dead letters here
  std::uint64_t ranksLeft = 0;      ///< other ranks that have said they are leaving
  std::uint64_t sharedMemoryRanks = 0;  ///< other ranks reached through shared memory (MpiOptions)
};

/// How the link of Cluster::mpi moves bytes between ranks.
///
/// Ranks on one machine (one node of MPI_COMM_TYPE_SHARED) pass their bytes
/// through rings in memory they share (MPI_Win_allocate_shared), one ring
/// per ordered pair of such ranks, instead of MPI messages: a look for what
/// came is a load, not an MPI progress call, and a message costs a copy in
/// and a copy out. Ranks on other machines always talk MPI (docs/cluster.md,
/// "How it works"). Each rank gives (ranks on its machine - 1) rings of
/// sharedRingBytes() of its memory.
class MpiOptions {
 public:
  /// The defaults: shared memory on, rings of kDefaultSharedRingBytes.
  static MpiOptions create() { return MpiOptions(); }
  /// Whether ranks on one machine use rings in shared memory (default) or
  /// MPI messages, as ranks on different machines do.
  MpiOptions withSharedMemory(bool on) const;
  /// The bytes of each ring, rounded up to a power of two. A message larger
  /// than a ring still passes, in pieces. ErrInvalidOption below
  /// kMinSharedRingBytes or above kMaxSharedRingBytes.
  MpiOptions withSharedRingBytes(std::size_t bytes) const;

  /// The bytes of a ring by default, 256 KiB: a flood's batches pass in a
  /// few writes, and a rank with 15 others on its machine gives 3.75 MiB.
  static constexpr std::size_t kDefaultSharedRingBytes = std::size_t{256} << 10;
  /// The smallest ring withSharedRingBytes() takes: 4 KiB.
  static constexpr std::size_t kMinSharedRingBytes = std::size_t{4} << 10;
  /// The largest ring withSharedRingBytes() takes: 1 GiB.
  static constexpr std::size_t kMaxSharedRingBytes = std::size_t{1} << 30;

  /// Whether shared memory is on.
  bool sharedMemory() const noexcept { return sharedMemory_; }
  /// The bytes of each ring (a power of two).
  std::size_t sharedRingBytes() const noexcept { return sharedRingBytes_; }

 private:
  bool sharedMemory_ = true;
  std::size_t sharedRingBytes_ = kDefaultSharedRingBytes;
};

/// The processes of one program whose systems work as one (see the file's
/// comment). Shared by the system that uses it; one system at a time.
class Cluster {
 public:
  /// Joins the ranks of MPI_COMM_WORLD. Initializes MPI (asking for
  /// MPI_THREAD_MULTIPLE) unless the program already did, and then
  /// finalizes it once, after the last cluster made by mpi() goes: every
  /// such cluster holds MPI, so they may be released in any order. A
  /// program that initialized MPI itself finalizes it itself, and must ask
  /// for MPI_THREAD_SERIALIZED or more (ErrInvalidOption otherwise).
  /// Collective. Defined in the coreactor_mpi library (CMake target
  /// coreactor::mpi).
  static std::shared_ptr<Cluster> mpi(int* argc = nullptr, char*** argv = nullptr,
                                      const MpiOptions& options = MpiOptions::create());

  /// Leaves the cluster's link; what mpi() set up to run last (MPI's
  /// finalization, after the last cluster) runs then.
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  /// This process's rank, from 0.
  int rank() const noexcept;
  /// How many ranks the cluster has.
  int size() const noexcept;

 private:
  friend struct detail::ClusterAccess;
  // A cluster over a link between processes; `atEnd` runs after the link
  // is destroyed. Made by mpi().
  explicit Cluster(std::unique_ptr<transport::ProcessLink> link, std::function<void()> atEnd = {});
  // The link the cluster's system talks through.
  transport::ProcessLink& link() noexcept { return *link_; }
  // Claims the cluster for a system; false if one has it.
  bool attach() noexcept;
  // Gives the cluster back when that system goes.
  void detach() noexcept;

  std::unique_ptr<transport::ProcessLink> link_;
  std::function<void()> atEnd_;
  bool attached_ = false;
};

}  // namespace coreactor
