// The log context (MDC) of the actor whose turn is running: its path, its
// isolate and the type of the message it handles. ReceiveContext::log() sets
// it (only actors that log pay), the cell clears it at the end of the turn,
// and the `%*` flag of the system logger's pattern prints it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <spdlog/logger.h>

namespace coreactor::detail {

struct LogContext {
  std::string_view path;  // empty: no context

  const std::string* isolate = nullptr;
  std::string_view messageType;
};

// Inline and constant-initialised: the cell reads it at the end of every turn.
inline thread_local LogContext tLogContext{};

/// The calling thread's current context (an empty path: none).
inline LogContext& logContext() noexcept {
  return tLogContext;
}

/// The system logger: `sinks` (stderr when empty) with the pattern
/// "[time] [system] [level] [path isolate=... msg=...] text".
std::shared_ptr<spdlog::logger> makeSystemLogger(const std::string& systemName,
                                                 std::vector<spdlog::sink_ptr> sinks,
                                                 spdlog::level::level_enum level);

}  // namespace coreactor::detail
