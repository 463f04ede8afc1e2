// Which CPUs each isolate runs on. See Placement.hpp.
#include "Placement.hpp"

#include <algorithm>

#include "coreactor/Error.hpp"

namespace coreactor::detail {

namespace {
template <class Numbers>
std::string listOf(const Numbers& numbers, const char* separator) {
  std::string out;
  for (const auto n : numbers) out += (out.empty() ? "" : separator) + std::to_string(n);
  return out;
}
}  // namespace

std::vector<IsolatePlacement> planPlacement(const PlacementRequest& request,
                                            const Topology& machine) {
  std::vector<unsigned> allowed;
  if (request.numaNode) {
    allowed = machine.cpusOfNode(*request.numaNode);
    if (allowed.empty()) {
      const std::string k = std::to_string(*request.numaNode);
      throwError(Error::ErrInvalidOption,
                 "withNumaNode(" + k + "): NUMA node " + k +
                     " has no CPU this process may use; the nodes that have one are " +
                     listOf(machine.numaNodes(), ", "));
    }
  } else {
    for (const Topology::Cpu& cpu : machine.cpus()) allowed.push_back(cpu.os);
  }
  std::size_t count = request.isolates;
  if (count == 0) count = request.manualRun ? 1 : allowed.size();
  // A manual system never pins: its caller's thread drives every loop.
  const Pinning pinning = request.manualRun ? Pinning::None : request.pinning;
  // A node binds as a pinning mode does, so the same rule holds: one
  // isolate per CPU, since isolates stacked on a bound CPU only take turns.
  const bool binds = !request.manualRun && (pinning != Pinning::None || request.numaNode);
  if (binds && count > allowed.size()) {
    throwError(Error::ErrInvalidOption,
               std::to_string(count) + " isolates bound to " + std::to_string(allowed.size()) +
                   " CPUs" +
                   (request.numaNode ? " of NUMA node " + std::to_string(*request.numaNode) : "") +
                   ": at most one isolate per CPU when pinning");
  }
  // The NUMA nodes of the allowed CPUs, by ascending node number.
  const std::vector<int> nodes =
      request.numaNode ? std::vector<int>{*request.numaNode} : machine.numaNodes();
  // The idle poll window: spinning pays only where each isolate can have a
  // CPU of its own, and a manual run's caller drives the loops itself.
  std::chrono::nanoseconds idlePoll = request.idlePoll.value_or(
      count <= allowed.size() ? request.defaultIdlePoll : std::chrono::nanoseconds{0});
  if (request.manualRun) idlePoll = std::chrono::nanoseconds{0};
  std::vector<IsolatePlacement> placement(count);
  for (std::size_t i = 0; i < count; ++i) {
    IsolatePlacement& p = placement[i];
    p.isolate = i;
    p.idlePoll = idlePoll;
    switch (pinning) {
      case Pinning::None:
        p.cpus = allowed;
        if (request.numaNode) p.numaNode = *request.numaNode;  // bound to the node's CPUs
        if (request.manualRun && (request.pinning != Pinning::None || request.numaNode)) {
          p.note = "manual run: the caller's thread drives the loops";
          p.numaNode = -1;
        }
        break;
      case Pinning::PerCore: {
        const unsigned cpu = allowed[i];
        p.cpus = {cpu};
        for (const Topology::Cpu& c : machine.cpus()) {
          if (c.os == cpu) p.numaNode = c.numaNode;
        }
        break;
      }
      case Pinning::PerNumaNode:
        p.numaNode = nodes[i % nodes.size()];
        p.cpus = machine.cpusOfNode(p.numaNode);
        break;
    }
  }
  return placement;
}

void pinThread(IsolatePlacement& placement, bool wanted, const Topology& machine) {
  std::string why = wanted ? machine.pinThisThread(placement.cpus) : std::string();
  // What the kernel does, not what was asked: a binding hwloc reports made
  // is trusted only once the thread's affinity reads back within it.
  std::vector<unsigned> actual = Topology::cpusOfThisThread();
  if (wanted && why.empty()) {
    const bool within =
        !actual.empty() && std::all_of(actual.begin(), actual.end(), [&](unsigned c) {
          return std::find(placement.cpus.begin(), placement.cpus.end(), c) != placement.cpus.end();
        });
    if (!within) {
      why = actual.empty() ? "the kernel does not say where the thread may run"
                           : "bound, yet the kernel runs it on CPUs " + listOf(actual, ",");
    }
  }
  placement.pinned = wanted && why.empty();
  if (!placement.pinned) placement.numaNode = -1;
  if (wanted) placement.note = std::move(why);
  if (!actual.empty()) placement.cpus = std::move(actual);
}

}  // namespace coreactor::detail
