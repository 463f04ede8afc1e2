// The TestKit itself, and logging with the turn's context. SPEC A12, A9.
#include <gtest/gtest.h>

#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "TestSupport.hpp"
#include "coreactor/Async.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using testkit::ExpectationFailed;
using testkit::TestKit;

struct Ping {
  int n;
};
struct Pong {
  int n;
};

TEST(TestKit, AProbeReceivesRepliesAndChecksTheirType) {
  // SPEC A12
  TestKit kit;
  auto probe = kit.probe();
  ActorRef echo = kit.system().spawn("echo", [](ReceiveContext& ctx) {
    if (auto* p = ctx.get<Ping>()) ctx.reply(Pong{p->n});
  });
  echo.tell(Ping{7}, probe.ref());
  EXPECT_EQ(probe.expectMsg<Pong>().n, 7);
  EXPECT_EQ(probe.lastSender(), echo);
  probe.expectNoMsg();
  echo.tell(Ping{1}, probe.ref());
  EXPECT_THROW(probe.expectMsg<Ping>(), ExpectationFailed) << "a Pong is not a Ping";
  EXPECT_THROW(probe.expectMsg<Pong>(), ExpectationFailed) << "nothing left";
}

TEST(TestKit, SendsNAndObservesN) {
  // SPEC A12
  TestKit kit;
  auto probe = kit.probe();
  ActorRef doubler = kit.system().spawn(
      "doubler", [probe = probe.ref()](ReceiveContext& ctx) { probe.tell(*ctx.get<int>() * 2); });
  kit.sendN(doubler, 100, [](std::size_t i) { return static_cast<int>(i); });
  auto got = probe.expectMsgs<int>(100);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i], 2 * i);
  probe.expectNoMsg();
}

struct Later : AsyncActor {
  explicit Later(ActorRef to) : to(to) {}
  Async receiveAsync(ReceiveContext& ctx) override {
    co_await ctx.delay(2s);
    to.tell(std::string("late"));
  }
  ActorRef to;
};

TEST(TestKit, ExpectsWithinManualTime) {
  // SPEC A12: "within" is the manual clock's time, so nothing sleeps.
  TestKit kit;
  auto probe = kit.probe();
  ActorRef later = kit.system().spawn<Later>("later", ActorOptions::create(), probe.ref());
  later.tell(1);
  probe.expectNoMsg(1s);  // 1 s of manual time passes: too early
  EXPECT_EQ(probe.expectMsg<std::string>(1s), "late");
}

TEST(Logging, CarriesTheActorPathIsolateAndMessageType) {
  // SPEC A9
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  TestKit kit("mdc", ActorSystemOptions::create().withLogSink(sink));
  ActorRef talker = kit.system().spawn(
      "talker", [](ReceiveContext& ctx) { ctx.log().info("handling {}", *ctx.get<int>()); });
  talker.tell(42);
  kit.run();
  const std::string text = out.str();
  EXPECT_NE(text.find("/user/talker"), std::string::npos) << text;
  EXPECT_NE(text.find("isolate=mdc/0"), std::string::npos) << text;
  EXPECT_NE(text.find("msg=int"), std::string::npos) << text;
  EXPECT_NE(text.find("handling 42"), std::string::npos) << text;
}

TEST(Logging, RespectsTheLevel) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  TestKit kit("quiet",
              ActorSystemOptions::create().withLogSink(sink).withLogLevel(LogLevel::Error));
  ActorRef talker =
      kit.system().spawn("talker", [](ReceiveContext& ctx) { ctx.log().info("chatter"); });
  talker.tell(1);
  kit.run();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace coreactor
