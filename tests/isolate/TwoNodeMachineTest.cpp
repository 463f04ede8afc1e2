// Pinning on two NUMA nodes, for real (SPEC L5). This machine has one node,
// so main() below describes its first two allowed CPUs to hwloc as two
// packages and two NUMA nodes, in an XML topology loaded as this machine's
// (HWLOC_XMLFILE, HWLOC_THISSYSTEM=1): binding then calls the kernel, and
// each isolate's affinity can be read back from inside it.
//
// The description crosses node and CPU order, as some machines do: the
// first package holds NUMA node 1 and the first CPU, the second NUMA node 0
// and the second CPU. A third package holds NUMA node 2 and a CPU the
// process may not use: a node the system must neither use nor list.
//
// Its own program, since hwloc reads the machine once per process and these
// settings must come before that (tests/CMakeLists.txt). With fewer than two
// allowed CPUs (taskset -c 1) there is nothing to split: every test skips.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "isolate/Topology.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using detail::Topology;
using test::allowedCpus;

// The CPUs main() gave each node; set only when the topology was written.
struct TwoNodes {
  bool written = false;
  unsigned node1Cpu = 0;    // the first allowed CPU, in the first package
  unsigned node0Cpu = 0;    // the second, in the second package
  unsigned outsideCpu = 0;  // NUMA node 2's: not one the process may use
};
TwoNodes twoNodes;

// Every test needs the topology main() wrote.
class Isolates : public testing::Test {
 protected:
  void SetUp() override {
    if (!twoNodes.written) GTEST_SKIP() << "fewer than 2 CPUs allowed: no two-node topology";
  }
};

struct WhereAmI {};
struct Where {
  std::vector<unsigned> cpus;  // the thread's affinity, read from inside
  int cpu = -1;                // the CPU it ran on when it answered
};

// Replies with where its isolate's thread may run and runs.
void reportWhere(ReceiveContext& ctx) {
  if (ctx.is<WhereAmI>()) ctx.reply(Where{allowedCpus(), sched_getcpu()});
}

// Where an actor on each isolate runs; once each has answered, every
// isolate's thread has started and bound itself.
std::vector<Where> whereEachIsolateRuns(ActorSystem& system) {
  std::vector<Where> seen;
  for (std::size_t i = 0; i < system.isolateCount(); ++i) {
    ActorRef probe = system.spawn("where" + std::to_string(i), reportWhere,
                                  ActorOptions::create().withIsolate(i));
    seen.push_back(system.ask<Where>(probe, WhereAmI{}, 30s).get());
  }
  return seen;
}

ActorSystemOptions quiet() {
  return ActorSystemOptions::create().withLogLevel(LogLevel::Off);
}

std::string whatOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::system_error& e) {
    return e.what();
  }
  return {};
}

TEST_F(Isolates, ATwoNodeTopologyOfThisMachinesCpusLoadsAsThisMachineAndCanPin) {
  // SPEC L5: the XML is read, its nodes crossed with CPU order, the node
  // without a usable CPU dropped, and a thread bound with it really moves.
  const Topology& machine = Topology::machine();
  ASSERT_EQ(machine.cpus().size(), 2u);
  EXPECT_EQ(machine.cpus()[0].os, twoNodes.node1Cpu);
  EXPECT_EQ(machine.cpus()[0].numaNode, 1);
  EXPECT_EQ(machine.cpus()[1].os, twoNodes.node0Cpu);
  EXPECT_EQ(machine.cpus()[1].numaNode, 0);
  EXPECT_EQ(machine.numaNodes(), (std::vector<int>{0, 1})) << "node 2 has no CPU it may use";
  EXPECT_EQ(machine.cpusOfNode(0), std::vector<unsigned>{twoNodes.node0Cpu});
  EXPECT_EQ(machine.cpusOfNode(2), std::vector<unsigned>{});
  std::string why = "not run";
  std::vector<unsigned> after;
  std::thread([&] {
    why = machine.pinThisThread({twoNodes.node0Cpu});
    after = Topology::cpusOfThisThread();
  }).join();
  EXPECT_EQ(why, "");
  EXPECT_EQ(after, std::vector<unsigned>{twoNodes.node0Cpu});
}

TEST_F(Isolates, PinnedPerCoreOnTwoNodesEachIsolateRunsOnItsCpuAndReportsItsNode) {
  // SPEC L5: one isolate per CPU by default, in the topology's CPU order.
  auto system = ActorSystem::create("per-core", quiet().withPinning(Pinning::PerCore));
  ASSERT_EQ(system->isolateCount(), 2u);
  const auto seen = whereEachIsolateRuns(*system);
  const auto placement = system->placement();
  const std::vector<unsigned> cpus{twoNodes.node1Cpu, twoNodes.node0Cpu};
  const std::vector<int> nodes{1, 0};
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(placement[i].pinned) << placement[i].note;
    EXPECT_EQ(placement[i].cpus, std::vector<unsigned>{cpus[i]});
    EXPECT_EQ(placement[i].numaNode, nodes[i]);
    EXPECT_EQ(seen[i].cpus, placement[i].cpus) << "isolate " << i << " runs where it says";
    EXPECT_EQ(seen[i].cpu, static_cast<int>(cpus[i]));
  }
  system->shutdown();
}

TEST_F(Isolates, PinnedPerNumaNodeIsolatesTakeTheNodesInTurnByNodeNumber) {
  // SPEC L5: node 0 first although its CPU comes second.
  auto system = ActorSystem::create("per-node", quiet().withPinning(Pinning::PerNumaNode));
  ASSERT_EQ(system->isolateCount(), 2u);
  const auto seen = whereEachIsolateRuns(*system);
  const auto placement = system->placement();
  EXPECT_EQ(placement[0].numaNode, 0);
  EXPECT_EQ(placement[0].cpus, std::vector<unsigned>{twoNodes.node0Cpu});
  EXPECT_EQ(placement[1].numaNode, 1);
  EXPECT_EQ(placement[1].cpus, std::vector<unsigned>{twoNodes.node1Cpu});
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(placement[i].pinned) << placement[i].note;
    EXPECT_EQ(seen[i].cpus, placement[i].cpus) << "isolate " << i << " runs where it says";
  }
  system->shutdown();
}

TEST_F(Isolates, ANumaNodeAloneBindsItsIsolatesToTheNodesCpus) {
  // SPEC L5: withNumaNode without a pinning mode binds each isolate to all
  // the node's CPUs, and the default count is theirs.
  for (const int node : {0, 1}) {
    auto system = ActorSystem::create("node", quiet().withNumaNode(node));
    ASSERT_EQ(system->isolateCount(), 1u) << "node " << node << " has one CPU";
    const auto seen = whereEachIsolateRuns(*system);
    const auto placement = system->placement();
    const unsigned cpu = node == 0 ? twoNodes.node0Cpu : twoNodes.node1Cpu;
    EXPECT_TRUE(placement[0].pinned) << placement[0].note;
    EXPECT_EQ(placement[0].numaNode, node);
    EXPECT_EQ(placement[0].cpus, std::vector<unsigned>{cpu});
    EXPECT_EQ(seen[0].cpus, std::vector<unsigned>{cpu}) << "bound, not only listed";
    system->shutdown();
  }
}

TEST_F(Isolates, ANumaNodeWithAPinningModeBindsWithinTheNode) {
  // SPEC L5.
  for (const Pinning mode : {Pinning::PerCore, Pinning::PerNumaNode}) {
    auto system = ActorSystem::create("node-pinned", quiet().withNumaNode(1).withPinning(mode));
    ASSERT_EQ(system->isolateCount(), 1u);
    const auto seen = whereEachIsolateRuns(*system);
    const auto placement = system->placement();
    EXPECT_TRUE(placement[0].pinned) << placement[0].note;
    EXPECT_EQ(placement[0].numaNode, 1);
    EXPECT_EQ(placement[0].cpus, std::vector<unsigned>{twoNodes.node1Cpu});
    EXPECT_EQ(seen[0].cpus, placement[0].cpus);
    system->shutdown();
  }
}

TEST_F(Isolates, ActorsSpreadOverIsolatesPinnedPerNodeRunOnTheirIsolatesNode) {
  // SPEC L5, X4: the default spread (runs of 4) over two isolates, each
  // bound to one node: every actor runs on its isolate's node's CPUs.
  auto system = ActorSystem::create("actors", quiet().withPinning(Pinning::PerNumaNode));
  whereEachIsolateRuns(*system);  // every isolate's thread has bound itself
  const auto placement = system->placement();
  std::vector<std::size_t> perIsolate(2);
  for (int i = 0; i < 8; ++i) {
    ActorRef actor = system->spawn("actor" + std::to_string(i), reportWhere);
    const Where where = system->ask<Where>(actor, WhereAmI{}, 30s).get();
    const IsolatePlacement& home = placement[actor.isolateIndex()];
    EXPECT_EQ(where.cpus, Topology::machine().cpusOfNode(home.numaNode)) << "actor " << i;
    EXPECT_NE(std::find(home.cpus.begin(), home.cpus.end(), static_cast<unsigned>(where.cpu)),
              home.cpus.end())
        << "actor " << i << " ran on CPU " << where.cpu;
    ++perIsolate[actor.isolateIndex()];
  }
  EXPECT_EQ(perIsolate, (std::vector<std::size_t>{4, 4})) << "both nodes used";
  system->shutdown();
}

TEST_F(Isolates, OnTwoNodesABindingTheMachineCannotGiveIsANamedError) {
  // SPEC L5, bad input: one isolate per CPU whenever isolates are bound, and
  // a node is refused listing only the nodes that have a CPU it may use.
  for (const Pinning mode : {Pinning::PerCore, Pinning::PerNumaNode}) {
    EXPECT_EQ(test::errorOf([&] {
                ActorSystem::create("too-many", quiet().withIsolates(3).withPinning(mode));
              }),
              Error::ErrInvalidOption);
  }
  EXPECT_EQ(test::errorOf(
                [] { ActorSystem::create("stacked", quiet().withNumaNode(0).withIsolates(2)); }),
            Error::ErrInvalidOption)
      << "two isolates bound to one CPU";
  for (const int node : {2, 7}) {
    const std::string what =
        whatOf([&] { ActorSystem::create("no-node", quiet().withNumaNode(node)); });
    EXPECT_NE(what.find("the nodes that have one are 0, 1"), std::string::npos) << what;
    EXPECT_EQ(what.find("0, 1, 2"), std::string::npos) << what;
  }
  // A manual run binds nothing: the node's count does not limit it.
  auto manual =
      ActorSystem::create("manual", quiet().withNumaNode(0).withIsolates(2).withManualRun());
  EXPECT_EQ(manual->isolateCount(), 2u);
  EXPECT_FALSE(manual->placement()[0].pinned);
  // Unbound, more isolates than CPUs share them.
  auto shared = ActorSystem::create("shared", quiet().withIsolates(3));
  EXPECT_EQ(shared->isolateCount(), 3u);
  shared->shutdown();
}

// hwloc's bitmap text: 32-bit words, most significant first.
std::string bitmap(const std::vector<unsigned>& bits) {
  std::vector<unsigned> words(*std::max_element(bits.begin(), bits.end()) / 32 + 1, 0);
  for (unsigned b : bits) words[b / 32] |= 1u << (b % 32);
  std::string out;
  for (std::size_t i = words.size(); i-- > 0;) {
    char word[16];
    std::snprintf(word, sizeof word, "0x%08x", words[i]);
    out += (out.empty() ? "" : ",") + std::string(word);
  }
  return out;
}

// One package holding one NUMA node and one core of one PU.
std::string package(unsigned index, int node, unsigned cpu, unsigned& gp) {
  const std::string sets = " cpuset=\"" + bitmap({cpu}) + "\" complete_cpuset=\"" + bitmap({cpu}) +
                           "\" nodeset=\"" + bitmap({static_cast<unsigned>(node)}) +
                           "\" complete_nodeset=\"" + bitmap({static_cast<unsigned>(node)}) + "\"";
  const auto gpIndex = [&] { return " gp_index=\"" + std::to_string(gp++) + "\""; };
  std::string xml = "    <object type=\"Package\" os_index=\"" + std::to_string(index) + "\"" +
                    sets + gpIndex() + ">\n";
  xml += "      <object type=\"NUMANode\" os_index=\"" + std::to_string(node) + "\"" + sets +
         gpIndex() + " local_memory=\"1073741824\"/>\n";
  xml += "      <object type=\"Core\" os_index=\"" + std::to_string(cpu) + "\"" + sets + gpIndex() +
         ">\n";
  xml += "        <object type=\"PU\" os_index=\"" + std::to_string(cpu) + "\"" + sets + gpIndex() +
         "/>\n";
  xml += "      </object>\n    </object>\n";
  return xml;
}

// The hwloc 2.x XML of the three packages the header describes.
std::string twoNodeTopology(const TwoNodes& t) {
  const std::vector<unsigned> cpus{t.node1Cpu, t.node0Cpu, t.outsideCpu};
  const std::string all = bitmap(cpus);
  const std::string nodes = bitmap({0, 1, 2});
  unsigned gp = 2;
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
         "<topology version=\"2.0\">\n"
         "  <object type=\"Machine\" os_index=\"0\" cpuset=\"" +
         all + "\" complete_cpuset=\"" + all + "\" allowed_cpuset=\"" + all + "\" nodeset=\"" +
         nodes + "\" complete_nodeset=\"" + nodes + "\" allowed_nodeset=\"" + nodes +
         "\" gp_index=\"1\">\n" + package(0, 1, t.node1Cpu, gp) + package(1, 0, t.node0Cpu, gp) +
         package(2, 2, t.outsideCpu, gp) + "  </object>\n</topology>\n";
}

}  // namespace
}  // namespace coreactor

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  using coreactor::twoNodes;
  const std::vector<unsigned> cpus = coreactor::test::allowedCpus();
  std::string file;
  if (cpus.size() >= 2) {
    twoNodes = {
        .written = true, .node1Cpu = cpus[0], .node0Cpu = cpus[1], .outsideCpu = cpus.back() + 1};
    char name[] = "/tmp/coreactor-two-nodes-XXXXXX.xml";
    const int fd = mkstemps(name, 4);
    const std::string xml = coreactor::twoNodeTopology(twoNodes);
    if (fd < 0 || write(fd, xml.data(), xml.size()) != static_cast<ssize_t>(xml.size())) {
      std::fprintf(stderr, "cannot write the two-node topology to %s\n", name);
      return 1;
    }
    close(fd);
    file = name;
    // Before anything loads a topology: hwloc reads the machine once.
    setenv("HWLOC_XMLFILE", file.c_str(), 1);
    setenv("HWLOC_THISSYSTEM", "1", 1);
    unsetenv("HWLOC_SYNTHETIC");
  }
  const int failed = RUN_ALL_TESTS();
  if (!file.empty()) std::remove(file.c_str());
  return failed;
}
