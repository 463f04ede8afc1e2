// The machine as hwloc sees it (SPEC L5): the logical CPUs this process may
// run on, their NUMA nodes, and pinning a thread to a set of them. Read once,
// on first use, and kept to the CPUs of the process's affinity (taskset,
// cgroups): a container limited to two CPUs sees two, whatever topology hwloc
// loaded. A synthetic topology (hwloc's description language, e.g.
// "package:2 numa:1 core:4 pu:1": two NUMA nodes of four CPUs) stands in for
// a machine this one is not, to plan placements for it; it cannot pin.
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

  /// The machine's topology, loaded on first use: the CPUs hwloc reports
  /// that the process's affinity (read then, sched_getaffinity) allows.
  /// Never throws. It pins only if hwloc read it from this machine: a
  /// topology the environment gives hwloc from elsewhere (HWLOC_SYNTHETIC,
  /// or HWLOC_XMLFILE without HWLOC_THISSYSTEM=1) keeps its NUMA nodes for
  /// planning, but pinning reports that it cannot pin, since hwloc's binding
  /// would only pretend. If hwloc cannot load one, or none of its CPUs is
  /// one the process may use, the CPUs of the process's affinity on a
  /// single NUMA node 0 stand in, and pinning reports that it cannot pin.
  static const Topology& machine();
  /// A topology from hwloc's synthetic description, all its CPUs kept. It
  /// cannot pin. Throws ErrInvalidOption for a description hwloc refuses.
  static Topology synthetic(const std::string& description);

  /// The CPUs the calling thread may run on, as the kernel reports them
  /// (sched_getaffinity), ascending. Empty if the kernel does not say.
  static std::vector<unsigned> cpusOfThisThread();

  /// The CPUs of the topology, in hwloc's order.
  const std::vector<Cpu>& cpus() const noexcept { return cpus_; }
  /// The NUMA nodes that hold at least one of cpus(), ascending: a node
  /// without a CPU this process may use (memory only, or outside its
  /// affinity) is not listed.
  const std::vector<int>& numaNodes() const noexcept { return nodes_; }
  /// The CPUs of one NUMA node (empty for a node not in numaNodes()).
  std::vector<unsigned> cpusOfNode(int node) const;

  /// Binds the calling thread to `cpus` (kernel numbers). Returns an empty
  /// string if the binding was made, else why not. Whether the kernel keeps
  /// the thread there is for the caller to read back (cpusOfThisThread).
  std::string pinThisThread(const std::vector<unsigned>& cpus) const;

  ~Topology();
  Topology(Topology&& other) noexcept;
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  Topology& operator=(Topology&&) = delete;

 private:
  Topology() = default;
  /// Reads the CPUs and nodes of a loaded hwloc topology, which it keeps.
  /// `cannotPin` is empty if pinning may use it, else why not.
  void adopt(void* loaded, std::string cannotPin);
  /// Drops the CPUs not in `allowed`, and the nodes left without a CPU.
  void keepOnly(const std::vector<unsigned>& allowed);
  void* topology_ = nullptr;  // hwloc_topology_t
  std::string cannotPin_;     // empty: this machine's topology, pinning may use it
  std::vector<Cpu> cpus_;
  std::vector<int> nodes_;
};

}  // namespace coreactor::detail
