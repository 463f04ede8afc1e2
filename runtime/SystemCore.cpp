// The system: its construction (isolates, their runtimes, then the
// guardian's spawn), its start. The send paths are in Send.cpp, spawning,
// the top level and actors' paths in Spawn.cpp (Spawns.hpp), ask in Ask.cpp,
// running and stopping in Shutdown.cpp (SystemStop.hpp), the metrics, the
// transport's counters and the error sink it gives dispatchers in
// runtime/metrics/Metrics.cpp (SystemMetrics.hpp); placement and pinning
// are IsolatePlacer.cpp.
#include "SystemCore.hpp"

#include "Logging.hpp"
#include "coreactor/Dispatchers.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"

namespace coreactor::detail {

std::uint64_t threadSerial() noexcept {
  static std::atomic<std::uint64_t> next{1};
  if (tThreadSerial == 0) tThreadSerial = next.fetch_add(1, std::memory_order_relaxed);
  return tThreadSerial;
}

// ---- construction ------------------------------------------------------------------

SystemCore::SystemCore(std::string name, ActorSystemOptions options)
    : name_(std::move(name)),
      options_(std::move(options)),
      clock_(options_.clock() != nullptr ? options_.clock() : &SteadyClock::instance()) {
  logger_ = makeSystemLogger(name_, options_.logSinks(),
                             static_cast<spdlog::level::level_enum>(options_.logLevel()));
  // A subscriber's throw is reported as a dispatcher error is (SPEC D11);
  // EventStream itself keeps a DispatcherError subscriber's throw off this
  // path (stderr), so a failing report cannot feed itself.
  events_.onSubscriberError_ = [this](std::string_view type, const ActorRef& subscriber,
                                      std::exception_ptr error) {
    logger_->error("an event-stream subscriber to {}{} threw: {}", type,
                   subscriber ? " (" + spawns_.pathOf(subscriber) + ")" : std::string(),
                   describe(error));
    events_.publish(DispatcherError{"event-stream", std::move(error), subscriber});
  };
  if (options_.manualRun()) driver_ = threadSerial();
  // The placer planned the placement as it was made (ErrInvalidOption for a
  // node or a pinning the machine cannot give).
  const std::vector<IsolatePlacement> plan = spawns_.placement();
  const std::size_t count = plan.size();
  for (std::size_t i = 0; i < count; ++i) {
    auto rt = std::make_unique<IsolateRuntime>();
    rt->index = static_cast<std::uint32_t>(i);
    rt->isolate = std::make_unique<Isolate>(
        IsolateOptions{.name = name_ + "/" + std::to_string(i),
                       .clock = options_.clock(),
                       .ioHandlersPerTurn = 64,
                       .onThreadStart = [this, i] { spawns_.placer().pin(i, *logger_); },
                       .idlePoll = plan[i].idlePoll});
    rt->core = this;
    IsolateHooks::setUserData(*rt->isolate, rt.get());
    rt->asks = std::make_unique<AskTimeouts>(*rt->isolate);
    rt->link = std::make_unique<Link>(CrossingReceiver(*this, *rt), *rt->isolate, rt->index, count,
                                      options_.ringSlots(), options_.maxRingSlots(),
                                      options_.overflowLimit());
    if (count > 1) {
      IsolateHooks::addPoller(*rt->isolate, *rt->link);  // one isolate has no rings
    }
    rt->foreign = std::make_unique<ForeignInbox>(ForeignReceiver(*this, *rt), *rt->isolate);
    IsolateHooks::addPoller(*rt->isolate, *rt->foreign);
    rt->scheduler = std::make_unique<Scheduler>(*this, *rt);
    // SPEC D8: one instance of the default dispatcher per isolate.
    if (options_.dispatcherFactory()) {
      rt->dispatcher = options_.dispatcherFactory()();
    } else if (options_.dispatcher() != nullptr) {
      rt->dispatcher = i == 0 ? options_.dispatcher() : instanceFor(*options_.dispatcher());
    } else {
      rt->dispatcher = std::make_shared<HybridDispatcher>();
    }
    rt->dispatcher->bind(*rt->isolate);
    rt->dispatcher->adoptErrorSink(metrics_.dispatcherSink());  // SPEC D12: only where unset
    isolates_.push_back(std::move(rt));
  }
  isolateCount_ = static_cast<std::uint32_t>(isolates_.size());
  spawns_.spawnGuardian();
  // Collective: every rank learns the others' isolates here.
  if (options_.cluster() != nullptr) {
    remote_ =
        std::make_unique<RemoteRoutes>(*this, options_.cluster(), options_.remoteMessageLimit());
    for (auto& rt : isolates_) IsolateHooks::addPoller(*rt->isolate, remote_->pollerOf(rt->index));
  }
  if (options_.balancer().has_value()) {
    balancer_ = std::make_unique<Balancer>(*this, *options_.balancer());
  }
}

SystemCore::~SystemCore() {
  systemStop_.stop();
}

void SystemCore::start() {
  if (remote_ != nullptr) remote_->start();
  metrics_.openEndpoint();                       // withMetricsEndpoint
  if (balancer_ != nullptr) balancer_->start();  // before the loops: this thread is theirs
  if (options_.manualRun()) return;
  for (auto& rt : isolates_) rt->isolate->start();
}

IsolateRuntime& SystemCore::runtime(std::size_t index) {
  if (index >= isolates_.size()) {
    throwError(
        Error::ErrIsolateOutOfRange,
        "isolate " + std::to_string(index) + " of a system of " + std::to_string(isolates_.size()));
  }
  return *isolates_[index];
}

bool SystemCore::onOwnIsolate() const noexcept {
  return currentRuntime() != nullptr;
}

}  // namespace coreactor::detail
