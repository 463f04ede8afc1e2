// examples/http-service/Shards.hpp — the store of the example: a key-value
// map sharded over actors, and the way a connection reaches them.
//
// K shard actors (kShardsPerIsolate per isolate), shard s on isolate
// s mod N (ActorOptions::withIsolate); a key belongs to shard
// FNV-1a(key) mod K, so one key's requests always go to the same actor and
// are handled in the order they arrive. Each shard owns its part of the map
// and nothing else touches it: no lock.
//
// A connection lives on an isolate's loop (its home) and asks the key's shard
// with ActorSystem::ask, the callback form, from that loop, which is no
// actor. The callback runs on the shard's isolate (docs/ask.md): when that is
// the home, the answer is written at once; otherwise it is posted to the
// home (Isolate::post), so that the connection is only ever touched by its
// own loop. The same for the metrics, whose callback runs on whichever
// isolate answered last.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <coreactor/ActorSystem.hpp>
#include <coreactor/Isolate.hpp>

#include "Kv.hpp"
#include "Service.hpp"

namespace httpservice {

class Shard : public coreactor::Actor {
 public:
  // `delay`: how long the shard takes over each request (--shard-delay-ms);
  // zero answers in the same turn.
  explicit Shard(std::chrono::milliseconds delay) : delay_(delay) {}

  void receive(coreactor::ReceiveContext& ctx) override {
    if (KvRequest* request = ctx.get<KvRequest>()) {
      if (delay_.count() == 0) {
        ctx.reply(apply(map_, *request));
      } else {
        // A slow store, without blocking the loop: the request comes back to
        // this shard after the delay, with the address to answer. Requests
        // keep their order, all being delayed alike.
        static_cast<void>(
            ctx.scheduleOnce(Delayed{std::move(*request), ctx.sender()}, ctx.self(), delay_));
      }
    } else if (Delayed* delayed = ctx.get<Delayed>()) {
      ctx.tell(delayed->replyTo, apply(map_, delayed->request));
    }
  }

 private:
  struct Delayed {
    KvRequest request;
    coreactor::ActorRef replyTo;
  };

  KvMap map_;
  std::chrono::milliseconds delay_;
};

class ActorStore {
 public:
  static constexpr std::size_t kShardsPerIsolate = 4;
  static constexpr bool kMetrics = true;

  // Spawns the shards. `timeout` bounds each ask: past it, the request is
  // answered 503. `shardDelay`: how long each shard takes per request.
  ActorStore(coreactor::ActorSystem& system, std::chrono::nanoseconds timeout,
             std::chrono::milliseconds shardDelay = std::chrono::milliseconds{0})
      : system_(system), timeout_(timeout) {
    const std::size_t isolates = system.isolateCount();
    for (std::size_t s = 0; s < kShardsPerIsolate * isolates; ++s) {
      shards_.push_back(system.spawn<Shard>(
          "shard-" + std::to_string(s),
          coreactor::ActorOptions::create().withIsolate(s % isolates).withMailboxHighWaterMark(),
          shardDelay));
    }
  }

  std::size_t shardCount() const noexcept { return shards_.size(); }

  // Connections go round the isolates in turn. Called by the acceptor only.
  Home nextHome() {
    const std::size_t isolate = next_++ % system_.isolateCount();
    return {system_.isolate(isolate).ioContext().get_executor(), isolate};
  }
  // The acceptor lives on isolate 0.
  asio::any_io_executor acceptorExecutor() { return system_.isolate(0).ioContext().get_executor(); }

  template <class Done>
  void kv(const Home& home, KvRequest&& request, Done&& done) {
    coreactor::Isolate& isolate = system_.isolate(home.index);
    const coreactor::ActorRef& shard = shards_[fnv1a(request.key) % shards_.size()];
    system_.ask(shard, coreactor::Message(std::move(request)), timeout_,
                [&isolate, done = std::forward<Done>(done)](coreactor::Message* reply,
                                                            std::error_code error) mutable {
                  KvAnswer answer;  // Unavailable, unless the shard answered
                  if (!error) {
                    if (KvAnswer* a = reply->get<KvAnswer>()) answer = std::move(*a);
                  }
                  onLoop(isolate, [done = std::move(done), answer = std::move(answer)]() mutable {
                    done(std::move(answer));
                  });
                });
  }

  template <class Done>
  void metrics(const Home& home, Done&& done) {
    coreactor::Isolate& isolate = system_.isolate(home.index);
    system_.metrics(
        [&isolate, done = std::forward<Done>(done)](coreactor::MetricsSnapshot snapshot) mutable {
          onLoop(isolate, [done = std::move(done), text = snapshot.prometheusText()]() mutable {
            done(std::move(text));
          });
        });
  }

 private:
  // Runs `f` on `home`'s loop: at once if this is it, else as a macrotask.
  // A home that has stopped (the system shut down) drops it.
  template <class F>
  static void onLoop(coreactor::Isolate& home, F&& f) {
    if (home.isLoopThread()) {
      f();
      return;
    }
    try {
      home.post(std::forward<F>(f));
    } catch (const std::system_error&) {
      // ErrIsolateStopped: the connection goes with its loop.
    }
  }

  coreactor::ActorSystem& system_;
  std::chrono::nanoseconds timeout_;
  std::vector<coreactor::ActorRef> shards_;
  std::size_t next_ = 0;
};

}  // namespace httpservice
