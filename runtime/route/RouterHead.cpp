// The router's head (RouterHead.hpp).
#include "runtime/route/RouterHead.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "runtime/SystemCore.hpp"

namespace coreactor::detail {

RouterState& RouterHead::state() const {
  return setup_->core->routers().table().at(setup_->slot);
}

std::vector<ActorRef> RouterHead::routees() const {
  RouterState& r = state();
  const std::uint32_t n = r.count.load(std::memory_order_acquire);
  std::vector<ActorRef> out;
  out.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) out.push_back(setup_->core->makeRef(r.routee(i)));
  return out;
}

void RouterHead::preStart(ReceiveContext& ctx) {
  resume(ctx);
  if (const auto& resizer = setup_->options.resizer()) {
    ctx.schedule(ResizeTick{}, ctx.self(), resizer->interval());  // a restart keeps it
  }
}

void RouterHead::resume(ReceiveContext& ctx) {
  // A pool puts a new routee where one stopped; a group lets it go.
  for (const ActorRef& routee : routees()) ctx.watch(routee);
}

void RouterHead::receive(ReceiveContext& ctx) {
  if (const Terminated* t = ctx.get<Terminated>()) {
    replace(ctx, t->actor);
  } else if (ctx.is<GetRoutees>()) {
    ctx.sender().tell(Routees{routees()}, setup_->router);
  } else if (const AdjustPoolSize* a = ctx.get<AdjustPoolSize>()) {
    resize(ctx, a->change);
  } else if (ctx.is<ResizeTick>()) {
    resizeByPressure(ctx);
  } else if (const ChopNext* c = ctx.get<ChopNext>()) {
    askNext(ctx, c->gather);
  } else if (setup_->options.logic() == RoutingLogic::ScatterGather ||
             setup_->options.logic() == RoutingLogic::TailChopping) {
    gather(ctx);
  } else if (setup_->options.logic() == RoutingLogic::Broadcast && !ctx.is<Broadcast>()) {
    // An ask to a broadcast router: every routee gets it; the first reply answers.
    setup_->router.deliver(Message(Broadcast(std::move(ctx.message()))), ctx.sender());
  } else {
    setup_->router.deliver(std::move(ctx.message()), ctx.sender());
  }
}

void RouterHead::postStop(ReceiveContext& ctx) {
  static_cast<void>(ctx);
  state().generation.store(0, std::memory_order_release);  // from now on: dead letters
  // Every isolate's view goes stale: a sender that kept this router's
  // cursor (IsolateRuntime::routerHits) looks in the table again.
  state().bump();
  for (auto& [id, g] : gathers_) {
    if (!g.done) setup_->core->asks().failAskOf(g.replyTo, make_error_code(Error::ErrDead));
  }
  gathers_.clear();
}

void RouterHead::replace(ReceiveContext& ctx, const ActorRef& gone) {
  RouterState& r = state();
  const std::uint32_t n = r.count.load(std::memory_order_relaxed);
  std::uint32_t i = 0;
  while (i < n && r.routee(i) != gone.id()) ++i;
  if (i == n) return;  // one the pool let go (a shrink)
  if (setup_->routee && mayReplace(ctx)) {
    setup_->core->routers().spawnRoutee(ActorCell::of(ctx), r, i, setup_);
    ctx.watch(setup_->core->makeRef(r.routee(i)));
    return;
  }
  // A group, or a pool whose routees keep stopping: the last routee takes the place.
  if (i + 1 < n) r.setRoutee(i, r.routee(n - 1), nullptr);
  r.setCount(n - 1);
}

bool RouterHead::mayReplace(ReceiveContext& ctx) {
  // A routee that stops at once (its constructor or preStart throws) would
  // be replaced for ever: past kReplacementsPerSecond in one second, the
  // pool lets routees go instead, and says so.
  const Clock::time_point now = setup_->core->clock().now();
  while (!replaced_.empty() && now - replaced_.front() > std::chrono::seconds(1)) {
    replaced_.pop_front();
  }
  if (replaced_.size() >= kReplacementsPerSecond) {
    ctx.log().error("router {}: its routees keep stopping; the pool lets this one go",
                    setup_->router.path());
    return false;
  }
  replaced_.push_back(now);
  return true;
}

void RouterHead::resize(ReceiveContext& ctx, std::int64_t change) {
  if (!setup_->routee || change == 0) return;  // a group is given its routees
  RouterState& r = state();
  const auto& resizer = setup_->options.resizer();
  const std::int64_t lower = resizer ? static_cast<std::int64_t>(resizer->lower()) : 1;
  const std::int64_t upper = resizer ? static_cast<std::int64_t>(resizer->upper())
                                     : static_cast<std::int64_t>(RouterOptions::kMaxRoutees);
  const auto n = static_cast<std::int64_t>(r.count.load(std::memory_order_relaxed));
  const std::int64_t target = std::clamp(n + change, lower, upper);
  if (target > n) {
    for (auto i = static_cast<std::uint32_t>(n); i < target; ++i) {
      setup_->core->routers().spawnRoutee(ActorCell::of(ctx), r, i, setup_);
      ctx.watch(setup_->core->makeRef(r.routee(i)));
    }
    r.setCount(static_cast<std::uint32_t>(target));
    ActorCell::of(ctx).home().counts.poolsGrown.fetch_add(1, std::memory_order_relaxed);
  } else if (target < n) {
    std::vector<ActorRef> leaving;
    for (auto i = static_cast<std::uint32_t>(target); i < n; ++i) {
      leaving.push_back(setup_->core->makeRef(r.routee(i)));
    }
    // Senders stop picking them first; what they were sent is handled before the pill.
    r.setCount(static_cast<std::uint32_t>(target));
    for (const ActorRef& routee : leaving) {
      ctx.unwatch(routee);
      routee.tell(PoisonPill{}, ctx.self());
    }
    ActorCell::of(ctx).home().counts.poolsShrunk.fetch_add(1, std::memory_order_relaxed);
  }
}

void RouterHead::resizeByPressure(ReceiveContext& ctx) {
  const ResizerOptions& z = *setup_->options.resizer();
  RouterState& r = state();
  const std::uint32_t n = r.count.load(std::memory_order_relaxed);
  if (n == 0) return;
  const RouteeArray* a = r.routees.load(std::memory_order_acquire);
  std::uint32_t pressed = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const RouteeGauge* g = a->slots[i].gauge.load(std::memory_order_relaxed);
    if (g != nullptr && g->depth.load(std::memory_order_relaxed) >= z.pressureThreshold()) {
      ++pressed;
    }
  }
  const double size = n;
  if (pressed == n) {
    resize(ctx, std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(z.rampUp() * size))));
  } else if (z.backoffRate() > 0 && static_cast<double>(pressed) < z.backoffThreshold() * size) {
    resize(ctx, -std::max<std::int64_t>(
                    1, static_cast<std::int64_t>(std::ceil(z.backoffRate() * size))));
  }
}

// ---- scatter-gather and tail-chopping ---------------------------------------------

void RouterHead::gather(ReceiveContext& ctx) {
  RouterState& r = state();
  SystemCore& core = *setup_->core;
  const std::uint32_t n = r.count.load(std::memory_order_relaxed);
  if (n == 0 || (n > 1 && !ctx.message().copyable())) {
    core.routers().unrouted(setup_->router, Envelope{std::move(ctx.message()), ctx.sender()},
                            n == 0 ? "the router has no routee"
                                   : "a message that cannot be copied, for several routees");
    return;
  }
  const std::uint64_t id = nextGather_++;
  Gather& g = gathers_[id];
  g.replyTo = ctx.sender();
  g.deadline = core.clock().now() + setup_->options.within();
  g.message = std::move(ctx.message());
  if (setup_->options.logic() == RoutingLogic::ScatterGather) {
    for (std::uint32_t i = 0; i < n; ++i) g.order.push_back(n - 1 - i);  // asked all at once
    while (!g.order.empty()) askNext(ctx, id);
    return;
  }
  // Tail-chopping: the routees in a random order, one more each interval.
  for (std::uint32_t i = 0; i < n; ++i) g.order.push_back(i);
  for (std::uint32_t i = n; i > 1; --i) {
    randomState_ ^= randomState_ << 13;
    randomState_ ^= randomState_ >> 7;
    randomState_ ^= randomState_ << 17;
    std::swap(g.order[i - 1], g.order[randomState_ % i]);
  }
  askNext(ctx, id);
}

void RouterHead::askNext(ReceiveContext& ctx, std::uint64_t id) {
  auto it = gathers_.find(id);
  if (it == gathers_.end()) return;
  Gather& g = it->second;
  SystemCore& core = *setup_->core;
  const Clock::duration left = g.deadline - core.clock().now();
  if (g.done || g.order.empty() || left <= Clock::duration::zero()) {
    g.order.clear();  // nobody else is asked
    if (g.answered == g.asked) answered(ctx, id, nullptr, /*fromAsk=*/false);
    return;
  }
  const std::uint32_t index = g.order.back();
  g.order.pop_back();
  RouterState& r = state();
  const ActorRef target =
      index < r.count.load(std::memory_order_relaxed) ? core.makeRef(r.routee(index)) : ActorRef();
  Message message = g.order.empty() ? std::move(g.message) : g.message.clone();
  ++g.asked;
  core.asks().askFromActor(ActorCell::of(ctx), target, std::move(message),
                           std::chrono::duration_cast<std::chrono::nanoseconds>(left),
                           [this, id](ReceiveContext& c, Message* reply, std::error_code error) {
                             answered(c, id, error ? nullptr : reply, /*fromAsk=*/true);
                           });
  if (!g.order.empty() && setup_->options.logic() == RoutingLogic::TailChopping) {
    ctx.scheduleOnce(ChopNext{id}, ctx.self(), setup_->options.interval());
  }
}

void RouterHead::answered(ReceiveContext& ctx, std::uint64_t id, Message* reply, bool fromAsk) {
  SystemCore& core = *setup_->core;
  auto it = gathers_.find(id);
  if (it == gathers_.end()) {
    if (reply != nullptr) {
      core.delivery().deadLetter(
          setup_->router, Envelope{std::move(*reply), ActorRef()},
          "a reply after the first of a scatter-gather or tail-chopping router");
    }
    return;
  }
  Gather& g = it->second;
  if (fromAsk) ++g.answered;
  if (reply != nullptr) {
    if (!g.done) {
      g.done = true;
      g.order.clear();
      g.replyTo.deliver(std::move(*reply), setup_->router);
    } else {
      core.delivery().deadLetter(
          setup_->router, Envelope{std::move(*reply), ActorRef()},
          "a reply after the first of a scatter-gather or tail-chopping router");
    }
  }
  if (g.answered < g.asked || !g.order.empty()) return;  // more to come
  if (!g.done) {
    // Nobody replied in time.
    core.asks().failAskOf(g.replyTo, make_error_code(Error::ErrAskTimeout));
    ctx.log().warn("router {}: no routee replied within {} ns", setup_->router.path(),
                   setup_->options.within().count());
  }
  gathers_.erase(it);
}

}  // namespace coreactor::detail
