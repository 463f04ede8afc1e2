// bench/caf/Tell.cpp — actor/tell/<N> on CAF: N tells of a one-int struct
// from one actor into a sink, all handled (ours: bench/actor/Tell.cpp).
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

/// Counts its Count messages; a Flush (sent after a batch, so handled after
/// all of it: CAF keeps the order between two actors) finishes the round.
class Sink final : public caf::event_based_actor {
 public:
  explicit Sink(caf::actor_config& config) : caf::event_based_actor(config) {}
  caf::behavior make_behavior() override {
    return {
        [this](const Count&) { ++received_; },
        [this](const Flush& flush) {
          flush.round->finish(received_);
          received_ = 0;
        },
    };
  }

 private:
  std::int64_t received_ = 0;
};

/// Sends a batch of tells to the sink, then the Flush.
caf::behavior teller(caf::event_based_actor* self, caf::actor sink, std::int64_t batch) {
  return {[=](const Go& go) {
    go.round->begin = WallClock::now();
    for (std::int64_t i = 0; i < batch; ++i) self->send(sink, Count{static_cast<int>(i)});
    self->send(sink, Flush{go.round});
  }};
}

void tellBatch(benchmark::State& state, std::int64_t batch) {
  Arm arm(workloads::tellRow(batch));
  const caf::actor sink = arm.spawn<Sink>();
  const caf::actor driver = arm.spawn(teller, sink, batch);
  OpMeter meter;
  for (auto _ : state) {
    Round round;
    if (!meter.measureTimed(state, "messages", batch,
                            [&] { return arm.runRound(driver, round, Go{&round}); })) {
      break;
    }
  }
  meter.report(state);
}

}  // namespace

void registerTellRows() {
  for (const std::int64_t batch : workloads::kTellBatches) {
    registerTimed(
        benchmark::RegisterBenchmark(workloads::tellRow(batch).c_str(), &tellBatch, batch));
  }
}

}  // namespace coreactor::bench::cafarm
