// The builders of ActorSystemOptions (coreactor/ActorSystemOptions.hpp):
// each returns a copy with one value changed, after checking it: a bad
// value is its named error at the call.
#include "coreactor/ActorSystemOptions.hpp"

#include <spdlog/sinks/sink.h>

#include "coreactor/Error.hpp"

namespace coreactor {

ActorSystemOptions ActorSystemOptions::withCrossIsolateBuffer(std::size_t ringSlots,
                                                              std::size_t overflowLimit) const {
  if (ringSlots < 2 || ringSlots > (std::size_t{1} << 20)) {
    throwError(Error::ErrInvalidOption,
               "withCrossIsolateBuffer needs 2 to 1M ring slots, got " + std::to_string(ringSlots));
  }
  ActorSystemOptions o = *this;
  o.ringSlots_ = ringSlots;
  o.overflowLimit_ = overflowLimit;
  return o;
}

ActorSystemOptions ActorSystemOptions::withCrossIsolateBufferGrowth(
    std::size_t maxRingSlots) const {
  if (maxRingSlots == 0 || maxRingSlots > (std::size_t{1} << 20)) {
    throwError(Error::ErrInvalidOption,
               "withCrossIsolateBufferGrowth needs 1 to 1M ring slots, got " +
                   std::to_string(maxRingSlots));
  }
  ActorSystemOptions o = *this;
  o.maxRingSlots_ = maxRingSlots;
  return o;
}

ActorSystemOptions ActorSystemOptions::withBalancer(BalancerOptions options) const {
  if (options.period <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidOption, "withBalancer: the period must be positive, got " +
                                            std::to_string(options.period.count()) + " ns");
  }
  if (options.sampleEvery == 0) {
    throwError(Error::ErrInvalidOption, "withBalancer: sampleEvery must be at least 1");
  }
  if (options.maxMovesPerActor == 0) {
    throwError(Error::ErrInvalidOption, "withBalancer: maxMovesPerActor must be at least 1");
  }
  ActorSystemOptions o = *this;
  o.balancer_ = options;
  return o;
}

ActorSystemOptions ActorSystemOptions::withForeignInboxLimit(std::size_t limit) const {
  if (limit == 0) throwError(Error::ErrInvalidOption, "withForeignInboxLimit(0)");
  ActorSystemOptions o = *this;
  o.foreignInboxLimit_ = limit;
  return o;
}

ActorSystemOptions ActorSystemOptions::withPlacementRun(std::size_t run) const {
  if (run == 0)
    throwError(Error::ErrInvalidOption, "withPlacementRun(0): a run is 1 actor or more");
  ActorSystemOptions o = *this;
  o.placementRun_ = run;
  return o;
}

ActorSystemOptions ActorSystemOptions::withIdlePoll(std::chrono::nanoseconds window) const {
  if (window < std::chrono::nanoseconds::zero() || window > kMaxIdlePoll) {
    throwError(Error::ErrInvalidOption, "withIdlePoll(" + std::to_string(window.count()) +
                                            " ns): the window is 0 to " +
                                            std::to_string(kMaxIdlePoll.count()) + " ns");
  }
  ActorSystemOptions o = *this;
  o.idlePoll_ = window;
  return o;
}

ActorSystemOptions ActorSystemOptions::withDispatcher(std::shared_ptr<Dispatcher> prototype) const {
  if (prototype == nullptr) throwError(Error::ErrInvalidOption, "withDispatcher(nullptr)");
  ActorSystemOptions o = *this;
  o.dispatcher_ = std::move(prototype);
  return o;
}

ActorSystemOptions ActorSystemOptions::withDispatcherFactory(DispatcherFactory factory) const {
  if (!factory) throwError(Error::ErrInvalidOption, "withDispatcherFactory(empty)");
  ActorSystemOptions o = *this;
  o.factory_ = std::move(factory);
  return o;
}

ActorSystemOptions ActorSystemOptions::withThroughput(std::size_t messagesPerTurn) const {
  if (messagesPerTurn == 0) throwError(Error::ErrInvalidThroughput, "withThroughput(0)");
  ActorSystemOptions o = *this;
  o.throughput_ = messagesPerTurn;
  return o;
}

ActorSystemOptions ActorSystemOptions::withIsolates(std::size_t count) const {
  if (count == 0 || count > 4096) {
    throwError(Error::ErrInvalidOption, "withIsolates(" + std::to_string(count) + "): 1 to 4096");
  }
  ActorSystemOptions o = *this;
  o.isolates_ = count;
  return o;
}

ActorSystemOptions ActorSystemOptions::withPinning(Pinning pinning) const {
  ActorSystemOptions o = *this;
  o.pinning_ = pinning;
  return o;
}

ActorSystemOptions ActorSystemOptions::withNumaNode(int node) const {
  if (node < 0) {
    throwError(Error::ErrInvalidOption, "withNumaNode(" + std::to_string(node) + "): no such node");
  }
  ActorSystemOptions o = *this;
  o.numaNode_ = node;
  return o;
}

ActorSystemOptions ActorSystemOptions::withManualRun(bool manual) const {
  ActorSystemOptions o = *this;
  o.manualRun_ = manual;
  return o;
}

ActorSystemOptions ActorSystemOptions::withLogSink(
    std::shared_ptr<spdlog::sinks::sink> sink) const {
  if (sink == nullptr) throwError(Error::ErrInvalidOption, "withLogSink(nullptr)");
  ActorSystemOptions o = *this;
  o.logSinks_.push_back(std::move(sink));
  return o;
}

ActorSystemOptions ActorSystemOptions::withLogLevel(LogLevel level) const {
  ActorSystemOptions o = *this;
  o.logLevel_ = level;
  return o;
}

ActorSystemOptions ActorSystemOptions::withClock(const Clock* clock) const {
  ActorSystemOptions o = *this;
  o.clock_ = clock;
  return o;
}

}  // namespace coreactor
