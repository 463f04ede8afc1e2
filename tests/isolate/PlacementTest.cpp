// Where isolates run: the plan made from the options and a topology (SPEC
// L5). NUMA machines are planned on synthetic topologies (hwloc's synthetic
// description), since this machine has one node; TwoNodeMachineTest.cpp
// runs systems on a two-node topology of this machine's own CPUs.
#include <gtest/gtest.h>

#include <algorithm>

#include "TestSupport.hpp"
#include "isolate/Placement.hpp"

namespace coreactor::detail {
namespace {

using test::errorOf;

// Two NUMA nodes of four CPUs each: CPUs 0-3 on node 0, 4-7 on node 1.
const Topology& twoNodes() {
  static const Topology topology = Topology::synthetic("package:2 numa:1 core:4 pu:1");
  return topology;
}

TEST(Placement, ASyntheticTopologyHasTheNodesAndCpusItDescribes) {
  // SPEC L5
  EXPECT_EQ(twoNodes().cpus().size(), 8u);
  EXPECT_EQ(twoNodes().numaNodes(), (std::vector<int>{0, 1}));
  EXPECT_EQ(twoNodes().cpusOfNode(1), (std::vector<unsigned>{4, 5, 6, 7}));
  EXPECT_EQ(errorOf([] { Topology::synthetic("not a topology"); }), Error::ErrInvalidOption);
}

TEST(Placement, PerNumaNodeGivesEachIsolateAWholeNodeInTurn) {
  // SPEC L5
  const auto plan = planPlacement({.isolates = 3, .pinning = Pinning::PerNumaNode}, twoNodes());
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].numaNode, 0);
  EXPECT_EQ(plan[0].cpus, (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(plan[1].numaNode, 1);
  EXPECT_EQ(plan[1].cpus, (std::vector<unsigned>{4, 5, 6, 7}));
  EXPECT_EQ(plan[2].numaNode, 0) << "round the nodes again";
  for (const auto& p : plan) EXPECT_FALSE(p.pinned) << "pinned only once its thread starts";
}

TEST(Placement, PerCoreGivesEachIsolateOneCpuAndRefusesMoreIsolatesThanCpus) {
  // SPEC L5, bad input
  const auto plan = planPlacement({.isolates = 8, .pinning = Pinning::PerCore}, twoNodes());
  ASSERT_EQ(plan.size(), 8u);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(plan[i].cpus, std::vector<unsigned>{static_cast<unsigned>(i)});
    EXPECT_EQ(plan[i].numaNode, i < 4 ? 0 : 1);
  }
  EXPECT_EQ(
      errorOf([] { planPlacement({.isolates = 9, .pinning = Pinning::PerCore}, twoNodes()); }),
      Error::ErrInvalidOption);
}

TEST(Placement, ANumaNodeKeepsEveryIsolateOnItsCpusAndAMissingNodeIsNamed) {
  // SPEC L5, bad input
  const auto plan = planPlacement({.isolates = 2, .numaNode = 1}, twoNodes());
  for (const auto& p : plan) {
    EXPECT_EQ(p.cpus, (std::vector<unsigned>{4, 5, 6, 7}));
    EXPECT_EQ(p.numaNode, 1);
  }
  std::string what;
  try {
    planPlacement({.isolates = 1, .numaNode = 5}, twoNodes());
  } catch (const std::system_error& e) {
    what = e.what();
  }
  EXPECT_NE(
      what.find("NUMA node 5 has no CPU this process may use; the nodes that have one are 0, 1"),
      std::string::npos)
      << what;
}

TEST(Placement, ANumaNodeBindsSoItRefusesMoreIsolatesThanItsCpusAsPinningDoes) {
  // SPEC L5, bad input: withNumaNode binds each isolate to the node's CPUs,
  // so isolates stacked on them would only take turns.
  EXPECT_EQ(planPlacement({.isolates = 4, .numaNode = 1}, twoNodes()).size(), 4u);
  EXPECT_EQ(errorOf([] { planPlacement({.isolates = 5, .numaNode = 1}, twoNodes()); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(errorOf([] {
              planPlacement({.isolates = 5, .pinning = Pinning::PerNumaNode, .numaNode = 1},
                            twoNodes());
            }),
            Error::ErrInvalidOption);
  const auto manual = planPlacement({.isolates = 5, .numaNode = 1, .manualRun = true}, twoNodes());
  ASSERT_EQ(manual.size(), 5u) << "a manual run binds nothing, so it may have more";
  EXPECT_EQ(manual[0].numaNode, -1);
  EXPECT_FALSE(manual[0].note.empty()) << "it says why it is not bound";
}

TEST(Placement, PerNumaNodeTakesTheNodesByAscendingNumberNotInCpuOrder) {
  // SPEC L5: node 1 holds CPUs 0-1 and node 0 CPUs 2-3.
  const Topology crossed = Topology::synthetic("pack:2 numa:1(indexes=1,0) core:2 pu:1");
  EXPECT_EQ(crossed.numaNodes(), (std::vector<int>{0, 1}));
  const auto plan = planPlacement({.isolates = 3, .pinning = Pinning::PerNumaNode}, crossed);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].numaNode, 0);
  EXPECT_EQ(plan[0].cpus, (std::vector<unsigned>{2, 3}));
  EXPECT_EQ(plan[1].numaNode, 1);
  EXPECT_EQ(plan[1].cpus, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(plan[2].numaNode, 0);
}

TEST(Placement, TheDefaultIsOneIsolatePerCpuWithAnIdlePollUnlessOversubscribedOrManual) {
  // SPEC L5
  const std::chrono::nanoseconds poll{20000};
  const auto plan = planPlacement({.defaultIdlePoll = poll}, twoNodes());
  ASSERT_EQ(plan.size(), 8u) << "one isolate per CPU";
  EXPECT_EQ(plan[0].idlePoll, poll);
  EXPECT_EQ(plan[0].cpus.size(), 8u) << "unpinned: any CPU";
  EXPECT_EQ(planPlacement({.isolates = 9, .defaultIdlePoll = poll}, twoNodes())[0].idlePoll,
            std::chrono::nanoseconds{0})
      << "more isolates than CPUs: a spinning loop would take another's CPU";
  const auto manual = planPlacement(
      {.pinning = Pinning::PerCore, .defaultIdlePoll = poll, .manualRun = true}, twoNodes());
  ASSERT_EQ(manual.size(), 1u);
  EXPECT_EQ(manual[0].idlePoll, std::chrono::nanoseconds{0});
  EXPECT_FALSE(manual[0].note.empty()) << "it says why it is not pinned";
}

TEST(Placement, ASyntheticTopologyCannotPinAThreadAndSaysWhereItRuns) {
  // SPEC L5: the plan is for another machine; this thread stays where it is,
  // and the placement says so: not pinned, on the CPUs the kernel reports.
  const std::vector<unsigned> before = Topology::cpusOfThisThread();
  ASSERT_FALSE(before.empty());
  IsolatePlacement p;
  p.cpus = {4};
  p.numaNode = 1;
  pinThread(p, /*wanted=*/true, twoNodes());
  EXPECT_FALSE(p.pinned);
  EXPECT_EQ(p.note, "a synthetic topology cannot pin");
  EXPECT_EQ(p.cpus, before) << "where the kernel runs it, not the CPU asked for";
  EXPECT_EQ(p.numaNode, -1);
  EXPECT_EQ(Topology::cpusOfThisThread(), before) << "nothing was bound";
  IsolatePlacement unwanted;
  unwanted.cpus = {4};
  pinThread(unwanted, /*wanted=*/false, twoNodes());
  EXPECT_FALSE(unwanted.pinned);
  EXPECT_EQ(unwanted.note, "");
  EXPECT_EQ(unwanted.cpus, before);
}

TEST(Placement, TheMachinesCpusAreOnlyThoseTheProcessMayUse) {
  // SPEC L5: never a CPU that is not there, whatever topology hwloc loaded.
  const std::vector<unsigned> allowed = test::allowedCpus();
  const Topology& machine = Topology::machine();
  ASSERT_FALSE(machine.cpus().empty());
  for (const Topology::Cpu& cpu : machine.cpus()) {
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), cpu.os), allowed.end()) << cpu.os;
  }
  for (int node : machine.numaNodes()) {
    EXPECT_FALSE(machine.cpusOfNode(node).empty()) << "node " << node << " is listed without a CPU";
  }
}

}  // namespace
}  // namespace coreactor::detail
