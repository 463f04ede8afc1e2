// bench/parallel/Pipeline.cpp — parallel/pipeline/<n> and placement/pipeline/run-<k>.
//
//   parallel/pipeline/<n>    one message through all 8 stages (each one
//                            workloads::work) of a pipeline, 10,000 sent at
//                            once by a source; the last stage counts and sums.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/Workloads.hpp"
#include "parallel/Families.hpp"
#include "parallel/ParallelRow.hpp"

namespace coreactor::bench::parallel {
namespace {

using workloads::Counter;
using workloads::kPipelineMessages;
using workloads::kPipelineStages;

struct Feed {};
struct Flow {
  std::uint64_t value;
};

using PipelineShared = workloads::PipelineShared<ActorRef>;

class Source final : public Actor {
 public:
  explicit Source(PipelineShared* shared) : shared_(shared) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Feed>()) return;
    const ActorRef& first = shared_->stages.front();
    for (std::int64_t k = 0; k < kPipelineMessages; ++k) {
      ctx.tell(first, Flow{static_cast<std::uint64_t>(k)});
    }
  }

 private:
  PipelineShared* shared_;
};

class Stage final : public Actor {
 public:
  Stage(PipelineShared* shared, RoundEnd* end, std::int64_t index)
      : shared_(shared), end_(end), index_(index) {}
  void receive(ReceiveContext& ctx) override {
    const Flow* flow = ctx.get<Flow>();
    if (flow == nullptr) return;
    ++shared_->handled[static_cast<std::size_t>(index_)].value;
    const std::uint64_t value = workloads::pipelineStep(flow->value, index_);
    if (index_ + 1 < kPipelineStages) {
      ctx.tell(shared_->stages[static_cast<std::size_t>(index_ + 1)], Flow{value});
      return;
    }
    shared_->last.sum += value;
    if (++shared_->last.arrived == kPipelineMessages) end_->partDone();
  }

 private:
  PipelineShared* shared_;
  RoundEnd* end_;
  std::int64_t index_;
};

class Pipeline {
 public:
  static constexpr const char* kWhat = "messages through every stage";
  RoundEnd end;

  Pipeline() : expected_(workloads::pipelineExpectedSum()) {}
  void build(ActorSystem& system, std::size_t) {
    source_ = system.spawn<Source>("", ActorOptions::create(), &shared_);
    for (std::int64_t s = 0; s < kPipelineStages; ++s) {
      shared_.stages.push_back(system.spawn<Stage>("", ActorOptions::create(), &shared_, &end, s));
    }
  }
  std::int64_t asked() const { return kPipelineMessages; }
  std::int64_t parts() const { return 1; }
  void reset() { shared_.reset(); }
  void start() { source_.tell(Feed{}); }
  std::int64_t done(std::string& wrong) const { return shared_.done(expected_, wrong); }

 private:
  std::uint64_t expected_;
  PipelineShared shared_;
  ActorRef source_;
};

}  // namespace

void registerPipelineRows() {
  registerRows<Pipeline>("pipeline");
}

}  // namespace coreactor::bench::parallel
