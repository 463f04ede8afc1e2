// The machine as hwloc sees it (SPEC L5): the logical CPUs this process may
// run on, their NUMA nodes, and pinning a thread to a set of them. Read once,
// on first use; hwloc honours the process's cpuset (taskset, cgroups), so a
// container limited to two CPUs sees two.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace coreactor::detail {

class Topology {
 public:
  struct Cpu {
    unsigned os;   ///< the kernel's CPU number
    int numaNode;  ///< its NUMA node's number (0 on a machine without NUMA)
  };

  /// The machine's topology, loaded on first use. Never throws: if hwloc
  /// cannot load one, a single NUMA node of std::thread::hardware_concurrency
  /// CPUs stands in, and pinning reports that it cannot pin.
  static const Topology& machine();

  const std::vector<Cpu>& cpus() const noexcept { return cpus_; }
  /// The NUMA node numbers, ascending.
  const std::vector<int>& numaNodes() const noexcept { return nodes_; }
  /// The CPUs of one NUMA node (empty for a node that does not exist).
  std::vector<unsigned> cpusOfNode(int node) const;

  /// Binds the calling thread to `cpus` (kernel numbers). Returns an empty
  /// string on success, else why not.
  std::string pinThisThread(const std::vector<unsigned>& cpus) const;

  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

 private:
  Topology();
  void* topology_ = nullptr;  // hwloc_topology_t
  std::vector<Cpu> cpus_;
  std::vector<int> nodes_;
};

}  // namespace coreactor::detail
