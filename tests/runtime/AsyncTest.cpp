// Coroutine handlers: await an ask or a delay; non-reentrant by default; a
// throw after an await reaches supervision. SPEC A11.
#include <gtest/gtest.h>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Async.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;

struct Manual {
  ManualClock clock;
  std::unique_ptr<ActorSystem> system =
      ActorSystem::create("async", ActorSystemOptions::create().withManualRun().withClock(&clock));
};

struct Slow : AsyncActor {
  explicit Slow(std::vector<std::string>* log) : log(log) {}
  Async receiveAsync(ReceiveContext& ctx) override {
    const int n = *ctx.get<int>();
    log->push_back("start " + std::to_string(n));
    co_await ctx.delay(10ms);
    log->push_back("end " + std::to_string(*ctx.get<int>()));  // the message is still there
    if (n == 99) throw std::runtime_error("after the await");
  }
  std::vector<std::string>* log;
};

TEST(AsyncActor, TakesTheNextMessageOnlyWhenTheHandlerHasFinished) {
  // SPEC A11: non-reentrant by default.
  Manual m;
  std::vector<std::string> log;
  ActorRef slow = m.system->spawn<Slow>("slow", ActorOptions::create(), &log);
  slow.tell(1);
  slow.tell(2);
  m.system->runUntilIdle();
  EXPECT_EQ(log, (std::vector<std::string>{"start 1"}));
  m.clock.advance(10ms);
  m.system->runUntilIdle();
  EXPECT_EQ(log, (std::vector<std::string>{"start 1", "end 1", "start 2"}));
  m.clock.advance(10ms);
  m.system->runUntilIdle();
  EXPECT_EQ(log.back(), "end 2");
}

struct Reentrant : AsyncActor {
  explicit Reentrant(std::vector<std::string>* log) : log(log) {}
  bool reentrant() const override { return true; }
  Async receiveAsync(ReceiveContext& ctx) override {
    const int n = *ctx.get<int>();  // copied before the first await, as documented
    log->push_back("start " + std::to_string(n));
    co_await ctx.delay(10ms);
    log->push_back("end " + std::to_string(n));
    EXPECT_EQ(ctx.get<int>(), nullptr) << "no current message between turns";
  }
  std::vector<std::string>* log;
};

TEST(AsyncActor, CanOptIntoReentrancy) {
  // SPEC A11
  Manual m;
  std::vector<std::string> log;
  ActorRef r = m.system->spawn<Reentrant>("r", ActorOptions::create(), &log);
  r.tell(1);
  r.tell(2);
  m.system->runUntilIdle();
  EXPECT_EQ(log, (std::vector<std::string>{"start 1", "start 2"}));
  m.clock.advance(10ms);
  m.system->runUntilIdle();
  EXPECT_EQ(log.size(), 4u);
}

struct Stats {
  int instances = 0;
  int restarts = 0;
};
struct Failing : Slow {
  Failing(std::vector<std::string>* log, Stats* s) : Slow(log), stats(s) { ++stats->instances; }
  void postRestart(ReceiveContext&, const std::exception_ptr&) override { ++stats->restarts; }
  Stats* stats;
};

TEST(AsyncActor, AThrowAfterAnAwaitReachesSupervision) {
  // SPEC A11, A6
  Manual m;
  std::vector<std::string> log;
  Stats stats;
  ActorRef f = m.system->spawn<Failing>("f", ActorOptions::create(), &log, &stats);
  f.tell(99);
  f.tell(3);
  m.system->runUntilIdle();
  m.clock.advance(10ms);
  m.system->runUntilIdle();
  EXPECT_EQ(stats.restarts, 1) << "the guardian restarted it";
  EXPECT_EQ(log.back(), "start 3") << "and the next message went to the new instance";
}

struct Doubler : AsyncActor {
  explicit Doubler(ActorRef echo) : echo(echo) {}
  Async receiveAsync(ReceiveContext& ctx) override {
    const int n = *ctx.get<int>();
    AskResult<int> r = co_await ctx.ask<int>(echo, n, 1s);
    if (r) ctx.reply(r.value() * 2);
  }
  ActorRef echo;
};

TEST(AsyncActor, AwaitsAnAskAndRepliesWithTheResult) {
  // SPEC A11, A3
  Manual m;
  ActorRef echo =
      m.system->spawn("echo", [](ReceiveContext& ctx) { ctx.reply(*ctx.get<int>() + 1); });
  ActorRef doubler = m.system->spawn<Doubler>("doubler", ActorOptions::create(), echo);
  auto f = m.system->ask<int>(doubler, 20, 1s);
  m.system->runUntilIdle();
  ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(f.get(), 42);
}

TEST(AsyncActor, AStopDestroysASuspendedHandler) {
  Manual m;
  std::vector<std::string> log;
  ActorRef slow = m.system->spawn<Slow>("slow", ActorOptions::create(), &log);
  slow.tell(1);
  m.system->runUntilIdle();
  m.system->stop(slow);
  m.system->runUntilIdle();
  m.clock.advance(10ms);
  m.system->runUntilIdle();
  EXPECT_EQ(log, (std::vector<std::string>{"start 1"})) << "never resumed after the stop";
}

}  // namespace
}  // namespace coreactor
