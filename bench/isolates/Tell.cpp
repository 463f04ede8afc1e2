// bench/isolates/Tell.cpp — isolates/tell/*: a burst of tells from one
// actor to another, across two isolates or on one.
//
//   isolates/tell/cross    one tell of a burst of 100,000 small messages from an
//   isolates/tell/same     actor on isolate 0 to one on isolate 1 (cross) or on
//                          isolate 0 (same), in a system of two isolates: from
//                          the first send until the receiver has handled all.
//
// Every message carries its sequence number and the receiver counts those
// that arrive in order.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "coreactor/ActorSystem.hpp"
#include "harness/Completion.hpp"
#include "isolates/Families.hpp"
#include "isolates/Floors.hpp"
#include "isolates/Pinning.hpp"
#include "isolates/TwoThreads.hpp"

namespace coreactor::bench::isolates {
namespace {

/// The burst, ten times the ring, so that the crossing's overflow list is
/// part of the figure as it is of a real burst.
constexpr std::int64_t kBurst = 100'000;

struct Count {
  std::int64_t n;
};
struct Burst {
  ActorRef receiver;
};

/// One burst: written by the benchmark's thread before it starts the burst,
/// then by the two actors (each message carries the happens-before along).
/// What the receiver writes at every message has a cache line of its own, so
/// that the sender's side never reads a line the receiver keeps writing.
struct Stream {
  std::int64_t expected = 0;
  Steady::time_point start{};  // the sender's first send
  struct alignas(64) {
    std::int64_t next = 0;                 // the next sequence number
    std::atomic<std::int64_t> handled{0};  // in order
  } receiver;
  Timed result{};  // written by the receiver before it raises `done`
  Completion done;
};

class BurstSender final : public Actor {
 public:
  explicit BurstSender(Stream* stream) : stream_(stream) {}
  void receive(ReceiveContext& ctx) override {
    const Burst* burst = ctx.get<Burst>();
    if (burst == nullptr) return;
    const std::int64_t expected = stream_->expected;
    stream_->start = Steady::now();
    for (std::int64_t i = 0; i < expected; ++i) ctx.tell(burst->receiver, Count{i});
  }

 private:
  Stream* stream_;
};

class BurstReceiver final : public Actor {
 public:
  explicit BurstReceiver(Stream* stream) : stream_(stream) {}
  void receive(ReceiveContext& ctx) override {
    const Count* count = ctx.get<Count>();
    if (count == nullptr) return;
    auto& mine = stream_->receiver;
    if (count->n == mine.next) bump(mine.handled);
    if (++mine.next == stream_->expected) {
      stream_->result =
          Timed{mine.handled.load(std::memory_order_relaxed), Steady::now() - stream_->start};
      stream_->done.raise();
    }
  }

 private:
  Stream* stream_;
};

/// One burst from `sender` to `receiver` through `stream`, timed by the
/// receiver from the sender's first send to the last message handled.
Timed burstRound(Stream& stream, const ActorRef& sender, const ActorRef& receiver) {
  stream.expected = kBurst;
  stream.receiver.next = 0;
  stream.receiver.handled.store(0, std::memory_order_relaxed);
  stream.done.reset();
  sender.tell(Burst{receiver});
  if (!stream.done.waitFor(kGiveUp)) {
    return Timed{stream.receiver.handled.load(std::memory_order_relaxed), {}};
  }
  return stream.result;
}

/// isolates/tell/cross and isolates/tell/same. The target's ratio compares a
/// tell across with one on one isolate, "the receiving core does the
/// mailbox and handler work". The vCPUs of a VM do not always run at one
/// speed (one may run a ping-pong 1.8x slower than the other for minutes,
/// and the two swap), and the same row runs on
/// isolate 0's CPU. So with pinning, each round across is followed (off the
/// clock) by the same burst on one isolate on the receiver's CPU (isolate 1),
/// and the cross row reports the median of the per-round ratios.
void tellBurst(benchmark::State& state, bool cross) {
  Stream stream;  // outlive the system, whose actors point at them
  Stream local;
  std::unique_ptr<ActorSystem> system;
  ActorRef sender;
  ActorRef receiver;
  ActorRef localSender;  // the paired round's pair, both on isolate 1
  ActorRef localReceiver;
  const bool paired = cross && pinning();
  if (!setUp(state, [&] {
        system = threadedSystem(2);
        pinIsolates(*system, 2);
        sender =
            system->spawn<BurstSender>("sender", ActorOptions::create().withIsolate(0), &stream);
        receiver = system->spawn<BurstReceiver>(
            "receiver", ActorOptions::create().withIsolate(cross ? 1 : 0), &stream);
        if (paired) {
          const ActorOptions there = ActorOptions::create().withIsolate(1);
          localSender = system->spawn<BurstSender>("local-sender", there, &local);
          localReceiver = system->spawn<BurstReceiver>("local-receiver", there, &local);
        }
      })) {
    return;
  }
  OpMeter meter;
  PairedRatios pairedRatios;
  for (auto _ : state) {
    Timed rowRound;
    const bool ok = meter.measureTimed(state, "messages handled in order", kBurst, [&] {
      rowRound = burstRound(stream, sender, receiver);
      return rowRound;
    });
    if (!ok) break;
    if (paired &&
        !pairedRatios.add(
            state,
            pairedRatio(rowRound, kBurst, burstRound(local, localSender, localReceiver), kBurst),
            "the paired round on one isolate did not finish in order")) {
      break;
    }
  }
  meter.report(state);
  pairedRatios.report(state);
}

}  // namespace

void registerTellRows() {
  registerTimed(benchmark::RegisterBenchmark("isolates/tell/cross", &tellBurst, true));
  registerTimed(benchmark::RegisterBenchmark("isolates/tell/same", &tellBurst, false));
}

}  // namespace coreactor::bench::isolates
