// transport/mpi/MpiCluster.cpp — Cluster::mpi (coreactor/Cluster.hpp): a
// cluster over MPI_COMM_WORLD, initializing and finalizing MPI when the
// program has not.
#include <mpi.h>

#include "coreactor/Cluster.hpp"
#include "coreactor/Error.hpp"
#include "transport/mpi/MpiLink.hpp"

namespace coreactor {

std::shared_ptr<Cluster> Cluster::mpi(int* argc, char*** argv, const MpiOptions& options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  bool ours = false;
  if (initialized == 0) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    ours = true;
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throwError(Error::ErrInvalidOption,
                 "this MPI gives no thread support beyond MPI_THREAD_FUNNELED; the cluster's "
                 "link needs MPI_THREAD_SERIALIZED");
    }
  }
  std::function<void()> atEnd;
  if (ours) {
    atEnd = [] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (finalized == 0) MPI_Finalize();
    };
  }
  return std::make_shared<Cluster>(std::make_unique<transport::MpiLink>(MPI_COMM_WORLD, options),
                                   std::move(atEnd));
}

}  // namespace coreactor
