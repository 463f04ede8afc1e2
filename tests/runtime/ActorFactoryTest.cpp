// ActorFactory: what a cell keeps to make its actor at spawn and at each
// restart, in 16 bytes; small callables inline, others on the heap.
// SPEC A1, A6 (a restart makes a fresh instance from the same factory).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "coreactor/Actor.hpp"
#include "coreactor/ActorSystem.hpp"

namespace coreactor {
namespace {

struct Made final : Actor {
  explicit Made(std::string tag, int* made) : tag(std::move(tag)) { ++*made; }
  void receive(ReceiveContext&) override {}
  std::string tag;
};

std::string tagOf(const std::unique_ptr<Actor>& a) {
  return static_cast<const Made&>(*a).tag;
}

TEST(ActorFactory, MakesFreshInstancesFromInlineAndHeapCallablesThroughCopiesAndMoves) {
  // SPEC A1, A6.
  int made = 0;
  int* counter = &made;
  // One pointer captured: inline.
  ActorFactory small = [counter] { return std::make_unique<Made>("small", counter); };
  // A string captured: on the heap.
  const std::string big = "a tag too long for any small-string buffer at all";
  ActorFactory large = [big, counter] { return std::make_unique<Made>(big, counter); };
  // A std::function: on the heap too.
  std::function<std::unique_ptr<Actor>()> fn = [counter] {
    return std::make_unique<Made>("fn", counter);
  };
  ActorFactory wrapped = fn;
  EXPECT_EQ(sizeof(ActorFactory), 16u);

  EXPECT_EQ(tagOf(small()), "small");
  EXPECT_EQ(tagOf(large()), big);
  EXPECT_EQ(tagOf(wrapped()), "fn");
  EXPECT_NE(small().get(), small().get()) << "each call makes a fresh instance";

  ActorFactory smallCopy = small;
  ActorFactory largeCopy = large;
  EXPECT_EQ(tagOf(smallCopy()), "small");
  EXPECT_EQ(tagOf(largeCopy()), big);
  ActorFactory moved = std::move(largeCopy);
  EXPECT_FALSE(largeCopy);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(tagOf(moved()), big);
  moved = small;  // assignment replaces (and frees) the heap callable
  EXPECT_EQ(tagOf(moved()), "small");
  EXPECT_EQ(made, 9);
}

TEST(ActorFactory, AnEmptyFactoryThrowsBadFunctionCall) {
  // SPEC A1: a named error, never a crash.
  ActorFactory none;
  EXPECT_FALSE(none);
  EXPECT_THROW(none(), std::bad_function_call);
}

TEST(ActorFactory, SpawnsAtTheTopAndAsAChildAndMakesEachRestartsInstance) {
  // SPEC A1, A6: spawn(name, factory, options) on the system and on a
  // context; a restart takes a fresh instance from the same factory.
  auto system = ActorSystem::create("factory", ActorSystemOptions::create().withManualRun());
  int made = 0;
  struct Fails : Actor {
    void receive(ReceiveContext& ctx) override {
      if (ctx.is<int>()) throw std::runtime_error("restart me");
    }
  };
  ActorFactory factory = [&made] {
    ++made;
    return std::unique_ptr<Actor>(std::make_unique<Fails>());
  };
  ActorRef top = system->spawn("top", factory);
  ActorRef child;
  ActorRef parent = system->spawn("parent", [&](ReceiveContext& ctx) {
    if (ctx.is<std::string>()) child = ctx.spawn("child", factory);
  });
  parent.tell(std::string("spawn"));
  system->runUntilIdle();
  EXPECT_EQ(made, 2);
  top.tell(1);
  child.tell(1);
  system->runUntilIdle();
  EXPECT_EQ(made, 4) << "each restart made a fresh instance";
}

}  // namespace
}  // namespace coreactor
