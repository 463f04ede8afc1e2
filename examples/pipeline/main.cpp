// A three-stage pipeline spread over the isolates: a source turns items into
// text, `parse` reads the text back, `transform` scores each record and
// `aggregate` sums the scores per key (docs/isolates.md).
//
//   source (isolate 0) -> parse (1) -> transform (2) -> aggregate (3)
//
// Each stage is one actor placed on its own isolate with withIsolate (stage
// k on isolate k mod the isolate count: on two isolates every hop crosses
// between them), and its workers are that actor's children, which live on
// their parent's isolate. An item goes to the worker of its key at every
// stage, so one key's items always take the same path and arrive in the
// order they were sent: order holds per sender and receiver, across isolates
// too. The aggregate checks it.
//
// The source keeps at most kWindow items in flight: the aggregate workers
// give credit back every kAckEvery items. The window is smaller than the
// 1024 slots of a ring between two isolates, so everything in flight fits in
// the rings and nothing waits in an overflow list, however fast the source
// is (a sender with an overflow list does not sleep until it has drained:
// docs/isolates.md, Backpressure).
//
// After its last item the source sends End down every lane; a worker passes
// End on once each of its senders has sent one, and since every End follows
// its sender's items, the aggregate then has them all.
//
// The program checks the end-to-end count and sum, prints the throughput
// and where the isolates run (ActorSystem::placement), and exits non-zero
// if anything is missing.
//
//   example-pipeline [items]
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <coreactor/ActorSystem.hpp>

using namespace coreactor;
using namespace std::chrono_literals;

// ---- the messages: each fits a Message's inline buffer (no allocation) ----------

struct Raw {  // "key,seq,value"
  char text[28];
  std::uint8_t size;
};
struct Record {
  std::uint32_t key;
  std::uint32_t seq;  // the item's number within its key
  std::uint64_t value;
};
struct Scored {
  std::uint32_t key;
  std::uint32_t seq;
  std::uint64_t score;
};
struct End {};  // a sender's last message down a lane
struct Ack {    // credit back to the source
  std::uint64_t items;
};
struct Done {  // one aggregate worker's totals, after its last End
  std::uint64_t items;
  std::uint64_t sum;
  std::uint64_t outOfOrder;
};
struct GetLanes {};  // answered with a stage's workers
struct Pump {};
struct Run {
  std::vector<ActorRef> firstStage;
  std::size_t lastStageWidth;
  std::uint64_t items;
};
struct Summary {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t sum = 0;
  std::uint64_t expectedSum = 0;
  std::uint64_t outOfOrder = 0;
  std::chrono::nanoseconds elapsed{0};
};

constexpr std::uint32_t kKeys = 1024;
constexpr std::size_t kWorkersPerStage = 4;
constexpr std::uint64_t kWindow = 768;   // items in flight at most: fewer than a ring's slots
constexpr std::uint64_t kChunk = 256;    // items the source sends per turn at most
constexpr std::uint64_t kAckEvery = 32;  // items an aggregate worker credits at once
static_assert(kWorkersPerStage * kAckEvery < kWindow, "else the credit may never come back");

std::uint64_t valueOf(std::uint64_t i) {  // splitmix64: reproducible data
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) % 1'000'000;
}
std::uint64_t scoreOf(std::uint64_t value) {
  return value * value % 1'000'003;
}

// ---- the workers ---------------------------------------------------------------

// What every worker shares: where its output goes (the next stage's worker
// for the key), and how many senders must say End before it has everything.
class Lane : public Actor {
 public:
  Lane(std::vector<ActorRef> next, std::size_t senders, ActorRef source)
      : next_(std::move(next)), senders_(senders), source_(source) {}

 protected:
  const ActorRef& route(std::uint32_t key) const { return next_[key % next_.size()]; }
  /// True at the End of the last sender: all their items came before.
  bool lastEnd() { return ++ends_ == senders_; }
  void endDownstream(ReceiveContext& ctx) {
    for (const ActorRef& lane : next_) ctx.tell(lane, End{});
  }
  const ActorRef& source() const { return source_; }

 private:
  std::vector<ActorRef> next_;
  std::size_t senders_;
  std::size_t ends_ = 0;
  ActorRef source_;
};

class Parse : public Lane {
 public:
  using Lane::Lane;
  void receive(ReceiveContext& ctx) override {
    if (const Raw* raw = ctx.get<Raw>()) {
      Record r{};
      const char* p = raw->text;
      const char* end = raw->text + raw->size;
      auto a = std::from_chars(p, end, r.key);
      auto b = std::from_chars(a.ptr + 1, end, r.seq);
      auto c = std::from_chars(b.ptr + 1, end, r.value);
      if (a.ec != std::errc() || b.ec != std::errc() || c.ec != std::errc()) {
        throw std::runtime_error("malformed item");  // to the stage, our supervisor
      }
      ctx.tell(route(r.key), r);
    } else if (ctx.is<End>() && lastEnd()) {
      endDownstream(ctx);
    }
  }
};

class Transform : public Lane {
 public:
  using Lane::Lane;
  void receive(ReceiveContext& ctx) override {
    if (const Record* r = ctx.get<Record>()) {
      ctx.tell(route(r->key), Scored{r->key, r->seq, scoreOf(r->value)});
    } else if (ctx.is<End>() && lastEnd()) {
      endDownstream(ctx);
    }
  }
};

class Aggregate : public Lane {
 public:
  using Lane::Lane;
  void receive(ReceiveContext& ctx) override {
    if (const Scored* s = ctx.get<Scored>()) {
      if (s->seq != nextSeq_[s->key]) ++outOfOrder_;
      nextSeq_[s->key] = s->seq + 1;
      sum_ += s->score;
      ++items_;
      if (++unacked_ == kAckEvery) {
        ctx.tell(source(), Ack{unacked_});
        unacked_ = 0;
      }
    } else if (ctx.is<End>() && lastEnd()) {
      ctx.tell(source(), Ack{unacked_});
      ctx.tell(source(), Done{items_, sum_, outOfOrder_});
    }
  }

 private:
  std::vector<std::uint32_t> nextSeq_ = std::vector<std::uint32_t>(kKeys, 0);
  std::uint64_t items_ = 0;
  std::uint64_t sum_ = 0;
  std::uint64_t outOfOrder_ = 0;
  std::uint64_t unacked_ = 0;
};

// A stage: one actor on its isolate; its workers are its children, and a
// child lives on its parent's isolate unless its options say otherwise.
template <class Worker>
class Stage : public Actor {
 public:
  Stage(std::size_t width, std::vector<ActorRef> next, std::size_t senders, ActorRef source)
      : width_(width), next_(std::move(next)), senders_(senders), source_(source) {}
  void preStart(ReceiveContext& ctx) override {
    for (std::size_t i = 0; i < width_; ++i) {
      lanes_.push_back(ctx.spawn<Worker>("lane-" + std::to_string(i), ActorOptions::create(), next_,
                                         senders_, source_));
    }
  }
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<GetLanes>()) ctx.reply(lanes_);
  }

 private:
  std::size_t width_;
  std::vector<ActorRef> next_;
  std::size_t senders_;
  ActorRef source_;
  std::vector<ActorRef> lanes_;
};

// ---- the source ------------------------------------------------------------------

class Source : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (Run* run = ctx.get<Run>()) {
      lanes_ = std::move(run->firstStage);
      expectDone_ = run->lastStageWidth;
      summary_.sent = run->items;
      waiter_ = ctx.sender();
      begin_ = std::chrono::steady_clock::now();
      pumping_ = true;
      pump(ctx);
    } else if (ctx.is<Pump>()) {
      pump(ctx);
    } else if (const Ack* ack = ctx.get<Ack>()) {
      acked_ += ack->items;
      if (!pumping_ && next_ < summary_.sent && next_ - acked_ < kWindow) {
        pumping_ = true;
        ctx.tell(ctx.self(), Pump{});
      }
    } else if (const Done* done = ctx.get<Done>()) {
      summary_.received += done->items;
      summary_.sum += done->sum;
      summary_.outOfOrder += done->outOfOrder;
      if (--expectDone_ == 0) {
        summary_.elapsed = std::chrono::steady_clock::now() - begin_;
        ctx.tell(waiter_, summary_);
      }
    }
  }

 private:
  // Sends what the window allows, a chunk per turn, so that credit (and
  // anything else for this isolate) gets its turn between chunks.
  void pump(ReceiveContext& ctx) {
    const std::uint64_t room = kWindow - (next_ - acked_);
    const std::uint64_t stop = std::min(summary_.sent, next_ + std::min(kChunk, room));
    for (; next_ < stop; ++next_) {
      const auto key = static_cast<std::uint32_t>(next_ % kKeys);
      const std::uint64_t value = valueOf(next_);
      summary_.expectedSum += scoreOf(value);
      Raw raw{};
      char* p = raw.text;
      char* end = raw.text + sizeof raw.text;
      p = std::to_chars(p, end, key).ptr;
      *p++ = ',';
      p = std::to_chars(p, end, next_ / kKeys).ptr;
      *p++ = ',';
      p = std::to_chars(p, end, value).ptr;
      raw.size = static_cast<std::uint8_t>(p - raw.text);
      ctx.tell(lanes_[key % lanes_.size()], raw);
    }
    if (next_ == summary_.sent && !ended_) {
      ended_ = true;
      for (const ActorRef& lane : lanes_) ctx.tell(lane, End{});
    }
    pumping_ = next_ < summary_.sent && next_ - acked_ < kWindow;
    if (pumping_) ctx.tell(ctx.self(), Pump{});
  }

  std::vector<ActorRef> lanes_;
  std::size_t expectDone_ = 0;
  ActorRef waiter_;
  std::chrono::steady_clock::time_point begin_;
  std::uint64_t next_ = 0;
  std::uint64_t acked_ = 0;
  bool pumping_ = false;
  bool ended_ = false;
  Summary summary_;
};

std::string cpuList(const std::vector<unsigned>& cpus) {
  std::string out;
  for (unsigned cpu : cpus) out += (out.empty() ? "" : ",") + std::to_string(cpu);
  return out;
}

int main(int argc, char** argv) {
  const long long items = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
  if (items <= 0 || items > 1'000'000'000) {
    std::fprintf(stderr, "usage: example-pipeline [items, 1 to 1e9]\n");
    return 2;
  }
  auto system = ActorSystem::create("pipeline");  // one isolate per CPU we may use
  const std::size_t isolates = system->isolateCount();
  const auto stageOn = [&](std::size_t stage) {
    return ActorOptions::create().withIsolate(stage % isolates);
  };

  // Built from the last stage back, so each one knows the workers it feeds.
  const ActorRef source = system->spawn<Source>("source", stageOn(0));
  const auto lanesOf = [&](const ActorRef& stage) {
    return system->ask<std::vector<ActorRef>>(stage, GetLanes{}, 10s).get();
  };
  const std::size_t w = kWorkersPerStage;
  const auto aggregate = lanesOf(system->spawn<Stage<Aggregate>>(
      "aggregate", stageOn(3), w, std::vector<ActorRef>{}, w, source));
  const auto transform =
      lanesOf(system->spawn<Stage<Transform>>("transform", stageOn(2), w, aggregate, w, source));
  const auto parse =
      lanesOf(system->spawn<Stage<Parse>>("parse", stageOn(1), w, transform, 1, source));

  std::printf("isolates: %zu\n", isolates);
  for (const IsolatePlacement& p : system->placement()) {
    std::printf("  isolate %zu: CPUs %s, %s%s%s\n", p.isolate, cpuList(p.cpus).c_str(),
                p.pinned ? "pinned" : "not pinned", p.note.empty() ? "" : ": ", p.note.c_str());
  }
  std::printf(
      "stages: source on isolate %u, parse on %u, transform on %u, aggregate on %u; "
      "%zu workers each\n",
      source.isolateIndex(), parse[0].isolateIndex(), transform[0].isolateIndex(),
      aggregate[0].isolateIndex(), w);

  const Summary s =
      system
          ->ask<Summary>(source, Run{parse, aggregate.size(), static_cast<std::uint64_t>(items)},
                         120s)
          .get();
  const double ms = std::chrono::duration<double, std::milli>(s.elapsed).count();
  std::printf("%llu items through 3 stages in %.1f ms: %.2f M items/s, %.0f ns per item\n",
              static_cast<unsigned long long>(s.sent), ms, s.sent / ms / 1000.0, ms * 1e6 / s.sent);
  const std::uint64_t deadLetters = system->deadLetterCount();
  system->shutdown();

  const bool ok =
      s.received == s.sent && s.sum == s.expectedSum && s.outOfOrder == 0 && deadLetters == 0;
  std::printf(
      "%s: %llu sent, %llu aggregated, sum %llu (expected %llu), %llu out of order, "
      "%llu dead letters\n",
      ok ? "verified" : "FAILED", static_cast<unsigned long long>(s.sent),
      static_cast<unsigned long long>(s.received), static_cast<unsigned long long>(s.sum),
      static_cast<unsigned long long>(s.expectedSum), static_cast<unsigned long long>(s.outOfOrder),
      static_cast<unsigned long long>(deadLetters));
  return ok ? 0 : 1;
}
