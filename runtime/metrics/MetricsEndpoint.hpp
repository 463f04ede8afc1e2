// The metrics endpoint of a system (ActorSystemOptions::withMetricsEndpoint):
// GET /metrics over HTTP on isolate 0's loop. See MetricsEndpoint.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "coreactor/Isolate.hpp"

namespace coreactor::detail {

class SystemCore;

class MetricsEndpoint {
 public:
  /// Binds and listens at once (a port in use throws std::system_error
  /// here, from ActorSystem::create); accepts on `home`'s loop.
  MetricsEndpoint(SystemCore& core, Isolate& home, const std::string& address, std::uint16_t port);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  /// The port it listens on.
  std::uint16_t port() const noexcept { return port_; }
  /// Stops accepting (on the loop while it runs); connections being served finish.
  void close() noexcept;

 private:
  struct Listener;
  Isolate& home_;
  std::shared_ptr<Listener> listener_;
  std::uint16_t port_ = 0;
};

}  // namespace coreactor::detail
