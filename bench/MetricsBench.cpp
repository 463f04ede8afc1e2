// metrics/tell/plain and metrics/tell/scraped: what reading the metrics costs
// the message path. One threaded isolate; an actor on it tells a sink on the
// same isolate a batch of messages, and the time runs from the first tell to
// the sink's count reaching the batch, taken on the loop. "plain": nothing
// reads the metrics. "scraped": the system serves its endpoint and a thread
// fetches GET /metrics in a loop, a scrape every 10 ms (Prometheus scrapes
// every 15 s by default: this is 1,500 times that). The counting itself
// is always on; it is in both rows (and in every actor/* row).
#include "MetricsBench.hpp"

#include <atomic>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "BenchSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Asio.hpp"

namespace coreactor::bench {
namespace {

constexpr std::int64_t kBatch = 100'000;

struct Tick {
  int n;
};
struct Go {};

// What the loop measured, handed to the bench thread.
struct Outcome {
  std::mutex mutex;
  std::condition_variable done;
  bool ready = false;
  OpMeter::Timed timed;
  OpMeter::WallClock::time_point start;  // written and read on the loop
};

class Sink final : public Actor {
 public:
  Sink(std::int64_t* received, Outcome* outcome) : received_(received), outcome_(outcome) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Tick>()) return;
    if (++*received_ == kBatch) {
      std::lock_guard<std::mutex> lock(outcome_->mutex);
      outcome_->timed.ran = *received_;
      outcome_->timed.elapsed = OpMeter::WallClock::now() - outcome_->start;
      outcome_->ready = true;
      outcome_->done.notify_one();
    }
  }

 private:
  std::int64_t* received_;
  Outcome* outcome_;
};

class Teller final : public Actor {
 public:
  Teller(ActorRef sink, std::int64_t* received, Outcome* outcome)
      : sink_(sink), received_(received), outcome_(outcome) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Go>()) return;
    *received_ = 0;  // the sink's count, on the same loop
    outcome_->start = OpMeter::WallClock::now();
    for (std::int64_t i = 0; i < kBatch; ++i) sink_.tell(Tick{static_cast<int>(i)});
  }

 private:
  ActorRef sink_;
  std::int64_t* received_;
  Outcome* outcome_;
};

// GET /metrics in a loop until told to stop; counts the answers.
void scrape(std::uint16_t port, const std::atomic<bool>& stop, std::atomic<std::int64_t>& scrapes) {
  namespace asio = boost::asio;
  namespace http = boost::beast::http;
  asio::io_context io;
  while (!stop.load(std::memory_order_relaxed)) {
    try {
      asio::ip::tcp::socket socket(io);
      socket.connect({asio::ip::make_address("127.0.0.1"), port});
      http::request<http::empty_body> request(http::verb::get, "/metrics", 11);
      request.set(http::field::host, "127.0.0.1");
      http::write(socket, request);
      boost::beast::flat_buffer buffer;
      http::response<http::string_body> response;
      http::read(socket, buffer, response);
      if (response.result() == http::status::ok) scrapes.fetch_add(1, std::memory_order_relaxed);
    } catch (const std::exception&) {
      // The system went away: the row is ending.
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void tellWhileScraped(benchmark::State& state, bool scraped) {
  auto options = ActorSystemOptions::create().withIsolates(1);
  if (scraped) options = options.withMetricsEndpoint(0);
  auto system = ActorSystem::create("metrics-bench", options);
  std::int64_t received = 0;
  Outcome outcome;
  const ActorRef sink = system->spawn<Sink>("sink", ActorOptions::create(), &received, &outcome);
  const ActorRef teller =
      system->spawn<Teller>("teller", ActorOptions::create(), sink, &received, &outcome);
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> scrapes{0};
  std::thread scraper;
  if (scraped) {
    scraper =
        std::thread(scrape, system->metricsEndpointPort(), std::cref(stop), std::ref(scrapes));
  }
  OpMeter meter;
  for (auto _ : state) {
    const bool ok = meter.measureTimed(state, "messages", kBatch, [&] {
      {
        std::lock_guard<std::mutex> lock(outcome.mutex);
        outcome.ready = false;
      }
      teller.tell(Go{});
      std::unique_lock<std::mutex> lock(outcome.mutex);
      outcome.done.wait_for(lock, std::chrono::seconds(60), [&] { return outcome.ready; });
      return outcome.ready ? outcome.timed : OpMeter::Timed{};
    });
    if (!ok) break;
  }
  stop = true;
  if (scraper.joinable()) scraper.join();
  meter.report(state);
  if (scraped) state.counters["scrapes"] = benchmark::Counter(static_cast<double>(scrapes.load()));
  system->shutdown();
}

}  // namespace

void registerMetricsBenchmarks() {
  benchmark::RegisterBenchmark("metrics/tell/plain", &tellWhileScraped, false)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("metrics/tell/scraped", &tellWhileScraped, true)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace coreactor::bench
