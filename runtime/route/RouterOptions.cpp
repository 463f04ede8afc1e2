// RouterOptions and ResizerOptions (coreactor/Router.hpp): their checks.
#include <cmath>
#include <string>

#include "coreactor/Error.hpp"
#include "coreactor/Router.hpp"

namespace coreactor {

namespace {
std::string nanos(std::chrono::nanoseconds d) {
  return std::to_string(d.count()) + " ns";
}
void checkPositive(std::chrono::nanoseconds d, const char* what) {
  if (d <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidTimeout,
               std::string(what) + " of " + nanos(d) + ": it must be positive");
  }
}
void checkFraction(double x, bool zeroAllowed, const char* what) {
  if (std::isnan(x) || x > 1.0 || x < 0.0 || (!zeroAllowed && x == 0.0)) {
    throwError(Error::ErrInvalidResizer, std::string(what) + " of " + std::to_string(x) +
                                             (zeroAllowed ? ": 0 to 1" : ": above 0, at most 1"));
  }
}
}  // namespace

ResizerOptions ResizerOptions::create(std::size_t lower, std::size_t upper) {
  if (upper == 0 || lower > upper || upper > RouterOptions::kMaxRoutees) {
    throwError(Error::ErrInvalidResizer,
               "a resizer of " + std::to_string(lower) + " to " + std::to_string(upper) +
                   " routees: the least at most the most, the most 1 to " +
                   std::to_string(RouterOptions::kMaxRoutees));
  }
  ResizerOptions o;
  o.lower_ = lower;
  o.upper_ = upper;
  return o;
}

ResizerOptions ResizerOptions::withPressureThreshold(std::size_t messages) const {
  if (messages == 0) throwError(Error::ErrInvalidResizer, "a pressure threshold of 0 messages");
  ResizerOptions o = *this;
  o.pressure_ = messages;
  return o;
}

ResizerOptions ResizerOptions::withRampUp(double rate) const {
  checkFraction(rate, false, "a ramp-up rate");
  ResizerOptions o = *this;
  o.rampUp_ = rate;
  return o;
}

ResizerOptions ResizerOptions::withBackoff(double threshold, double rate) const {
  checkFraction(threshold, true, "a backoff threshold");
  checkFraction(rate, true, "a backoff rate");
  ResizerOptions o = *this;
  o.backoffThreshold_ = threshold;
  o.backoffRate_ = rate;
  return o;
}

ResizerOptions ResizerOptions::withInterval(std::chrono::nanoseconds interval) const {
  if (interval <= std::chrono::nanoseconds::zero()) {
    throwError(Error::ErrInvalidResizer, "a resizer interval of " + nanos(interval));
  }
  ResizerOptions o = *this;
  o.interval_ = interval;
  return o;
}

RouterOptions RouterOptions::scatterGather(std::chrono::nanoseconds within) {
  checkPositive(within, "scatterGather: a time limit");
  RouterOptions o(RoutingLogic::ScatterGather);
  o.within_ = within;
  return o;
}

RouterOptions RouterOptions::tailChopping(std::chrono::nanoseconds within,
                                          std::chrono::nanoseconds interval) {
  checkPositive(within, "tailChopping: a time limit");
  checkPositive(interval, "tailChopping: an interval");
  RouterOptions o(RoutingLogic::TailChopping);
  o.within_ = within;
  o.interval_ = interval;
  return o;
}

RouterOptions RouterOptions::withPerIsolate(std::size_t k) const {
  if (k == 0 || k > kMaxRoutees) {
    throwError(Error::ErrInvalidPoolSize,
               "withPerIsolate(" + std::to_string(k) + "): 1 to " + std::to_string(kMaxRoutees));
  }
  RouterOptions o = *this;
  o.perIsolate_ = k;
  o.size_ = 0;
  return o;
}

RouterOptions RouterOptions::withSize(std::size_t n) const {
  if (n == 0 || n > kMaxRoutees) {
    throwError(Error::ErrInvalidPoolSize,
               "withSize(" + std::to_string(n) + "): 1 to " + std::to_string(kMaxRoutees));
  }
  RouterOptions o = *this;
  o.size_ = n;
  o.perIsolate_ = 0;
  return o;
}

RouterOptions RouterOptions::withRouteeOptions(ActorOptions options) const {
  RouterOptions o = *this;
  o.routee_ = std::move(options);
  return o;
}

RouterOptions RouterOptions::withSupervisorStrategy(SupervisorStrategy strategy) const {
  RouterOptions o = *this;
  o.strategy_ = std::move(strategy);
  return o;
}

RouterOptions RouterOptions::withResizer(ResizerOptions resizer) const {
  RouterOptions o = *this;
  o.resizer_ = std::make_shared<const ResizerOptions>(resizer);
  return o;
}

}  // namespace coreactor
