// A topology hwloc did not read from this machine (SPEC L5): main() below
// hands hwloc a synthetic one, two NUMA nodes of four CPUs ("pack:2 numa:1
// core:4 pu:1"), without HWLOC_THISSYSTEM. hwloc's binding with such a
// topology does nothing and reports success; the system must still report
// no isolate pinned, only CPUs the process may use, and as many isolates as
// those CPUs, not the eight the description has.
//
// Its own program, since hwloc reads the machine once per process and the
// setting must come before that (tests/CMakeLists.txt). It holds under any
// affinity, taskset -c 1 included.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <system_error>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "isolate/Topology.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using detail::Topology;
using test::allowedCpus;

constexpr const char* kElsewhere = "pack:2 numa:1 core:4 pu:1";

struct WhereAmI {};

// Replies with the CPUs its isolate's thread may run on, read from inside.
void reportAffinity(ReceiveContext& ctx) {
  if (ctx.is<WhereAmI>()) ctx.reply(allowedCpus());
}

ActorSystemOptions quiet() {
  return ActorSystemOptions::create().withLogLevel(LogLevel::Off);
}

TEST(Isolates, ATopologyHwlocDidNotReadFromThisMachineIsNeverReportedPinned) {
  // SPEC L5: whatever the options ask, nothing is bound, and the placement
  // says where the kernel runs each isolate instead of the CPUs planned.
  const std::vector<unsigned> allowed = allowedCpus();
  const int node = Topology::machine().numaNodes().front();  // 0 unless taskset says otherwise
  const std::vector<ActorSystemOptions> asks{
      quiet().withPinning(Pinning::PerCore),
      quiet().withPinning(Pinning::PerNumaNode),
      quiet().withNumaNode(node),
      quiet().withNumaNode(node).withPinning(Pinning::PerCore),
  };
  for (std::size_t ask = 0; ask < asks.size(); ++ask) {
    auto system = ActorSystem::create("elsewhere", asks[ask]);
    EXPECT_LE(system->isolateCount(), allowed.size()) << "ask " << ask;
    std::vector<std::vector<unsigned>> seen;
    for (std::size_t i = 0; i < system->isolateCount(); ++i) {
      ActorRef probe = system->spawn("where" + std::to_string(i), reportAffinity,
                                     ActorOptions::create().withIsolate(i));
      seen.push_back(system->ask<std::vector<unsigned>>(probe, WhereAmI{}, 30s).get());
    }
    const auto placement = system->placement();
    for (std::size_t i = 0; i < placement.size(); ++i) {
      const IsolatePlacement& p = placement[i];
      EXPECT_FALSE(p.pinned) << "ask " << ask << ", isolate " << i;
      EXPECT_NE(p.note.find("not this machine's"), std::string::npos) << p.note;
      EXPECT_EQ(p.numaNode, -1);
      EXPECT_EQ(p.cpus, seen[i]) << "ask " << ask << ", isolate " << i << ": where it runs";
      EXPECT_EQ(p.cpus, allowed) << "nothing was bound";
    }
    system->shutdown();
  }
}

TEST(Isolates, TheIsolatesFollowTheProcessAffinityNotTheCpusOfATopologyFromElsewhere) {
  // SPEC L5: the description has eight CPUs; the system counts and plans
  // only those the process may use.
  const std::vector<unsigned> allowed = allowedCpus();
  const Topology& machine = Topology::machine();
  for (const Topology::Cpu& cpu : machine.cpus()) {
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), cpu.os), allowed.end()) << cpu.os;
  }
  auto system = ActorSystem::create("count", quiet());
  EXPECT_EQ(system->isolateCount(), allowed.size());
  for (const IsolatePlacement& p : system->placement()) EXPECT_EQ(p.cpus, allowed);
  system->shutdown();
  EXPECT_EQ(test::errorOf([&] {
              ActorSystem::create(
                  "too-many",
                  quiet().withIsolates(allowed.size() + 1).withPinning(Pinning::PerCore));
            }),
            Error::ErrInvalidOption)
      << "the eight CPUs of the description are not there to pin";
  // Node 1 of the description holds CPUs 4-7: unless the process may use
  // one, it is refused, and not listed among the nodes there are.
  const bool node1Usable =
      std::any_of(allowed.begin(), allowed.end(), [](unsigned cpu) { return cpu >= 4 && cpu < 8; });
  if (!node1Usable) {
    std::string what;
    try {
      ActorSystem::create("node-1", quiet().withNumaNode(1));
    } catch (const std::system_error& e) {
      what = e.what();
    }
    EXPECT_NE(what.find("the nodes that have one are 0"), std::string::npos) << what;
    EXPECT_EQ(what.find("0, 1"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace coreactor

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // Before anything loads a topology: hwloc reads the machine once.
  setenv("HWLOC_SYNTHETIC", coreactor::kElsewhere, 1);
  unsetenv("HWLOC_THISSYSTEM");
  unsetenv("HWLOC_XMLFILE");
  return RUN_ALL_TESTS();
}
