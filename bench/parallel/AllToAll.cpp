// bench/parallel/AllToAll.cpp — parallel/all-to-all/<n> and
// placement/all-to-all/run-<k>.
//
//   parallel/all-to-all/<n>  one request answered: 64 actors each send 1,000
//                            requests at once to pseudo-random peers
//                            (workloads::allToAllPeer) and count the replies.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/Workloads.hpp"
#include "parallel/Families.hpp"
#include "parallel/ParallelRow.hpp"

namespace coreactor::bench::parallel {
namespace {

using workloads::kAllToAllActors;
using workloads::kAllToAllMessages;
using workloads::PeerCounts;

struct Begin {};
struct Request {
  std::uint64_t n;
};
struct Reply {
  std::uint64_t n;
};

using AllToAllShared = workloads::AllToAllShared<ActorRef>;

/// On Begin, sends its kAllToAllMessages requests; answers every request;
/// reports its part done at its last reply.
class Peer final : public Actor {
 public:
  Peer(AllToAllShared* shared, RoundEnd* end, std::int64_t index)
      : shared_(shared), end_(end), index_(index) {}
  void receive(ReceiveContext& ctx) override {
    PeerCounts& mine = shared_->counts[static_cast<std::size_t>(index_)];
    if (const Request* request = ctx.get<Request>()) {
      ++mine.requests;
      ctx.reply(Reply{request->n});
    } else if (const Reply* reply = ctx.get<Reply>()) {
      mine.echoed += reply->n;
      if (++mine.replies == kAllToAllMessages) end_->partDone();
    } else if (ctx.is<Begin>()) {
      std::uint64_t rng = workloads::allToAllSeed(index_);
      for (std::int64_t m = 0; m < kAllToAllMessages; ++m) {
        const std::int64_t peer = workloads::allToAllPeer(rng, index_);
        const auto n = static_cast<std::uint64_t>(index_ * kAllToAllMessages + m);
        mine.sent += n;
        ctx.tell(shared_->peers[static_cast<std::size_t>(peer)], Request{n});
      }
    }
  }

 private:
  AllToAllShared* shared_;
  RoundEnd* end_;
  std::int64_t index_;
};

class AllToAll {
 public:
  static constexpr const char* kWhat = "requests answered";
  RoundEnd end;

  void build(ActorSystem& system, std::size_t) {
    for (std::int64_t i = 0; i < kAllToAllActors; ++i) {
      shared_.peers.push_back(system.spawn<Peer>("", ActorOptions::create(), &shared_, &end, i));
    }
  }
  std::int64_t asked() const { return kAllToAllActors * kAllToAllMessages; }
  std::int64_t parts() const { return kAllToAllActors; }
  void reset() { shared_.reset(); }
  void start() {
    for (const ActorRef& peer : shared_.peers) peer.tell(Begin{});
  }
  std::int64_t done(std::string& wrong) const { return shared_.done(wrong); }

 private:
  AllToAllShared shared_;
};

}  // namespace

void registerAllToAllRows() {
  registerRows<AllToAll>("all-to-all");
}

}  // namespace coreactor::bench::parallel
