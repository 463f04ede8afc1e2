// The actor behind a router's reference (coreactor/Router.hpp): it owns
// the routees (a pool's are its children, spawned and supervised by it; a
// group's are watched), keeps the router's state for senders
// (RouterTable.hpp), answers GetRoutees and AdjustPoolSize, runs the
// resizer, and does the work of the logics that wait for replies:
// scatter-gather and tail-chopping. Senders never pass through it for the
// other logics.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "coreactor/Actor.hpp"
#include "coreactor/Router.hpp"

namespace coreactor::detail {

class SystemCore;
struct RouterState;

/// What a router is made of; shared by its head's instances, never changed.
struct RouterSetup {
  SystemCore* core;
  std::uint32_t slot;
  ActorRef router;
  RouterOptions options;
  ActorFactory routee;  // empty for a group
};

class RouterHead final : public Actor {
 public:
  explicit RouterHead(std::shared_ptr<const RouterSetup> setup) : setup_(std::move(setup)) {}

  void preStart(ReceiveContext& ctx) override;
  void receive(ReceiveContext& ctx) override;
  void postStop(ReceiveContext& ctx) override;
  /// A restart keeps the routees: the router's state is not the instance's.
  void preRestart(ReceiveContext&, const std::exception_ptr&) override {}
  void postRestart(ReceiveContext& ctx, const std::exception_ptr&) override { resume(ctx); }
  SupervisorStrategy supervisorStrategy() override { return setup_->options.supervisorStrategy(); }

  /// What the head tells itself.
  struct ResizeTick {};
  struct ChopNext {
    std::uint64_t gather;
  };

 private:
  // A message asked of routees (scatter-gather, tail-chopping) whose first
  // reply goes to `replyTo`.
  struct Gather {
    ActorRef replyTo;
    Message message;                   // kept for tail-chopping's next tries
    std::vector<std::uint32_t> order;  // tail-chopping: the routees still to ask
    std::uint32_t asked = 0;
    std::uint32_t answered = 0;  // replies and failures
    bool done = false;
    Clock::time_point deadline;
  };
  RouterState& state() const;
  void resume(ReceiveContext& ctx);
  void replace(ReceiveContext& ctx, const ActorRef& gone);
  bool mayReplace(ReceiveContext& ctx);
  static constexpr std::size_t kReplacementsPerSecond = 100;
  std::deque<Clock::time_point> replaced_;  // the replacements of the last second
  void resize(ReceiveContext& ctx, std::int64_t change);
  void resizeByPressure(ReceiveContext& ctx);
  void gather(ReceiveContext& ctx);
  void askNext(ReceiveContext& ctx, std::uint64_t id);
  // A reply (or, null, a failed ask when fromAsk, else a look whether it is over).
  void answered(ReceiveContext& ctx, std::uint64_t id, Message* reply, bool fromAsk);
  std::vector<ActorRef> routees() const;

  std::shared_ptr<const RouterSetup> setup_;
  std::unordered_map<std::uint64_t, Gather> gathers_;
  std::uint64_t nextGather_ = 0;
  std::uint64_t randomState_ = 0x9E3779B97F4A7C15ull;
};

}  // namespace coreactor::detail
