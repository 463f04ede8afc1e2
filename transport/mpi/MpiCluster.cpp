// transport/mpi/MpiCluster.cpp — Cluster::mpi (coreactor/Cluster.hpp): a
// cluster over MPI_COMM_WORLD, initializing and finalizing MPI when the
// program has not.
#include <mpi.h>

#include <memory>
#include <mutex>

#include "coreactor/Cluster.hpp"
#include "coreactor/Error.hpp"
#include "transport/mpi/MpiLink.hpp"

namespace coreactor {

namespace {

/// MPI as Cluster::mpi initialized it: finalized when the last cluster
/// holding it goes. Every Cluster::mpi made while it lives holds it too, so
/// clusters may go in any order: MPI is finalized once, after the last link.
class MpiOwner {
 public:
  MpiOwner() = default;
  ~MpiOwner() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0) MPI_Finalize();
  }
  MpiOwner(const MpiOwner&) = delete;
  MpiOwner& operator=(const MpiOwner&) = delete;
};

/// The process's owner, while a cluster holds it.
std::mutex gOwnerMutex;
std::weak_ptr<MpiOwner> gOwner;

/// The owner to hold for a new cluster: the live one, or a new one if
/// this call initializes MPI; none if the program initialized MPI itself.
std::shared_ptr<MpiOwner> holdMpi(int* argc, char*** argv) {
  std::lock_guard<std::mutex> lock(gOwnerMutex);
  if (std::shared_ptr<MpiOwner> live = gOwner.lock()) return live;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) return nullptr;  // the program's: it finalizes MPI
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throwError(Error::ErrInvalidOption,
               "this MPI gives no thread support beyond MPI_THREAD_FUNNELED; the cluster's "
               "link needs MPI_THREAD_SERIALIZED");
  }
  auto owner = std::make_shared<MpiOwner>();
  gOwner = owner;
  return owner;
}

}  // namespace

std::shared_ptr<Cluster> Cluster::mpi(int* argc, char*** argv, const MpiOptions& options) {
  std::shared_ptr<MpiOwner> owner = holdMpi(argc, argv);
  auto link = std::make_unique<transport::MpiLink>(MPI_COMM_WORLD, options);
  std::function<void()> atEnd;
  if (owner != nullptr) {
    // Runs after the link is gone: the last cluster's finalizes MPI.
    atEnd = [owner = std::move(owner)]() mutable { owner.reset(); };
  }
  return std::shared_ptr<Cluster>(new Cluster(std::move(link), std::move(atEnd)));
}

}  // namespace coreactor
