// Edge cases found in review, each once a bug: replies after a restart,
// re-entrant replies, dead letters to a dead subscriber, stopping from
// inside, resume after escalation, asks meeting a stopping actor, overflow
// from another thread, a throwing priority function. SPEC A3, A4, A6, A7, A11.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <string>
#include <thread>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Async.hpp"
#include "coreactor/ImmediateDispatcher.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using testkit::TestKit;

TEST(EdgeCases, AReplyToAnAskOfARestartedInstanceIsADeadLetterNotACallback) {
  // SPEC A3, A6: the callback captured the old instance, which is gone.
  TestKit kit;
  ActorRef slowEcho = kit.system().spawn("slow", [](ReceiveContext& ctx) {
    if (ctx.is<int>()) ctx.reply(1);
  });
  struct Asker : Actor {
    explicit Asker(ActorRef echo, int* callbacks) : echo(echo), callbacks(callbacks) {}
    void receive(ReceiveContext& ctx) override {
      if (ctx.is<std::string>()) {
        ctx.ask<int>(echo, 5, 1s, [this](ReceiveContext&, AskResult<int>&) { ++*callbacks; });
        throw std::runtime_error("fail before the reply arrives");
      }
    }
    ActorRef echo;
    int* callbacks;
  };
  int callbacks = 0;
  std::vector<DeadLetter> dead;
  kit.system().eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) { dead.push_back(d); });
  ActorRef asker = kit.system().spawn<Asker>("asker", ActorOptions::create(), slowEcho, &callbacks);
  asker.tell(std::string("go"));
  kit.run();
  EXPECT_EQ(callbacks, 0);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].messageType, "int") << "the real reply, not a placeholder";
}

struct Replier : AsyncActor {
  bool reentrant() const override { return true; }
  Async receiveAsync(ReceiveContext& ctx) override {
    if (ctx.is<std::string>()) {
      co_await ctx.delay(1s);
      ctx.reply(std::string("late"));  // sender is not kept across the await
    } else {
      ctx.reply(2);  // finishes without suspending
    }
  }
};

TEST(EdgeCases, AReentrantHandlerDoesNotReplyToAnotherMessagesSender) {
  // SPEC A11
  TestKit kit;
  auto first = kit.probe();
  auto second = kit.probe();
  ActorRef r = kit.system().spawn<Replier>("r");
  r.tell(std::string("slow"), first.ref());
  r.tell(1, second.ref());
  EXPECT_EQ(second.expectMsg<int>(), 2);
  kit.advance(1s);
  second.expectNoMsg();
  first.expectNoMsg();
  EXPECT_EQ(kit.system().deadLetterCount(), 1u) << "the late reply had no sender: a dead letter";
}

TEST(EdgeCases, DeadLettersToAStoppedDeadLetterSubscriberDoNotFeedThemselves) {
  // SPEC A7
  TestKit kit;
  ActorRef listener = kit.system().spawn("listener", [](ReceiveContext&) {});
  kit.system().eventStream().subscribe<DeadLetter>(listener);
  kit.system().stop(listener);
  kit.run();
  listener.tell(1);  // a dead letter, published to the dead listener: one more, and no more
  kit.run();
  EXPECT_EQ(kit.system().deadLetterCount(), 2u);
}

TEST(EdgeCases, ShutdownAndStopFromInsideAnActorReturnAndTheSystemStops) {
  // SPEC A1
  for (bool graceful : {true, false}) {
    auto system = ActorSystem::create("inside");
    std::promise<void> called;
    ActorRef a = system->spawn("a", [&, graceful](ReceiveContext& ctx) {
      if (graceful) {
        ctx.system().shutdown();
      } else {
        ctx.system().stop();
      }
      called.set_value();
    });
    a.tell(1);
    ASSERT_EQ(called.get_future().wait_for(30s), std::future_status::ready);
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (system->running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    EXPECT_FALSE(system->running());
  }  // the destructors join the loops
}

TEST(EdgeCases, AResumeAfterAnEscalationResumesTheFailedChild) {
  // SPEC A6
  TestKit kit;
  struct Parent : Actor {
    explicit Parent(std::vector<int>* seen) : seen(seen) {}
    void preStart(ReceiveContext& ctx) override {
      child = ctx.spawn("child", [this](ReceiveContext& c) {
        if (c.is<std::string>()) throw std::runtime_error("child fails");
        if (auto* n = c.get<int>()) seen->push_back(*n);
      });
    }
    void receive(ReceiveContext& ctx) override {
      if (auto* n = ctx.get<int>()) ctx.tell(child, *n);
      if (ctx.is<std::string>()) ctx.tell(child, std::string("fail"));
    }
    SupervisorStrategy supervisorStrategy() override {
      return SupervisorStrategy::oneForOne(
          [](const std::exception_ptr&) { return Directive::Escalate; });
    }
    std::vector<int>* seen;
    ActorRef child;
  };
  struct Grand : Actor {
    explicit Grand(std::vector<int>* seen) : seen(seen) {}
    void preStart(ReceiveContext& ctx) override {
      parent = ctx.spawn<Parent>("parent", ActorOptions::create(), seen);
    }
    void receive(ReceiveContext& ctx) override { ctx.tell(parent, std::move(ctx.message())); }
    SupervisorStrategy supervisorStrategy() override {
      return SupervisorStrategy::oneForOne(
          [](const std::exception_ptr&) { return Directive::Resume; });
    }
    std::vector<int>* seen;
    ActorRef parent;
  };
  std::vector<int> seen;
  ActorRef grand = kit.system().spawn<Grand>("grand", ActorOptions::create(), &seen);
  kit.run();
  grand.tell(std::string("fail"));
  kit.run();
  grand.tell(7);
  kit.run();
  EXPECT_EQ(seen, (std::vector<int>{7})) << "the child works again";
}

TEST(EdgeCases, AnAskQueuedAtAnActorThatStopsFailsAtOnceWithErrDead) {
  // SPEC A3
  TestKit kit;
  ActorRef mute = kit.system().spawn("mute", [](ReceiveContext&) {});
  mute.tell(PoisonPill{});
  auto reply = kit.system().ask<int>(mute, 1, 1h);  // queued behind the pill
  kit.run();
  ASSERT_EQ(reply.wait_for(0s), std::future_status::ready) << "no waiting for the hour";
  EXPECT_EQ(test::errorOf([&] { reply.get(); }), Error::ErrDead);
}

TEST(EdgeCases, AFullFailPolicyMailboxFedFromAnotherThreadDeadLettersQuietly) {
  // SPEC A4: from elsewhere the refusal is a dead letter, and nothing escapes
  // into the loop. The receiver's turns are macrotasks (Immediate), so a
  // burst of deliveries lands before it runs and overflows its mailbox.
  auto system = ActorSystem::create("overflow");
  std::atomic<int> handled{0};
  ActorRef slow = system->spawn(
      "slow", [&](ReceiveContext&) { handled.fetch_add(1); },
      ActorOptions::create()
          .withMailbox(MailboxOptions::bounded(2, OverflowPolicy::Fail))
          .withDispatcher(std::make_shared<ImmediateDispatcher>()));
  testing::internal::CaptureStderr();
  for (int i = 0; i < 200; ++i) slow.tell(i);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (handled.load() + static_cast<long>(system->deadLetterCount()) < 200 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  system->shutdown();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(handled.load() + static_cast<long>(system->deadLetterCount()), 200);
  EXPECT_EQ(err.find("ErrMailboxFull"), std::string::npos) << err;
}

TEST(EdgeCases, APriorityFunctionThatThrowsRefusesTheMessageAsADeadLetter) {
  // SPEC A4, A7
  TestKit kit;
  std::vector<int> seen;
  ActorRef a = kit.system().spawn(
      "p", [&](ReceiveContext& ctx) { seen.push_back(*ctx.get<int>()); },
      ActorOptions::create().withMailbox(MailboxOptions::priority([](const Message& m) {
        if (*m.get<int>() == 13) throw std::runtime_error("unlucky");
        return 0;
      })));
  std::vector<std::string> reasons;
  kit.system().eventStream().subscribe<DeadLetter>(
      [&](const DeadLetter& d) { reasons.push_back(d.reason); });
  kit.run();
  for (int i : {12, 13, 14}) a.tell(i);
  kit.run();
  EXPECT_EQ(seen, (std::vector<int>{12, 14}));
  EXPECT_EQ(kit.system().deadLetterCount(), 1u);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(reasons[0], "refused: the priority mailbox's priority function threw")
      << "the reason says why, not 'a full mailbox'";
}

// A third-party dispatcher that runs each unit inside execute(), at once,
// recursion and all: what the actor turn must survive from any dispatcher.
class RunsInsideExecute final : public Dispatcher {
 public:
  std::string_view id() const noexcept override { return "runs-inside-execute"; }
  using Dispatcher::execute;
  void execute(Task& task) override { task.run(); }
};

TEST(EdgeCases, ADispatcherThatRunsUnitsInsideExecuteNeverNestsATurnOfOneActor) {
  // SPEC A1, A4, D7: a handler that tells its own actor queues the message
  // behind the one it handles; the actor's turn is not entered again from
  // inside it (a turn reads its message where it waits in the mailbox, so a
  // nested turn would handle that message twice). Messages keep their order.
  auto system = ActorSystem::create("inside", ActorSystemOptions::create().withManualRun());
  std::vector<int> seen;
  int depth = 0;
  int deepest = 0;
  ActorRef self = system->spawn(
      "self",
      [&](ReceiveContext& ctx) {
        ++depth;
        deepest = std::max(deepest, depth);
        const std::string* s = ctx.get<std::string>();
        const int n = s != nullptr ? std::stoi(*s) : *ctx.get<int>();
        seen.push_back(n);
        if (n % 3 == 0 && n < 300) {
          ctx.tell(ctx.self(), n + 1);                  // a word
          ctx.tell(ctx.self(), std::to_string(n + 2));  // an owning message
          ctx.tell(ctx.self(), n + 3);
        }
        --depth;
      },
      ActorOptions::create().withDispatcher(std::make_shared<RunsInsideExecute>()));
  system->runUntilIdle();
  self.tell(0);
  system->runUntilIdle();
  ASSERT_EQ(seen.size(), 301u);
  for (int i = 0; i <= 300; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], i);
  EXPECT_EQ(deepest, 1);
  EXPECT_EQ(system->deadLetterCount(), 0u);
}

}  // namespace
}  // namespace coreactor
