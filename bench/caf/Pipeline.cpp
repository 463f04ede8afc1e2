// bench/caf/Pipeline.cpp — parallel/pipeline/<n> on CAF (ours:
// bench/parallel/Pipeline.cpp).
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "caf/ParallelRow.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

using PipelineShared = workloads::PipelineShared<caf::actor>;

class Source final : public caf::event_based_actor {
 public:
  Source(caf::actor_config& config, PipelineShared* shared)
      : caf::event_based_actor(config), shared_(shared) {}
  caf::behavior make_behavior() override {
    return {[this](const Feed&) {
      const caf::actor& first = shared_->stages.front();
      for (std::int64_t k = 0; k < workloads::kPipelineMessages; ++k) {
        send(first, Flow{static_cast<std::uint64_t>(k)});
      }
    }};
  }

 private:
  PipelineShared* shared_;
};

class Stage final : public caf::event_based_actor {
 public:
  Stage(caf::actor_config& config, PipelineShared* shared, RoundEnd* end, std::int64_t index)
      : caf::event_based_actor(config), shared_(shared), end_(end), index_(index) {}
  caf::behavior make_behavior() override {
    return {[this](const Flow& flow) {
      ++shared_->handled[static_cast<std::size_t>(index_)].value;
      const std::uint64_t value = workloads::pipelineStep(flow.value, index_);
      if (index_ + 1 < workloads::kPipelineStages) {
        send(shared_->stages[static_cast<std::size_t>(index_ + 1)], Flow{value});
        return;
      }
      shared_->last.sum += value;
      if (++shared_->last.arrived == workloads::kPipelineMessages) end_->partDone();
    }};
  }

 private:
  PipelineShared* shared_;
  RoundEnd* end_;
  std::int64_t index_;
};

class Pipeline {
 public:
  static constexpr const char* kName = "pipeline";
  static constexpr const char* kWhat = "messages through every stage";
  RoundEnd end;

  Pipeline() : expected_(workloads::pipelineExpectedSum()) {}
  void build(Arm& arm) {
    source_ = arm.spawn<Source>(&shared_);
    for (std::int64_t s = 0; s < workloads::kPipelineStages; ++s) {
      shared_.stages.push_back(arm.spawn<Stage>(&shared_, &end, s));
    }
  }
  void release() {
    source_ = nullptr;
    shared_.stages.clear();
  }
  std::int64_t asked() const { return workloads::kPipelineMessages; }
  std::int64_t parts() const { return 1; }
  void reset() { shared_.reset(); }
  void start() { caf::anon_send(source_, Feed{}); }
  std::int64_t done(std::string& wrong) const { return shared_.done(expected_, wrong); }

 private:
  std::uint64_t expected_;
  PipelineShared shared_;
  caf::actor source_;
};

}  // namespace

void registerPipelineRows() {
  registerParallelRows<Pipeline>();
}

}  // namespace coreactor::bench::cafarm
