// The runtime's way into a Cluster (coreactor/Cluster.hpp), whose link and
// claim are no part of the public API: the one access point for them, as
// detail::IsolateHooks is for the isolate.
#pragma once

#include "coreactor/Cluster.hpp"
#include "transport/ProcessLink.hpp"

namespace coreactor::detail {

struct ClusterAccess {
  /// The link the cluster's system talks through.
  static transport::ProcessLink& link(Cluster& cluster) noexcept { return cluster.link(); }
  /// Claims the cluster for a system; false if one has it.
  static bool attach(Cluster& cluster) noexcept { return cluster.attach(); }
  /// Gives the cluster back when that system goes.
  static void detach(Cluster& cluster) noexcept { cluster.detach(); }
};

}  // namespace coreactor::detail
