// bench/caf/AllToAll.cpp — parallel/all-to-all/<n> on CAF (ours:
// bench/parallel/AllToAll.cpp).
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "caf/ParallelRow.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

using workloads::PeerCounts;

using AllToAllShared = workloads::AllToAllShared<caf::actor>;

class Peer final : public caf::event_based_actor {
 public:
  Peer(caf::actor_config& config, AllToAllShared* shared, RoundEnd* end, std::int64_t index)
      : caf::event_based_actor(config), shared_(shared), end_(end), index_(index) {}
  caf::behavior make_behavior() override {
    return {
        [this](const PeerRequest& request) {
          ++mine().requests;
          return PeerReply{request.n};
        },
        [this](const PeerReply& reply) {
          PeerCounts& counts = mine();
          counts.echoed += reply.n;
          if (++counts.replies == workloads::kAllToAllMessages) end_->partDone();
        },
        [this](const Begin&) {
          PeerCounts& counts = mine();
          std::uint64_t rng = workloads::allToAllSeed(index_);
          for (std::int64_t m = 0; m < workloads::kAllToAllMessages; ++m) {
            const std::int64_t peer = workloads::allToAllPeer(rng, index_);
            const auto n = static_cast<std::uint64_t>(index_ * workloads::kAllToAllMessages + m);
            counts.sent += n;
            send(shared_->peers[static_cast<std::size_t>(peer)], PeerRequest{n});
          }
        },
    };
  }

 private:
  PeerCounts& mine() { return shared_->counts[static_cast<std::size_t>(index_)]; }

  AllToAllShared* shared_;
  RoundEnd* end_;
  std::int64_t index_;
};

class AllToAll {
 public:
  static constexpr const char* kName = "all-to-all";
  static constexpr const char* kWhat = "requests answered";
  RoundEnd end;

  void build(Arm& arm) {
    for (std::int64_t i = 0; i < workloads::kAllToAllActors; ++i) {
      shared_.peers.push_back(arm.spawn<Peer>(&shared_, &end, i));
    }
  }
  void release() { shared_.peers.clear(); }
  std::int64_t asked() const { return workloads::kAllToAllActors * workloads::kAllToAllMessages; }
  std::int64_t parts() const { return workloads::kAllToAllActors; }
  void reset() { shared_.reset(); }
  void start() {
    for (const caf::actor& peer : shared_.peers) caf::anon_send(peer, Begin{});
  }
  std::int64_t done(std::string& wrong) const { return shared_.done(wrong); }

 private:
  AllToAllShared shared_;
};

}  // namespace

void registerAllToAllRows() {
  registerParallelRows<AllToAll>();
}

}  // namespace coreactor::bench::cafarm
