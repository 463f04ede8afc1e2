// metrics/tell/plain and metrics/tell/scraped: what reading the metrics costs
// the message path. One threaded isolate; an actor on it tells a sink on the
// same isolate a batch of messages, and the time runs from the first tell to
// the sink's count reaching the batch, taken on the loop. "plain": nothing
// reads the metrics. "scraped": the system serves its endpoint and a thread
// fetches GET /metrics in a loop, a scrape every 10 ms (Prometheus scrapes
// every 15 s by default: this is 1,500 times that). The counting itself
// is always on; it is in both rows (and in every actor/* row). The scraped
// row runs a plain system beside it, batch for batch, and reports its time
// over the plain one's (x_floor_paired), which its target reads.
#include "metrics/MetricsBench.hpp"

#include <atomic>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Asio.hpp"
#include "harness/BenchSupport.hpp"

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

/// One system with a teller and a sink on its single isolate.
class Flood {
 public:
  explicit Flood(ActorSystemOptions options)
      : system_(ActorSystem::create("metrics-bench", options)) {
    const ActorRef sink =
        system_->spawn<Sink>("sink", ActorOptions::create(), &received_, &outcome_);
    teller_ = system_->spawn<Teller>("teller", ActorOptions::create(), sink, &received_, &outcome_);
  }
  ~Flood() { system_->shutdown(); }

  std::uint16_t endpointPort() const { return system_->metricsEndpointPort(); }

  /// One batch, timed on the loop; `ran` is 0 if it did not complete in a minute.
  OpMeter::Timed batch() {
    {
      std::lock_guard<std::mutex> lock(outcome_.mutex);
      outcome_.ready = false;
    }
    teller_.tell(Go{});
    std::unique_lock<std::mutex> lock(outcome_.mutex);
    outcome_.done.wait_for(lock, std::chrono::seconds(60), [&] { return outcome_.ready; });
    return outcome_.ready ? outcome_.timed : OpMeter::Timed{};
  }

 private:
  std::unique_ptr<ActorSystem> system_;
  std::int64_t received_ = 0;
  Outcome outcome_;
  ActorRef teller_;
};

void tellPlain(benchmark::State& state) {
  Flood plain(ActorSystemOptions::create().withIsolates(1));
  OpMeter meter;
  for (auto _ : state) {
    if (!meter.measureTimed(state, "messages", kBatch, [&] { return plain.batch(); })) break;
  }
  meter.report(state);
}

// Each batch on the scraped system is paired with one on a plain system that
// lives beside it, so both see the same phase of the machine; which of the
// two goes first alternates from pair to pair, so neither gains from going
// second (a warm core, a thread the scheduler just woke). Both loops are
// pinned to the same CPU: unpinned, the kernel moves each between the two
// CPUs of a small VM and a batch that lands away from where its memory was
// last touched takes up to twice as long, a swing that buries a cost of a
// few percent. The row's paired
// ratio is the scraped batches' time over the plain ones' in the repetition:
// a sum, not a median of pairs, so the batches a scrape lands in count.
void tellScraped(benchmark::State& state) {
  const ActorSystemOptions pinned =
      ActorSystemOptions::create().withIsolates(1).withPinning(Pinning::PerCore);
  Flood plain(pinned);
  Flood scraped(pinned.withMetricsEndpoint(0));
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> scrapes{0};
  std::thread scraper(scrape, scraped.endpointPort(), std::cref(stop), std::ref(scrapes));
  OpMeter meter;
  OpMeter::WallClock::duration plainTime{};
  OpMeter::WallClock::duration scrapedTime{};
  bool plainFirst = true;
  for (auto _ : state) {
    OpMeter::Timed before;
    if (plainFirst) before = plain.batch();
    OpMeter::Timed timed;
    if (!meter.measureTimed(state, "messages", kBatch, [&] { return timed = scraped.batch(); })) {
      break;
    }
    if (!plainFirst) before = plain.batch();
    if (!checkCompleted(state, "messages (plain)", kBatch, before.ran)) break;
    plainFirst = !plainFirst;
    plainTime += before.elapsed;
    scrapedTime += timed.elapsed;
  }
  stop = true;
  scraper.join();
  meter.report(state);
  if (!state.error_occurred() && plainTime.count() > 0) {
    state.counters[kPairedFloorRatioCounter] =
        std::chrono::duration<double>(scrapedTime) / std::chrono::duration<double>(plainTime);
  }
  state.counters["scrapes"] = benchmark::Counter(static_cast<double>(scrapes.load()));
}

}  // namespace

void registerMetricsBenchmarks() {
  registerTimed(benchmark::RegisterBenchmark("metrics/tell/plain", &tellPlain));
  // Fifteen repetitions: a scrape lands in about one batch in ten, and the
  // paired ratio is a few percent against a target of five.
  registerTimed(
      benchmark::RegisterBenchmark("metrics/tell/scraped", &tellScraped)->Repetitions(15));
}

}  // namespace coreactor::bench
