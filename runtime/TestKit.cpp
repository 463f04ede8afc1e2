#include "coreactor/testkit/TestKit.hpp"

namespace coreactor::testkit {

TestProbe::TestProbe(ActorSystem& system, std::string name, Driver driver)
    : state_(std::make_shared<State>()), driver_(std::move(driver)) {
  ref_ = system.spawn(std::move(name), [state = state_](ReceiveContext& ctx) {
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      state->queue.emplace_back(std::move(ctx.message()), ctx.sender());
    }
    state->arrived.notify_all();
  });
}

bool TestProbe::waitFor(Clock::duration within) {
  if (driver_.run) {
    driver_.run();
    if (pending() != 0) return true;
    driver_.advance(within);  // manual time: let what is due within `within` happen
    return pending() != 0;
  }
  std::unique_lock<std::mutex> lock(state_->mutex);
  return state_->arrived.wait_for(lock, within, [&] { return !state_->queue.empty(); });
}

Message TestProbe::next(Clock::duration within, std::string_view expected) {
  if (!waitFor(within)) {
    throw ExpectationFailed("expected a " + std::string(expected) + " within " +
                            std::to_string(std::chrono::duration<double>(within).count()) +
                            " s; nothing arrived");
  }
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto [message, sender] = std::move(state_->queue.front());
  state_->queue.pop_front();
  lastSender_ = sender;
  return std::move(message);
}

void TestProbe::expectNoMsg(Clock::duration within) {
  if (waitFor(within)) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    throw ExpectationFailed("expected no message, got a " +
                            std::string(state_->queue.front().first.typeName()));
  }
}

std::size_t TestProbe::pending() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->queue.size();
}

TestKit::TestKit(std::string name, ActorSystemOptions options)
    : system_(ActorSystem::create(std::move(name), options.withManualRun().withClock(&clock_))) {}

TestKit::~TestKit() {
  system_->stop();
}

TestProbe TestKit::probe(std::string name) {
  if (name.empty()) name = "probe-" + std::to_string(++probes_);
  return TestProbe(*system_, std::move(name),
                   TestProbe::Driver{[this] { run(); }, [this](Clock::duration d) { advance(d); }});
}

}  // namespace coreactor::testkit
