// The machine as hwloc sees it. See Topology.hpp.
#include "Topology.hpp"

#include <hwloc.h>

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
}  // namespace

const Topology& Topology::machine() {
  static const Topology topology = [] {
    Topology machine;
    hwloc_topology_t t = nullptr;
    // Only the CPUs this process may run on (taskset, cgroups): a process
    // limited to two CPUs sees two.
    if (hwloc_topology_init(&t) == 0 &&
        hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM |
                                        HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING) == 0 &&
        hwloc_topology_load(t) == 0) {
      machine.adopt(t, /*pins=*/true);
    } else if (t != nullptr) {
      hwloc_topology_destroy(t);
    }
    if (machine.cpus_.empty()) {
      const unsigned n = std::max(1u, std::thread::hardware_concurrency());
      for (unsigned i = 0; i < n; ++i) machine.cpus_.push_back(Cpu{i, 0});
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
  synthetic.adopt(t, /*pins=*/false);
  if (synthetic.nodes_.empty()) synthetic.nodes_.push_back(0);
  return synthetic;
}

Topology::Topology(Topology&& other) noexcept
    : topology_(std::exchange(other.topology_, nullptr)),
      pins_(other.pins_),
      cpus_(std::move(other.cpus_)),
      nodes_(std::move(other.nodes_)) {}

void Topology::adopt(void* loaded, bool pins) {
  auto t = handle(loaded);
  topology_ = t;
  pins_ = pins;
  const int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  const int nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  for (int n = 0; n < nodes; ++n) {
    nodes_.push_back(static_cast<int>(hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, n)->os_index));
  }
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
  std::sort(nodes_.begin(), nodes_.end());
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
  if (topology_ == nullptr) return "hwloc could not read this machine's topology";
  if (!pins_) return "a synthetic topology cannot pin";
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
