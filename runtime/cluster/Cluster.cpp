// runtime/cluster/Cluster.cpp — the cluster's own calls (coreactor/Cluster.hpp),
// MpiOptions and ActorSystemOptions::withCluster. Cluster::mpi is in the coreactor_mpi
// library (transport/mpi/MpiCluster.cpp).
#include "coreactor/Cluster.hpp"

#include <bit>
#include <string>

#include "coreactor/ActorSystemOptions.hpp"
#include "coreactor/Error.hpp"
#include "transport/ProcessLink.hpp"

namespace coreactor {

Cluster::Cluster(std::unique_ptr<transport::ProcessLink> link, std::function<void()> atEnd)
    : link_(std::move(link)), atEnd_(std::move(atEnd)) {
  if (link_ == nullptr) throwError(Error::ErrInvalidOption, "a cluster needs a link");
}

Cluster::~Cluster() {
  link_.reset();
  if (atEnd_) atEnd_();
}

int Cluster::rank() const noexcept {
  return link_->rank();
}

int Cluster::size() const noexcept {
  return link_->size();
}

bool Cluster::attach() noexcept {
  if (attached_) return false;
  attached_ = true;
  return true;
}

void Cluster::detach() noexcept {
  attached_ = false;
}

MpiOptions MpiOptions::withSharedMemory(bool on) const {
  MpiOptions copy = *this;
  copy.sharedMemory_ = on;
  return copy;
}

MpiOptions MpiOptions::withSharedRingBytes(std::size_t bytes) const {
  if (bytes < kMinSharedRingBytes || bytes > kMaxSharedRingBytes) {
    throwError(Error::ErrInvalidOption, "withSharedRingBytes: " + std::to_string(bytes) +
                                            " bytes; a ring takes " +
                                            std::to_string(kMinSharedRingBytes) + " to " +
                                            std::to_string(kMaxSharedRingBytes));
  }
  MpiOptions copy = *this;
  copy.sharedRingBytes_ = std::bit_ceil(bytes);
  return copy;
}

ActorSystemOptions ActorSystemOptions::withCluster(std::shared_ptr<Cluster> cluster,
                                                   std::size_t messageLimit) const {
  if (cluster == nullptr) throwError(Error::ErrInvalidOption, "withCluster: a null cluster");
  if (messageLimit == 0) throwError(Error::ErrInvalidOption, "withCluster: a message limit of 0");
  ActorSystemOptions copy = *this;
  copy.cluster_ = std::move(cluster);
  copy.remoteMessageLimit_ = messageLimit;
  return copy;
}

}  // namespace coreactor
