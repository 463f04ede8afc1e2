// The machine as hwloc sees it. See Topology.hpp.
#include "Topology.hpp"

#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "coreactor/Error.hpp"

namespace coreactor::detail {

namespace {
hwloc_topology_t handle(void* t) {
  return static_cast<hwloc_topology_t>(t);
}

// The CPUs the kernel lets thread `tid` run on (0: the calling thread),
// ascending; empty if it does not say. The mask grows past CPU_SETSIZE for
// machines with more CPUs.
std::vector<unsigned> affinityOf(pid_t tid) {
  for (std::size_t count = CPU_SETSIZE; count <= (std::size_t{1} << 20); count *= 2) {
    cpu_set_t* set = CPU_ALLOC(count);
    if (set == nullptr) return {};
    const std::size_t size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(tid, size, set) == 0) {
      std::vector<unsigned> cpus;
      for (std::size_t cpu = 0; cpu < count; ++cpu) {
        if (CPU_ISSET_S(cpu, size, set)) cpus.push_back(static_cast<unsigned>(cpu));
      }
      CPU_FREE(set);
      return cpus;
    }
    const int error = errno;
    CPU_FREE(set);
    if (error != EINVAL) return {};  // EINVAL: the kernel's mask is wider, try again
  }
  return {};
}
}  // namespace

const Topology& Topology::machine() {
  static const Topology topology = [] {
    Topology machine;
    // The process's affinity: its main thread's mask, which taskset sets
    // and every thread inherits unless it binds itself.
    const std::vector<unsigned> allowed = affinityOf(getpid());
    hwloc_topology_t t = nullptr;
    // Only the CPUs this process may run on (taskset, cgroups): a process
    // limited to two CPUs sees two. The flag stands for the topology hwloc
    // discovers itself; one the environment forces on it (HWLOC_SYNTHETIC,
    // HWLOC_XMLFILE) is this machine's only with HWLOC_THISSYSTEM=1.
    if (hwloc_topology_init(&t) == 0 &&
        hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM |
                                        HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING) == 0 &&
        hwloc_topology_load(t) == 0) {
      // hwloc binds with a topology from elsewhere by doing nothing and
      // reporting success: such a topology must not pin.
      machine.adopt(t, hwloc_topology_is_thissystem(t) != 0
                           ? std::string()
                           : "hwloc's topology is not this machine's (HWLOC_SYNTHETIC, or "
                             "HWLOC_XMLFILE without HWLOC_THISSYSTEM=1): it cannot pin");
    } else if (t != nullptr) {
      hwloc_topology_destroy(t);
    }
    if (!allowed.empty()) machine.keepOnly(allowed);
    if (machine.cpus_.empty()) {
      machine.nodes_.clear();
      machine.cannotPin_ = machine.topology_ == nullptr
                               ? "hwloc could not read this machine's topology"
                               : "none of the CPUs of hwloc's topology is one this process may "
                                 "use: it cannot pin";
      if (allowed.empty()) {
        const unsigned n = std::max(1u, std::thread::hardware_concurrency());
        for (unsigned i = 0; i < n; ++i) machine.cpus_.push_back(Cpu{i, 0});
      } else {
        for (unsigned cpu : allowed) machine.cpus_.push_back(Cpu{cpu, 0});
      }
    }
    if (machine.nodes_.empty()) machine.nodes_.push_back(0);
    return machine;
  }();
  return topology;
}

Topology Topology::synthetic(const std::string& description) {
  Topology synthetic;
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) {
    throwError(Error::ErrInvalidOption, "hwloc could not start a topology");
  }
  if (hwloc_topology_set_synthetic(t, description.c_str()) != 0 || hwloc_topology_load(t) != 0) {
    hwloc_topology_destroy(t);
    throwError(Error::ErrInvalidOption,
               "synthetic topology '" + description + "': hwloc refuses it");
  }
  synthetic.adopt(t, "a synthetic topology cannot pin");
  if (synthetic.nodes_.empty()) synthetic.nodes_.push_back(0);
  return synthetic;
}

std::vector<unsigned> Topology::cpusOfThisThread() {
  return affinityOf(0);
}

Topology::Topology(Topology&& other) noexcept
    : topology_(std::exchange(other.topology_, nullptr)),
      cannotPin_(std::move(other.cannotPin_)),
      cpus_(std::move(other.cpus_)),
      nodes_(std::move(other.nodes_)) {}

void Topology::adopt(void* loaded, std::string cannotPin) {
  auto t = handle(loaded);
  topology_ = t;
  cannotPin_ = std::move(cannotPin);
  const int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  const int nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < pus; ++i) {
    const hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    int node = 0;
    for (int n = 0; n < nodes; ++n) {
      const hwloc_obj_t numa = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, n);
      if (numa->cpuset != nullptr && hwloc_bitmap_isset(numa->cpuset, pu->os_index)) {
        node = static_cast<int>(numa->os_index);
      }
    }
    cpus_.push_back(Cpu{pu->os_index, node});
  }
  // The nodes that hold a CPU: hwloc also lists nodes of memory only, and
  // keeps a node whose CPUs the process may not use.
  for (const Cpu& cpu : cpus_) nodes_.push_back(cpu.numaNode);
  std::sort(nodes_.begin(), nodes_.end());
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
}

void Topology::keepOnly(const std::vector<unsigned>& allowed) {
  std::erase_if(cpus_, [&](const Cpu& cpu) {
    return std::find(allowed.begin(), allowed.end(), cpu.os) == allowed.end();
  });
  std::erase_if(nodes_, [&](int node) {
    return std::none_of(cpus_.begin(), cpus_.end(),
                        [node](const Cpu& cpu) { return cpu.numaNode == node; });
  });
}

Topology::~Topology() {
  if (topology_ != nullptr) hwloc_topology_destroy(handle(topology_));
}

std::vector<unsigned> Topology::cpusOfNode(int node) const {
  std::vector<unsigned> out;
  for (const Cpu& cpu : cpus_) {
    if (cpu.numaNode == node) out.push_back(cpu.os);
  }
  return out;
}

std::string Topology::pinThisThread(const std::vector<unsigned>& cpus) const {
  if (!cannotPin_.empty()) return cannotPin_;
  if (topology_ == nullptr) return "hwloc could not read this machine's topology";
  if (cpus.empty()) return "no CPU to pin to";
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  for (unsigned cpu : cpus) hwloc_bitmap_set(set, cpu);
  const int rc = hwloc_set_cpubind(handle(topology_), set, HWLOC_CPUBIND_THREAD);
  const int error = errno;
  hwloc_bitmap_free(set);
  if (rc != 0) return std::string("hwloc_set_cpubind failed: ") + std::strerror(error);
  return {};
}

}  // namespace coreactor::detail
