// bench/isolates/Foreign.cpp — isolates/foreign/*: tells from a foreign thread,
// and their floor, floor/moodycamel-bulk.
//
//   floor/moodycamel-bulk  10,000 items of a foreign letter's size moved from
//                          one thread to another through a moodycamel
//                          ConcurrentQueue, enqueued in bulk (256) with a
//                          producer token, dequeued in bulk: the foreign
//                          path's floor.
//   isolates/foreign/tell  10,000 plain tells from the benchmark's thread (no
//                          isolate) to one actor on an isolate of its own,
//                          until all are handled in order.
//   isolates/foreign/feeder the same through a Feeder.
#include <benchmark/benchmark.h>

#include <concurrentqueue/concurrentqueue.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Feeder.hpp"
#include "harness/Completion.hpp"
#include "isolates/Families.hpp"
#include "isolates/Floors.hpp"
#include "isolates/Pinning.hpp"
#include "isolates/TwoThreads.hpp"
#include "runtime/ForeignReceiver.hpp"

namespace coreactor::bench::isolates {
namespace {

/// floor/moodycamel-bulk and isolates/foreign/*: messages per round, the
/// batch a producer thread that is no isolate hands over.
constexpr std::int64_t kForeignBatch = 10'000;

/// The size of a foreign inbox's letter (runtime/ForeignReceiver.hpp: the
/// target's id, the message and its sender, a system message's pointer),
/// rebuilt from plain bytes for the floor.
struct Letter96 {
  std::uint64_t n;
  unsigned char rest[sizeof(detail::ForeignInbox::Letter) - sizeof(std::uint64_t)];
};

// g++ 12 reports a -Wstringop-overflow inside moodycamel's inlined bulk
// enqueue (an atomic load it believes writes 8 bytes into nothing): a false
// positive of its range analysis, silenced for this floor only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
/// floor/moodycamel-bulk: kForeignBatch letters' worth of bytes moved from
/// one thread to another through a moodycamel ConcurrentQueue, enqueued in
/// bulk with a producer token (batches of 256), dequeued in bulk by the
/// other: the floor of the foreign path, measured in the same run.
Timed moodycamelBulkRound() {
  moodycamel::ConcurrentQueue<Letter96> queue;
  Steady::time_point start{};
  Steady::time_point end{};
  std::int64_t inOrder = 0;
  const Steady::time_point deadline = Steady::now() + kGiveUp;
  runPair(
      [&] {
        moodycamel::ProducerToken token(queue);
        std::vector<Letter96> batch(kConsumeBatch);
        start = Steady::now();
        for (std::int64_t i = 0; i < kForeignBatch;) {
          const std::int64_t n =
              std::min<std::int64_t>(kForeignBatch - i, static_cast<std::int64_t>(kConsumeBatch));
          for (std::int64_t k = 0; k < n; ++k)
            batch[static_cast<std::size_t>(k)].n = static_cast<std::uint64_t>(i + k);
          queue.enqueue_bulk(token, batch.begin(), static_cast<std::size_t>(n));
          i += n;
        }
      },
      [&] {
        Spinner spin(deadline);
        std::vector<Letter96> batch(kConsumeBatch);
        std::uint64_t next = 0;
        while (next < static_cast<std::uint64_t>(kForeignBatch)) {
          const std::size_t n = queue.try_dequeue_bulk(batch.begin(), kConsumeBatch);
          if (n == 0 && !spin.wait()) break;
          for (std::size_t i = 0; i < n; ++i, ++next) inOrder += batch[i].n == next ? 1 : 0;
        }
        end = Steady::now();
      });
  return {inOrder, end - start};
}
#pragma GCC diagnostic pop

/// What the sink of isolates/foreign/* reports at the end of a round.
struct ForeignDone {
  std::int64_t inOrder = 0;
  Completion completion;
};

/// Counts what it is told and says when it has seen a round's worth, in order.
class ForeignSink final : public Actor {
 public:
  explicit ForeignSink(ForeignDone* done) : done_(done) {}
  void receive(ReceiveContext& ctx) override {
    if (const std::int64_t* n = ctx.get<std::int64_t>()) {
      inOrder_ += *n == seen_ ? 1 : 0;
      if (++seen_ == kForeignBatch) {
        done_->inOrder = inOrder_;
        done_->completion.raise();
        seen_ = inOrder_ = 0;
      }
    }
  }

 private:
  ForeignDone* done_;
  std::int64_t seen_ = 0;
  std::int64_t inOrder_ = 0;
};

/// isolates/foreign/tell and isolates/foreign/feeder: kForeignBatch tells
/// from the benchmark's thread (no isolate) to one actor on an isolate of
/// its own, one by one or through a Feeder; a round ends when the actor has
/// handled them all, in order.
void foreignTells(benchmark::State& state, bool feeder) {
  std::unique_ptr<ActorSystem> system;
  std::optional<ScopedPin> here;
  ActorRef sink;
  ForeignDone done;
  if (!setUp(state, [&] {
        system = threadedSystem(1);
        if (pinning()) {
          pinIsolate(*system, 0, cpuFor(1));
          here.emplace(cpuFor(0));
        }
        sink = system->spawn<ForeignSink>("sink", ActorOptions::create(), &done);
      })) {
    return;
  }
  OpMeter meter;
  for (auto _ : state) {
    done.completion.reset();
    const bool ok = meter.measureTimed(state, "tells handled in order", kForeignBatch, [&] {
      const Steady::time_point start = Steady::now();
      if (feeder) {
        Feeder f(*system);
        for (std::int64_t i = 0; i < kForeignBatch; ++i) f.tell(sink, i);
      } else {
        for (std::int64_t i = 0; i < kForeignBatch; ++i) sink.tell(i);
      }
      if (!done.completion.waitFor(kGiveUp)) return Timed{0, Steady::now() - start};
      return Timed{done.inOrder, Steady::now() - start};
    });
    if (!ok) break;
  }
  meter.report(state);
}

}  // namespace

void registerForeignRows() {
  registerTimed(benchmark::RegisterBenchmark("floor/moodycamel-bulk", &rounds<Timed (*)()>, "items",
                                             kForeignBatch, &moodycamelBulkRound));
  registerTimed(benchmark::RegisterBenchmark("isolates/foreign/tell", &foreignTells, false));
  registerTimed(benchmark::RegisterBenchmark("isolates/foreign/feeder", &foreignTells, true));
}

}  // namespace coreactor::bench::isolates
