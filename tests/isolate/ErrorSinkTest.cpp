// Where a unit that throws is reported. SPEC D1, D12.
#include <gtest/gtest.h>

#include "TestSupport.hpp"
#include "coreactor/Dispatchers.hpp"

namespace coreactor {
namespace {

std::string runCapturingStderr(Isolate& isolate) {
  testing::internal::CaptureStderr();
  isolate.runUntilIdle();
  return testing::internal::GetCapturedStderr();
}

TEST(DispatcherErrorSink, ReportsToStderrWhenUnset) {
  // SPEC D12: the last resort of a dispatcher no system adopted.
  for (auto& d : {Dispatchers::Hybrid(), Dispatchers::Microtask(), Dispatchers::Immediate(),
                  Dispatchers::Throughput()}) {
    Isolate isolate;
    d->bind(isolate);
    bool after = false;
    isolate.post([&] {
      d->execute([] { throw std::runtime_error("unit failed"); });
      d->execute([&] { after = true; });
    });
    const std::string err = runCapturingStderr(isolate);
    EXPECT_TRUE(after) << d->id() << ": the loop goes on";
    EXPECT_NE(err.find(std::string(d->id())), std::string::npos) << err;
    EXPECT_NE(err.find("unit failed"), std::string::npos) << err;
  }
}

TEST(DispatcherErrorSink, ReceivesTheErrorAndTheDispatcherId) {
  // SPEC D1, D12
  for (auto& d : {Dispatchers::Hybrid(), Dispatchers::Microtask(), Dispatchers::Immediate(),
                  Dispatchers::Throughput()}) {
    Isolate isolate;
    d->bind(isolate);
    std::string seenId;
    std::string seenWhat;
    d->setOnError([&](std::exception_ptr e, std::string_view id) {
      seenId = id;
      seenWhat = describe(e);
    });
    isolate.post([&] { d->execute([] { throw std::runtime_error("to the sink"); }); });
    const std::string err = runCapturingStderr(isolate);
    EXPECT_EQ(seenId, d->id());
    EXPECT_EQ(seenWhat, "to the sink");
    EXPECT_EQ(err, "") << "a set sink is the only report";
  }
}

TEST(DispatcherErrorSink, ASinkThatThrowsLosesNothing) {
  // SPEC D12: stderr gets the original error and the sink's.
  Isolate isolate;
  HybridDispatcher d;
  d.bind(isolate);
  d.setOnError(
      [](std::exception_ptr, std::string_view) { throw std::runtime_error("the sink broke"); });
  bool after = false;
  isolate.post([&] {
    d.execute([] { throw std::runtime_error("the original"); });
    d.execute([&] { after = true; });
  });
  const std::string err = runCapturingStderr(isolate);
  EXPECT_TRUE(after);
  EXPECT_NE(err.find("the original"), std::string::npos) << err;
  EXPECT_NE(err.find("the sink broke"), std::string::npos) << err;
}

TEST(DispatcherErrorSink, IsFilledBySomeoneElseOnlyWhereUnset) {
  // SPEC D12: a system wires its sink only into a free slot ("??=").
  MicrotaskDispatcher d;
  int mine = 0;
  int theirs = 0;
  ErrorSink theSystems = [&](std::exception_ptr, std::string_view) { ++theirs; };
  EXPECT_TRUE(d.adoptErrorSink(theSystems));
  d.reportError(std::make_exception_ptr(std::runtime_error("1")));
  EXPECT_EQ(theirs, 1);

  MicrotaskDispatcher owned;
  owned.setOnError([&](std::exception_ptr, std::string_view) { ++mine; });
  EXPECT_FALSE(owned.adoptErrorSink(theSystems));
  owned.reportError(std::make_exception_ptr(std::runtime_error("2")));
  EXPECT_EQ(mine, 1);
  EXPECT_EQ(theirs, 1) << "the owner's sink survives";
}

TEST(DispatcherErrorSink, ReportsAThrowFromAnIntrusiveUnitToo) {
  // SPEC D12: the unit handed straight to execute, without a wrapper.
  Isolate isolate;
  ImmediateDispatcher d;
  d.bind(isolate);
  int errors = 0;
  d.setOnError([&](std::exception_ptr, std::string_view) { ++errors; });
  test::ReusableTask unit([] { throw std::logic_error("intrusive"); });
  isolate.post([&] { d.execute(unit); });
  isolate.runUntilIdle();
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(isolate.stats().taskErrors, 1u);
}

}  // namespace
}  // namespace coreactor
