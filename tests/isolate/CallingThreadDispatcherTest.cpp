// The test-only calling-thread dispatcher. SPEC D13.
#include <gtest/gtest.h>

#include "TestSupport.hpp"
#include "coreactor/testkit/CallingThreadDispatcher.hpp"

namespace coreactor {
namespace {

using testkit::CallingThreadDispatcher;

TEST(CallingThreadDispatcher, RunsTheUnitBeforeExecuteReturnsWithoutAnyIsolate) {
  // SPEC D13: "send N, observe N" with no loop.
  CallingThreadDispatcher d;
  int ran = 0;
  for (int i = 0; i < 10; ++i) {
    d.execute([&] { ++ran; });
    EXPECT_EQ(ran, i + 1);
  }
  EXPECT_EQ(Isolate::current(), nullptr);
}

TEST(CallingThreadDispatcher, QueuesNestedUnitsInsteadOfRecursing) {
  // SPEC D13: a long volley does not grow the stack; order is arrival order.
  CallingThreadDispatcher d;
  std::vector<int> order;
  int depth = 0;
  int maxDepth = 0;
  test::ReusableTask a;
  test::ReusableTask b;
  long steps = 0;
  auto step = [&](test::ReusableTask& next) {
    maxDepth = std::max(maxDepth, ++depth);
    if (++steps < 1'000'000) d.execute(next);
    --depth;
  };
  a.fn = [&] { step(b); };
  b.fn = [&] { step(a); };
  d.execute(a);
  EXPECT_EQ(steps, 1'000'000);
  EXPECT_EQ(maxDepth, 1);
}

TEST(CallingThreadDispatcher, ReportsAThrowAndRunsTheRest) {
  CallingThreadDispatcher d;
  int errors = 0;
  d.setOnError([&](std::exception_ptr, std::string_view id) {
    EXPECT_EQ(id, "calling-thread-dispatcher");
    ++errors;
  });
  int ran = 0;
  d.execute([&] {
    d.execute([] { throw std::runtime_error("nested"); });
    d.execute([&] { ++ran; });
    throw std::runtime_error("outer");
  });
  EXPECT_EQ(errors, 2);
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace coreactor
