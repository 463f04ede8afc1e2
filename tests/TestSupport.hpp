// Helpers shared by the tests: reusable intrusive tasks and an order log.
#pragma once

#include <sched.h>

#include <chrono>
#include <functional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "coreactor/Error.hpp"
#include "coreactor/Task.hpp"

namespace coreactor::test {

/// A Task that is not consumed by running: it can be queued again and again,
/// like an actor cell's turn.
struct ReusableTask final : Task {
  explicit ReusableTask(std::function<void()> body = {})
      : Task([](Task& t) { static_cast<ReusableTask&>(t).fn(); },
             [](Task& t) noexcept { ++static_cast<ReusableTask&>(t).discarded; }),
        fn(std::move(body)) {}
  std::function<void()> fn;
  int discarded = 0;
};

/// What ran, in order.
struct Log {
  std::vector<std::string> entries;
  void operator()(std::string entry) { entries.push_back(std::move(entry)); }
  auto recorder(std::string entry) {
    return [this, e = std::move(entry)] { entries.push_back(e); };
  }
};

/// The CPUs the process may run on (its affinity mask), in order.
inline std::vector<unsigned> allowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::vector<unsigned> cpus;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

/// Pins the calling thread to one CPU.
inline void pinTo(unsigned cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

/// Waits (sleeping a millisecond at a time) until `done()` holds or `within`
/// has passed; returns done(). For threaded tests: a generous deadline, never
/// a timing assertion.
template <class F>
bool eventually(F&& done, std::chrono::milliseconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

/// The coreactor error code a call throws, or a default code if it throws none.
template <class F>
std::error_code errorOf(F&& f) {
  try {
    f();
  } catch (const std::system_error& e) {
    return e.code();
  }
  return {};
}

}  // namespace coreactor::test
