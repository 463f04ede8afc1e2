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
// message) and ActorSystem::stop. Not yet: schedules whose target is on
// another rank (a schedule made on the target's rank works).
//
// Shutdown is collective: each rank's shutdown() (or the system's
// destruction) waits until every rank has begun its own, and delivers every
// message any rank sent before that, to an actor or as a dead letter.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace coreactor {

namespace transport {
class ProcessLink;
}  // namespace transport

/// Counters of one rank's traffic with the others (ActorSystem::clusterStats).
/// Across all ranks, after shutdown: the sum of `sent` equals the sum of
/// `received`, and each received message was delivered to an actor, became
/// a dead letter there, or is counted in `undecodable`.
struct ClusterStats {
  std::uint64_t sent = 0;           ///< messages handed to the link for another rank
  std::uint64_t received = 0;       ///< messages that arrived from another rank
  std::uint64_t delivered = 0;      ///< received and handed to this system (actor or dead letter)
  std::uint64_t undecodable = 0;    ///< received but not decoded (unknown type, bad bytes): logged
  std::uint64_t refusedAtSend = 0;  ///< sends that threw (type not registered, too large)
  std::uint64_t bytesSent = 0;      ///< bytes of messages handed to the link, since it was made
  std::uint64_t bytesReceived = 0;  ///< bytes of messages the link received, since it was made
  std::uint64_t batchesSent = 0;    ///< transport messages: one carries many messages
  std::uint64_t toLeftRanks = 0;    ///< messages for a rank that had left: dead letters here
  std::uint64_t ranksLeft = 0;      ///< other ranks that have said they are leaving
};

/// The processes of one program whose systems work as one (see the file's
/// comment). Shared by the system that uses it; one system at a time.
class Cluster {
 public:
  /// Joins the ranks of MPI_COMM_WORLD. Initializes MPI (asking for
  /// MPI_THREAD_MULTIPLE) unless the program already did, and then
  /// finalizes it when the last reference to the cluster goes; a program
  /// that initialized MPI itself must ask for MPI_THREAD_SERIALIZED or more
  /// (ErrInvalidOption otherwise). Collective. Defined in the coreactor_mpi
  /// library (CMake target coreactor::mpi).
  static std::shared_ptr<Cluster> mpi(int* argc = nullptr, char*** argv = nullptr);

  /// A cluster over any link between processes; `atEnd` runs after the link
  /// is destroyed (MPI_Finalize, for mpi()).
  explicit Cluster(std::unique_ptr<transport::ProcessLink> link, std::function<void()> atEnd = {});
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  /// This process's rank, from 0.
  int rank() const noexcept;
  /// How many ranks the cluster has.
  int size() const noexcept;

  /// The runtime's: the link the cluster's system talks through.
  transport::ProcessLink& link() noexcept { return *link_; }
  /// The runtime's: claims the cluster for a system; false if one has it.
  bool attach() noexcept;
  /// The runtime's: gives the cluster back when that system goes.
  void detach() noexcept;

 private:
  std::unique_ptr<transport::ProcessLink> link_;
  std::function<void()> atEnd_;
  bool attached_ = false;
};

}  // namespace coreactor
