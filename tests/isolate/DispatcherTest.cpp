// The Dispatcher interface and the simple built-ins. SPEC D1, D2, D3, D8, D9.
#include <gtest/gtest.h>

#include "TestSupport.hpp"
#include "coreactor/Dispatchers.hpp"
#include "coreactor/testkit/CallingThreadDispatcher.hpp"

namespace coreactor {
namespace {

using test::errorOf;
using test::Log;
using Entries = std::vector<std::string>;

// A third-party dispatcher written with just the two required members: it
// meters units and delegates to another dispatcher.
class MeteringDispatcher final : public Dispatcher {
 public:
  explicit MeteringDispatcher(Dispatcher& inner) : inner_(inner) {}
  std::string_view id() const noexcept override { return "metering-dispatcher"; }
  void execute(Task& task) override {
    ++units;
    inner_.execute(task);
  }
  int units = 0;

 private:
  Dispatcher& inner_;
};

TEST(Dispatcher, CanBeImplementedWithJustAnIdAndExecute) {
  // SPEC D1
  Isolate isolate;
  MicrotaskDispatcher inner;
  inner.bind(isolate);
  MeteringDispatcher metering(inner);
  Dispatcher& d = metering;
  int ran = 0;
  isolate.post([&] {
    for (int i = 0; i < 10; ++i) d.execute([&] { ++ran; });
  });
  isolate.runUntilIdle();
  EXPECT_EQ(ran, 10);
  EXPECT_EQ(metering.units, 10);
  EXPECT_FALSE(d.onError()) << "the error sink is optional and starts unset";
  EXPECT_EQ(d.clone(), nullptr) << "a dispatcher is not clonable unless it says so";
}

TEST(MicrotaskDispatcher, RunsEveryUnitAsAMicrotask) {
  // SPEC D2: a unit handed over in macrotask A runs before macrotask B.
  Isolate isolate;
  MicrotaskDispatcher d;
  d.bind(isolate);
  Log log;
  isolate.post([&] {
    log("A");
    d.execute(log.recorder("unit"));
  });
  isolate.post(log.recorder("B"));
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"A", "unit", "B"}));
  EXPECT_EQ(isolate.stats().microtasks, 1u);
}

TEST(ImmediateDispatcher, RunsEveryUnitAsAMacrotask) {
  // SPEC D3: the unit queues behind B, and a due timer gets a look first.
  ManualClock clock;
  Isolate isolate({.clock = &clock});
  ImmediateDispatcher d;
  d.bind(isolate);
  Log log;
  isolate.post([&] {
    log("A");
    isolate.setTimeout(std::chrono::nanoseconds(0), log.recorder("timer"));
    d.execute(log.recorder("unit"));
  });
  isolate.post(log.recorder("B"));
  isolate.runUntilIdle();
  EXPECT_EQ(log.entries, (Entries{"A", "B", "timer", "unit"}));
  EXPECT_EQ(isolate.stats().microtasks, 0u);
}

TEST(Dispatchers, FactoriesMakeTheFourBuiltInsWithTheirSettings) {
  // SPEC D9
  auto hybrid = Dispatchers::Hybrid(1000);
  EXPECT_EQ(hybrid->id(), "hybrid-dispatcher");
  EXPECT_EQ(dynamic_cast<HybridDispatcher&>(*hybrid).yieldEvery(), 1000u);
  EXPECT_EQ(dynamic_cast<HybridDispatcher&>(*Dispatchers::Hybrid()).yieldEvery(), 64u)
      << "SPEC D4: the default budget is 64";
  EXPECT_EQ(Dispatchers::Microtask()->id(), "microtask-dispatcher");
  EXPECT_EQ(Dispatchers::Immediate()->id(), "immediate-dispatcher");
  auto throughput = Dispatchers::Throughput(50);
  EXPECT_EQ(throughput->id(), "throughput-dispatcher");
  EXPECT_EQ(dynamic_cast<ThroughputDispatcher&>(*throughput).throughput(), 50u);
  EXPECT_EQ(dynamic_cast<ThroughputDispatcher&>(*Dispatchers::Throughput()).throughput(), 16u);
}

TEST(Dispatchers, RefuseAZeroBudgetOrThroughputWithNamedErrors) {
  // Bad input
  EXPECT_EQ(errorOf([] { HybridDispatcher d(0); }), Error::ErrInvalidYieldEvery);
  EXPECT_EQ(errorOf([] { Dispatchers::Hybrid(0); }), Error::ErrInvalidYieldEvery);
  EXPECT_EQ(errorOf([] { ThroughputDispatcher d(0); }), Error::ErrInvalidThroughput);
  EXPECT_EQ(errorOf([] { Dispatchers::Throughput(0); }), Error::ErrInvalidThroughput);
}

TEST(Dispatchers, OneInstanceServesOneIsolateAndRefusesASecond) {
  // SPEC D8: one instance per loop; misuse is a named error.
  Isolate first({.name = "first"});
  Isolate second({.name = "second"});
  for (auto& d : {Dispatchers::Hybrid(), Dispatchers::Microtask(), Dispatchers::Immediate(),
                  Dispatchers::Throughput()}) {
    SCOPED_TRACE(d->id());
    d->bind(first);
    d->bind(first);  // the same isolate again is fine
    EXPECT_EQ(errorOf([&] { d->bind(second); }), Error::ErrDispatcherBoundElsewhere);
    EXPECT_EQ(dynamic_cast<BoundDispatcher&>(*d).isolate(), &first);
  }
}

TEST(Dispatchers, AnUnboundInstanceBindsToTheIsolateThatFirstUsesIt) {
  // SPEC D8
  Isolate first({.name = "first"});
  Isolate second({.name = "second"});
  HybridDispatcher d;
  int ran = 0;
  first.post([&] { d.execute([&] { ++ran; }); });
  first.runUntilIdle();
  EXPECT_EQ(d.isolate(), &first);
  EXPECT_EQ(errorOf([&] { d.bind(second); }), Error::ErrDispatcherBoundElsewhere);
  EXPECT_EQ(ran, 1);
}

TEST(Dispatchers, AnUnboundInstanceUsedOutsideAnyIsolateIsRefused) {
  HybridDispatcher d;
  EXPECT_EQ(errorOf([&] { d.execute([] {}); }), Error::ErrNotOnIsolate);
}

TEST(Dispatchers, BecomeOneInstancePerIsolateByCloningWithSettingsAndSink) {
  // SPEC D8: how a user-supplied dispatcher serves N isolates.
  HybridDispatcher prototype(7);
  int reported = 0;
  prototype.setOnError([&](std::exception_ptr, std::string_view) { ++reported; });
  Isolate a({.name = "a"});
  Isolate b({.name = "b"});
  prototype.bind(a);
  auto copy = instanceFor(prototype);
  auto& hybridCopy = dynamic_cast<HybridDispatcher&>(*copy);
  EXPECT_EQ(hybridCopy.yieldEvery(), 7u);
  EXPECT_EQ(hybridCopy.isolate(), nullptr) << "a clone starts unbound";
  copy->bind(b);
  ASSERT_TRUE(copy->onError());
  copy->reportError(std::make_exception_ptr(std::runtime_error("x")));
  EXPECT_EQ(reported, 1) << "the clone keeps the sink its owner set";

  for (auto& d : {Dispatchers::Microtask(), Dispatchers::Immediate(), Dispatchers::Throughput(3)}) {
    EXPECT_EQ(instanceFor(*d)->id(), d->id());
  }
  EXPECT_EQ(instanceFor(testkit::CallingThreadDispatcher())->id(), "calling-thread-dispatcher");
}

TEST(Dispatchers, RefuseToCloneADispatcherThatCannotBeCopied) {
  // SPEC D8: a third-party dispatcher without clone() needs a factory.
  MicrotaskDispatcher inner;
  MeteringDispatcher metering(inner);
  EXPECT_EQ(errorOf([&] { instanceFor(metering); }), Error::ErrDispatcherNotClonable);
}

TEST(Dispatcher, AnInlineDispatcherWhoseUnitThrowsFreesItOnceAndAnyRefusedUnitIsFreedUnrun) {
  // SPEC D1: a third-party dispatcher may run units inside execute(); the
  // callable overload must not touch a task that ran (it freed itself),
  // and must free one that a refusing dispatcher never ran. ASan checks
  // the memory; the counts check that each callable was destroyed once.
  struct Inline final : Dispatcher {
    std::string_view id() const noexcept override { return "inline"; }
    void execute(Task& task) override { task.run(); }
  };
  struct Refusing final : Dispatcher {
    std::string_view id() const noexcept override { return "refusing"; }
    void execute(Task&) override { throw std::runtime_error("no room"); }
  };
  int destroyed = 0;
  struct Tracked {
    int* destroyed;
    bool live = true;
    explicit Tracked(int* d) : destroyed(d) {}
    Tracked(Tracked&& o) noexcept : destroyed(o.destroyed) { o.live = false; }
    ~Tracked() {
      if (live) ++*destroyed;
    }
  };
  Inline inlineInstance;
  Dispatcher& inlineDispatcher = inlineInstance;  // the callable overload is the base's
  int ran = 0;
  EXPECT_THROW(inlineDispatcher.execute([t = Tracked(&destroyed), &ran] {
    ++ran;
    throw std::logic_error("the unit fails");
  }),
               std::logic_error);
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(destroyed, 1);
  // A unit run inline that hands another one over inline: both freed once.
  inlineDispatcher.execute([&, t = Tracked(&destroyed)] {
    inlineDispatcher.execute([&ran, t2 = Tracked(&destroyed)] { ++ran; });
  });
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(destroyed, 3);
  Refusing refusingInstance;
  Dispatcher& refusing = refusingInstance;
  EXPECT_THROW(refusing.execute([&ran, t = Tracked(&destroyed)] { ++ran; }), std::runtime_error);
  EXPECT_EQ(ran, 2) << "a refused unit never runs";
  EXPECT_EQ(destroyed, 4) << "and is freed unrun";
}

}  // namespace
}  // namespace coreactor
