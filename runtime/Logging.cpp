#include "Logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace coreactor::detail {
namespace {

class ContextFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const LogContext& c = tLogContext;
    if (c.path.empty()) return;
    std::string text = "[" + std::string(c.path) + " isolate=" + (c.isolate ? *c.isolate : "?") +
                       " msg=" + std::string(c.messageType) + "] ";
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<ContextFlag>();
  }
};

}  // namespace

std::shared_ptr<spdlog::logger> makeSystemLogger(const std::string& systemName,
                                                 std::vector<spdlog::sink_ptr> sinks,
                                                 spdlog::level::level_enum level) {
  if (sinks.empty()) sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  auto logger =
      std::make_shared<spdlog::logger>("coreactor:" + systemName, sinks.begin(), sinks.end());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<ContextFlag>('*').set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %*%v");
  logger->set_formatter(std::move(formatter));
  logger->set_level(level);
  return logger;
}

}  // namespace coreactor::detail
