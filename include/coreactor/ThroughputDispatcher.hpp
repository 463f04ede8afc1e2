/// @file
/// `coreactor/ThroughputDispatcher.hpp` — run-N-then-yield on a queue of its own (requirement D6).
//
// Units wait in the dispatcher's ring; one macrotask drains up to `throughput`
// of them back to back, then yields, so timers and I/O get a look every
// `throughput` units. Units usually belong to different actors: an actor has
// at most one unit queued at a time, and how many messages it handles per unit
// is its own knob (ActorOptions::withThroughput, requirement D7), not this one.
//
// Cost: one ring push and pop per unit, one loop iteration per `throughput` units.
#pragma once

#include <cstddef>

#include "coreactor/Dispatcher.hpp"
#include "coreactor/detail/RingBuffer.hpp"

namespace coreactor {

/// Units wait in a queue of the dispatcher's own; one macrotask runs up to
/// `throughput` of them, then yields to the loop.
class ThroughputDispatcher final : public BoundDispatcher {
 public:
  /// Units per macrotask unless told otherwise.
  static constexpr std::size_t kDefaultThroughput = 16;

  /// Runs up to `throughput` units per macrotask. Throws ErrInvalidThroughput for 0.
  explicit ThroughputDispatcher(std::size_t throughput = kDefaultThroughput);
  ~ThroughputDispatcher() override;

  std::string_view id() const noexcept override { return "throughput-dispatcher"; }
  using Dispatcher::execute;
  void execute(Task& task) override;
  std::unique_ptr<Dispatcher> clone() const override;

  /// Units run per macrotask, at most.
  std::size_t throughput() const noexcept { return throughput_; }
  /// Units queued and not yet run. Isolate-local.
  std::size_t queued() const noexcept { return queue_.size(); }

 private:
  static void runDrain(Task& t);
  static void disposeAll(Task& t) noexcept;
  struct Drain final : Task {
    explicit Drain(ThroughputDispatcher& owner) : Task(&runDrain, &disposeAll), self(&owner) {}
    ThroughputDispatcher* self;
  };

  std::size_t throughput_;
  bool scheduled_ = false;  // the drain macrotask is queued
  detail::RingBuffer<Task*> queue_;
  Drain drain_;
};

}  // namespace coreactor
