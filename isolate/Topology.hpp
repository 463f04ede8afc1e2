// The machine as hwloc sees it (SPEC L5): the logical CPUs this process may
// run on, their NUMA nodes, and pinning a thread to a set of them. Read once,
// on first use; hwloc honours the process's cpuset (taskset, cgroups), so a
// container limited to two CPUs sees two. A synthetic topology (hwloc's
// description language, e.g. "package:2 numa:1 core:4 pu:1": two NUMA nodes
// of four CPUs) stands in for a machine this one is not, to plan placements
// for it; it cannot pin.
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
  /// A topology from hwloc's synthetic description. Throws ErrInvalidOption
  /// for a description hwloc refuses.
  static Topology synthetic(const std::string& description);

  const std::vector<Cpu>& cpus() const noexcept { return cpus_; }
  /// The NUMA node numbers, ascending.
  const std::vector<int>& numaNodes() const noexcept { return nodes_; }
  /// The CPUs of one NUMA node (empty for a node that does not exist).
  std::vector<unsigned> cpusOfNode(int node) const;

  /// Binds the calling thread to `cpus` (kernel numbers). Returns an empty
  /// string on success, else why not.
  std::string pinThisThread(const std::vector<unsigned>& cpus) const;

  ~Topology();
  Topology(Topology&& other) noexcept;
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  Topology& operator=(Topology&&) = delete;

 private:
  Topology() = default;
  /// Reads the CPUs and nodes of a loaded hwloc topology, which it keeps
  /// (pinning uses it only when `pins`).
  void adopt(void* loaded, bool pins);
  void* topology_ = nullptr;  // hwloc_topology_t
  bool pins_ = false;         // this machine's topology: pinning may use it
  std::vector<Cpu> cpus_;
  std::vector<int> nodes_;
};

}  // namespace coreactor::detail
