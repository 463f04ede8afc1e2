// The system's metrics (coreactor/Metrics.hpp): what each isolate counts,
// the snapshot, the Prometheus text, and the HTTP endpoint that serves it.
// Counts are asserted exactly where the test controls everything that runs
// (a manual system), and by their relations where threads run (what was sent
// across was received across), never by time.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <future>
#include <string>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Asio.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using testkit::TestKit;

struct Count {
  int n = 0;
};

struct Counter : Actor {
  explicit Counter(std::atomic<int>* seen) : seen(seen) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Count>()) seen->fetch_add(1);
  }
  std::atomic<int>* seen;
};

TEST(Metrics, MessagesTurnsAndDeadLettersAreCountedOnTheIsolateThatHadThem) {
  TestKit kit("metrics", ActorSystemOptions::create().withIsolates(2));
  std::atomic<int> seen{0};
  ActorRef counter = kit.system().spawn<Counter>(
      "counter", ActorOptions::create().withIsolate(1).withThroughput(4), &seen);
  kit.run();
  const MetricsSnapshot before = kit.system().metrics();
  ASSERT_EQ(before.isolates.size(), 2u);
  EXPECT_EQ(before.isolates[1].isolate, 1u);
  for (int i = 0; i < 10; ++i) counter.tell(Count{i});
  kit.run();
  ASSERT_EQ(seen.load(), 10);
  const MetricsSnapshot after = kit.system().metrics();
  EXPECT_EQ(after.isolates[1].messages - before.isolates[1].messages, 10u);
  EXPECT_EQ(after.isolates[1].turns - before.isolates[1].turns, 3u) << "4 + 4 + 2 a turn";
  EXPECT_EQ(after.isolates[0].messages, before.isolates[0].messages);

  kit.system().stop(counter);
  kit.run();
  counter.tell(Count{});
  const MetricsSnapshot dead = kit.system().metrics();
  EXPECT_EQ(dead.isolates[1].deadLetters - after.isolates[1].deadLetters, 1u);
  EXPECT_EQ(dead.total().deadLetters, kit.system().deadLetterCount());
}

TEST(Metrics, TimerLagIsHowLateATimerRanAfterItsDeadline) {
  TestKit kit;
  // The manual clock: a timer runs exactly when the test moves it.
  testkit::TestProbe probe = kit.probe();
  ASSERT_FALSE(kit.system().scheduleOnce(Count{}, probe.ref(), 10ms).wait());
  kit.advance(15ms);  // due at 10 ms, run at 15 ms
  probe.expectMsg<Count>();
  const IsolateMetrics m = kit.system().metrics().total();
  EXPECT_EQ(m.timerLagMaxNanos, std::uint64_t(5'000'000));
  EXPECT_GE(m.timersFired, 1u);
  EXPECT_GE(m.timerLagSumNanos, m.timerLagMaxNanos);
}

TEST(Metrics, LiveActorsAndSchedulesAreGaugesOfNow) {
  TestKit kit;
  std::atomic<int> seen{0};
  const std::uint64_t actorsAtStart = kit.system().metrics().total().liveActors;
  ActorRef a = kit.system().spawn<Counter>("a", ActorOptions::create(), &seen);
  ActorRef b = kit.system().spawn<Counter>("b", ActorOptions::create(), &seen);
  ASSERT_FALSE(kit.system().schedule(Count{}, a, 1s).wait());
  kit.run();
  IsolateMetrics m = kit.system().metrics().total();
  EXPECT_EQ(m.liveActors, actorsAtStart + 2);
  EXPECT_EQ(m.liveSchedules, 1u);
  kit.system().stop(a);
  kit.system().stop(b);
  kit.run();
  m = kit.system().metrics().total();
  EXPECT_EQ(m.liveActors, actorsAtStart);
  EXPECT_EQ(m.liveSchedules, 1u) << "a schedule to a stopped target ends at its next tick";
  kit.advance(1s);
  EXPECT_EQ(kit.system().metrics().total().liveSchedules, 0u);
}

TEST(Metrics, AMailboxHighWaterMarkIsKeptForTheActorsThatOptIn) {
  TestKit kit;
  std::atomic<int> seen{0};
  ActorRef watched = kit.system().spawn<Counter>(
      "watched", ActorOptions::create().withMailboxHighWaterMark(), &seen);
  ActorRef other = kit.system().spawn<Counter>("other", ActorOptions::create(), &seen);
  kit.run();
  for (int i = 0; i < 50; ++i) watched.tell(Count{i});
  for (int i = 0; i < 50; ++i) other.tell(Count{i});
  kit.run();
  for (int i = 0; i < 7; ++i) watched.tell(Count{i});
  kit.run();
  const MetricsSnapshot s = kit.system().metrics();
  ASSERT_EQ(s.mailboxes.size(), 1u) << "only the actor that opted in";
  EXPECT_EQ(s.mailboxes[0].actor, watched);
  EXPECT_EQ(s.mailboxes[0].path, "/user/watched");
  EXPECT_EQ(s.mailboxes[0].depth, 50u) << "the deepest, not the last";
  kit.system().stop(watched);
  kit.run();
  EXPECT_TRUE(kit.system().metrics().mailboxes.empty()) << "a stopped actor leaves the list";
}

// Tells its peer `count` messages when told to.
struct Flood : Actor {
  Flood(ActorRef peer, int count) : peer(peer), count(count) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Count>()) {
      for (int i = 0; i < count; ++i) peer.tell(Count{i}, ctx.self());
    }
  }
  ActorRef peer;
  int count;
};

TEST(Metrics, WhatCrossedBetweenIsolatesIsCountedOnBothSides) {
  auto system = ActorSystem::create("crossing", ActorSystemOptions::create().withIsolates(2));
  std::atomic<int> seen{0};
  ActorRef far = system->spawn<Counter>("far", ActorOptions::create().withIsolate(1), &seen);
  ActorRef near = system->spawn<Flood>("near", ActorOptions::create().withIsolate(0), far, 1000);
  near.tell(Count{});
  for (int spins = 0; seen.load() < 1000 && spins < 60'000; ++spins) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(seen.load(), 1000);
  // Quiet now: what was sent across has been taken (or refused: none here).
  MetricsSnapshot s = system->metrics();
  for (int spins = 0; s.total().crossingsReceived < s.total().crossingsSent && spins < 60'000;
       ++spins) {
    std::this_thread::sleep_for(1ms);
    s = system->metrics();
  }
  EXPECT_GE(s.isolates[0].crossingsSent, 1000u);
  EXPECT_GE(s.isolates[1].crossingsReceived, 1000u);
  EXPECT_EQ(s.total().crossingsRefused, 0u);
  EXPECT_EQ(s.total().crossingsReceived, s.total().crossingsSent);
  EXPECT_GE(s.isolates[1].messages, 1000u);
  system->shutdown();
}

struct AsksForMetrics : Actor {
  explicit AsksForMetrics(std::promise<std::string>* outcome) : outcome(outcome) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Count>()) return;
    try {
      (void)ctx.system().metrics();
      outcome->set_value("no error");
    } catch (const std::system_error& e) {
      if (e.code() != Error::ErrWouldDeadlock) {
        outcome->set_value(e.what());
        return;
      }
      ctx.system().metrics([outcome = outcome](MetricsSnapshot s) {
        outcome->set_value("callback with " + std::to_string(s.isolates.size()));
      });
    }
  }
  std::promise<std::string>* outcome;
};

TEST(Metrics, OnALoopTheWaitingFormIsErrWouldDeadlockAndTheCallbackFormAnswers) {
  auto system = ActorSystem::create("inside", ActorSystemOptions::create().withIsolates(2));
  std::promise<std::string> outcome;
  std::future<std::string> result = outcome.get_future();
  system->spawn<AsksForMetrics>("asker", ActorOptions::create(), &outcome).tell(Count{});
  ASSERT_EQ(result.wait_for(60s), std::future_status::ready);
  EXPECT_EQ(result.get(), "callback with 2");
  system->shutdown();
}

TEST(Metrics, ThePrometheusTextHasEveryFamilyWithItsTypeAndASamplePerIsolate) {
  TestKit kit("text", ActorSystemOptions::create().withIsolates(2));
  std::atomic<int> seen{0};
  ActorRef watched =
      kit.system().spawn<Counter>("w", ActorOptions::create().withMailboxHighWaterMark(), &seen);
  kit.run();
  watched.tell(Count{});
  kit.run();
  const MetricsSnapshot s = kit.system().metrics();
  const std::string text = s.prometheusText();
  for (const char* family :
       {"loop_iterations_total", "macrotasks_total", "microtasks_total", "timers_fired_total",
        "loop_sleeps_total", "macrotask_queue_depth", "microtask_queue_depth",
        "timer_lag_seconds_total", "timer_lag_max_seconds", "turns_total", "messages_total",
        "hybrid_yields_total", "live_actors", "live_schedules", "dead_letters_total",
        "crossings_sent_total", "crossings_received_total", "crossings_refused_total",
        "inbox_depth"}) {
    const std::string name = std::string("coreactor_") + family;
    EXPECT_NE(text.find("# TYPE " + name + " "), std::string::npos) << name;
    EXPECT_NE(text.find(name + "{system=\"text\",isolate=\"0\"} "), std::string::npos) << name;
    EXPECT_NE(text.find(name + "{system=\"text\",isolate=\"1\"} "), std::string::npos) << name;
  }
  const std::string messages = "coreactor_messages_total{system=\"text\",isolate=\"" +
                               std::to_string(watched.isolateIndex()) + "\"} ";
  const std::size_t at = text.find(messages);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(std::stoull(text.substr(at + messages.size())),
            s.isolates[watched.isolateIndex()].messages);
  EXPECT_NE(text.find("coreactor_mailbox_high_water{system=\"text\",actor=\"/user/w\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.back(), '\n');
}

// One HTTP exchange with the endpoint: the status and the body.
std::pair<int, std::string> exchange(std::uint16_t port, const std::string& raw) {
  namespace asio = boost::asio;
  namespace http = boost::beast::http;
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), port});
  asio::write(socket, asio::buffer(raw));
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return {static_cast<int>(response.result_int()), response.body()};
}

TEST(MetricsEndpoint, ServesThePrometheusTextAtMetricsAndNamedStatusesElsewhere) {
  auto system = ActorSystem::create(
      "served", ActorSystemOptions::create().withIsolates(2).withMetricsEndpoint(0));
  const std::uint16_t port = system->metricsEndpointPort();
  ASSERT_NE(port, 0) << "port 0 takes a free one, and says which";
  std::atomic<int> seen{0};
  ActorRef counter = system->spawn<Counter>("c", ActorOptions::create(), &seen);
  for (int i = 0; i < 5; ++i) counter.tell(Count{i});

  const auto [status, body] =
      exchange(port, "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status, 200);
  EXPECT_NE(body.find("# TYPE coreactor_messages_total counter"), std::string::npos);
  EXPECT_NE(body.find("coreactor_messages_total{system=\"served\",isolate=\"1\"}"),
            std::string::npos);
  EXPECT_EQ(exchange(port, "GET /other HTTP/1.1\r\nHost: x\r\n\r\n").first, 404);
  EXPECT_EQ(exchange(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").first,
            405);
  EXPECT_EQ(exchange(port, "NONSENSE\r\n\r\n").first, 400);
  system->shutdown();
}

TEST(MetricsEndpoint, AnAddressThatIsNoIpAddressIsErrInvalidOption) {
  try {
    (void)ActorSystemOptions::create().withMetricsEndpoint(9100, "localhost:80");
    FAIL() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), Error::ErrInvalidOption);
  }
}

}  // namespace
}  // namespace coreactor
