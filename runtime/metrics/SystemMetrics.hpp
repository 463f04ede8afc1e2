// What a system reports about itself: its metrics (coreactor/Metrics.hpp),
// read on each isolate's loop into one snapshot, the HTTP endpoint that
// serves them (MetricsEndpoint.hpp), the transport's counters
// (ActorSystem::transportStats), and the errors dispatchers report (a log
// record and a DispatcherError event). Defined in runtime/metrics/Metrics.cpp.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string_view>

#include "coreactor/ActorRef.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Metrics.hpp"

namespace coreactor::detail {

class MetricsEndpoint;
class SystemCore;

/// The figures and reports of a system. Any thread unless said.
class SystemMetrics {
 public:
  explicit SystemMetrics(SystemCore& core) noexcept : core_(core) {}
  SystemMetrics(const SystemMetrics&) = delete;
  SystemMetrics& operator=(const SystemMetrics&) = delete;

  /// Reads every isolate's metrics on its loop (this thread's, for the one
  /// driving a manual system); `done` gets the snapshot where the last one
  /// was read.
  void collectMetrics(std::function<void(MetricsSnapshot)> done);
  /// The metrics endpoint's port; 0 without one (MetricsEndpoint.cpp).
  std::uint16_t metricsEndpointPort() const noexcept;
  /// What crossed between isolates so far, and the moves, the routes and
  /// the balancer's rounds: counters read as they are, no loop visited.
  TransportStats transportStats() const noexcept;
  /// The error sink the system gives dispatchers with none: a log record and
  /// a DispatcherError event (actor: none).
  ErrorSink dispatcherSink();
  /// A unit of work a dispatcher lost (`actor`'s, or none's): a log record
  /// and a DispatcherError event; stderr if reporting it throws.
  void reportDispatcherError(std::string_view dispatcherId, std::exception_ptr cause,
                             const ActorRef& actor) noexcept;

  /// ActorSystemOptions::withMetricsEndpoint: binds and listens on isolate
  /// 0's loop (a port in use throws). From SystemCore::start, before the loops.
  void openEndpoint();
  /// Closes the endpoint, once no loop runs (the teardown).
  void closeEndpoint() noexcept;

 private:
  SystemCore& core_;
  // ActorSystemOptions::withMetricsEndpoint, on isolate 0, or null.
  std::shared_ptr<MetricsEndpoint> endpoint_;
};

}  // namespace coreactor::detail
