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
      std::string nodes;
      for (int n : machine.numaNodes()) nodes += (nodes.empty() ? "" : ", ") + std::to_string(n);
      throwError(Error::ErrInvalidOption, "withNumaNode(" + std::to_string(*request.numaNode) +
                                              "): this machine's NUMA nodes are " + nodes);
    }
  } else {
    for (const Topology::Cpu& cpu : machine.cpus()) allowed.push_back(cpu.os);
  }
  std::size_t count = request.isolates;
  if (count == 0) count = request.manualRun ? 1 : allowed.size();
  // A manual system never pins: its caller's thread drives every loop.
  const Pinning pinning = request.manualRun ? Pinning::None : request.pinning;
  if (pinning != Pinning::None && count > allowed.size()) {
    throwError(Error::ErrInvalidOption, std::to_string(count) + " isolates pinned on " +
                                            std::to_string(allowed.size()) +
                                            " CPUs: at most one isolate per CPU when pinning");
  }
  // The NUMA nodes of the allowed CPUs, in order.
  std::vector<int> nodes;
  for (const Topology::Cpu& cpu : machine.cpus()) {
    if (std::find(allowed.begin(), allowed.end(), cpu.os) != allowed.end() &&
        std::find(nodes.begin(), nodes.end(), cpu.numaNode) == nodes.end()) {
      nodes.push_back(cpu.numaNode);
    }
  }
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
        if (request.manualRun && request.pinning != Pinning::None) {
          p.note = "manual run: the caller's thread drives the loops";
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
      case Pinning::PerNumaNode: {
        p.numaNode = nodes[i % nodes.size()];
        for (unsigned cpu : machine.cpusOfNode(p.numaNode)) {
          if (std::find(allowed.begin(), allowed.end(), cpu) != allowed.end())
            p.cpus.push_back(cpu);
        }
        break;
      }
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
