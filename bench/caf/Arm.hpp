// bench/caf/Arm.hpp — what every row of the CAF arm runs on: one CAF actor
// system per row (Arm), set up as bench/caf/CafBench.cpp says and why, and
// one timed round of a row (Round), started from the benchmark's thread and
// finished, and timed, on a worker thread.
#pragma once

#include <caf/all.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/BenchSupport.hpp"

namespace coreactor::bench::cafarm {

using WallClock = std::chrono::steady_clock;

inline constexpr const char* kProgram = "coreactor-bench-caf";
/// How long the benchmark's thread waits for one round. Rounds take
/// milliseconds; one that has not finished after this lost a message.
inline constexpr std::chrono::seconds kRoundTimeout{60};

/// One timed round of a row: started by one message from the benchmark's
/// thread, finished on the worker thread. The worker fills it; the benchmark's
/// thread reads it once `done` is set (the promise orders the two).
struct Round {
  std::int64_t ran = 0;
  WallClock::time_point begin{};
  WallClock::time_point end{};
  std::promise<void> done;

  void finish(std::int64_t count) {
    ran = count;
    end = WallClock::now();
    done.set_value();
  }
};

class BenchConfig final : public caf::actor_system_config {
 public:
  /// One scheduler thread for the actor rows; n for parallel/<workload>/<n>.
  explicit BenchConfig(std::size_t threads = 1) {
    set("scheduler.max-threads", static_cast<caf::config_value::integer>(threads));
    set("logger.verbosity", caf::atom("quiet"));
    set("logger.file-verbosity", caf::atom("quiet"));
    set("logger.console-verbosity", caf::atom("quiet"));
  }
};

/// One actor system per benchmark run, as our arm makes one ActorSystem, and
/// the row it runs. The actors it keeps are told to exit before the system's
/// destructor waits for every actor to be done.
class Arm {
 public:
  explicit Arm(std::string row, std::size_t threads = 1)
      : row_(std::move(row)), config_(threads), system_(config_) {}
  ~Arm() {
    for (const caf::actor& actor : keep_) {
      caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    }
  }
  Arm(const Arm&) = delete;
  Arm& operator=(const Arm&) = delete;

  /// Spawns a long-lived actor (a function-based one from `args`, or a `T`).
  template <class T = void, class... Args>
  caf::actor spawn(Args&&... args) {
    caf::actor actor;
    if constexpr (std::is_void_v<T>) {
      actor = system_.spawn(std::forward<Args>(args)...);
    } else {
      actor = system_.spawn<T>(std::forward<Args>(args)...);
    }
    keep_.push_back(actor);
    return actor;
  }

  /// Keeps an actor made elsewhere (an actor_pool) until the row ends, as
  /// spawn() keeps its own.
  caf::actor keep(caf::actor actor) {
    keep_.push_back(actor);
    return actor;
  }

  /// A round that never finished: the row is reported failed and the
  /// process ends (the actor system could not shut down with a stuck actor).
  [[noreturn]] void lost(std::chrono::seconds waited) const {
    const long long seconds = waited.count();
    std::printf("failed %s a round did not finish within %lld s: work was lost\n", row_.c_str(),
                seconds);
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s did not finish a round within %lld s\n", kProgram, row_.c_str(),
                 seconds);
    std::_Exit(1);
  }

  /// Starts a round with `message` to `driver` and waits for it. A round
  /// that never finishes lost work: the row is reported failed and the
  /// process ends (the actor system could not shut down with a stuck actor).
  template <class Message>
  OpMeter::Timed runRound(const caf::actor& driver, Round& round, Message message) {
    std::future<void> finished = round.done.get_future();
    caf::anon_send(driver, message);
    if (finished.wait_for(kRoundTimeout) != std::future_status::ready) lost(kRoundTimeout);
    return OpMeter::Timed{round.ran, round.end - round.begin};
  }

  /// The actor system, for a row that asks from the benchmark's thread.
  caf::actor_system& system() noexcept { return system_; }

 private:
  std::string row_;
  BenchConfig config_;
  caf::actor_system system_;
  std::vector<caf::actor> keep_;
};

}  // namespace coreactor::bench::cafarm
