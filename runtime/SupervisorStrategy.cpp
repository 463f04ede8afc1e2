// The supervisor strategies (coreactor/Actor.hpp) and the restart hooks an
// Actor has by default. How a failure is decided: CellLifecycle.cpp.
#include "coreactor/Actor.hpp"

namespace coreactor {

SupervisorStrategy SupervisorStrategy::oneForOne(Decider decider, int maxRestarts,
                                                 std::chrono::milliseconds window) {
  SupervisorStrategy s;
  s.kind_ = Kind::OneForOne;
  s.decider_ = std::move(decider);
  s.maxRestarts_ = maxRestarts;
  s.window_ = window;
  return s;
}

SupervisorStrategy SupervisorStrategy::allForOne(Decider decider, int maxRestarts,
                                                 std::chrono::milliseconds window) {
  SupervisorStrategy s = oneForOne(std::move(decider), maxRestarts, window);
  s.kind_ = Kind::AllForOne;
  return s;
}

void Actor::preRestart(ReceiveContext& ctx, const std::exception_ptr&) {
  for (const ActorRef& child : ctx.children()) ctx.stop(child);
}

void Actor::postRestart(ReceiveContext& ctx, const std::exception_ptr&) {
  preStart(ctx);
}

}  // namespace coreactor
