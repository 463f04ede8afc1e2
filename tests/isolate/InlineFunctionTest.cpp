// detail::InlineFunction, the ask continuation's type: what it keeps inline,
// what it boxes, and that every callable it takes is destroyed exactly once.
#include "coreactor/detail/InlineFunction.hpp"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>

namespace coreactor::detail {
namespace {

using Fn = InlineFunction<int(int), 48>;

/// Counts its live copies (moved-from ones included) in `live`.
struct Tracked {
  explicit Tracked(int* l) : live(l) { ++*live; }
  Tracked(Tracked&& other) noexcept : live(other.live) { ++*live; }
  Tracked(const Tracked&) = delete;
  ~Tracked() { --*live; }
  int* live;
};

TEST(InlineFunction, CallsATriviallyCopyableCallableAfterMoves) {
  const int base = 40;
  Fn f = [base](int n) { return base + n; };
  Fn g = std::move(f);
  EXPECT_FALSE(static_cast<bool>(f)) << "a moved-from function is empty";
  Fn h;
  h = std::move(g);
  ASSERT_TRUE(static_cast<bool>(h));
  EXPECT_EQ(h(2), 42);
}

TEST(InlineFunction, DestroysAnInlineCallableOnceThroughMoves) {
  int live = 0;
  {
    Fn f = [t = Tracked(&live), s = std::string("state")](int n) {
      return static_cast<int>(s.size()) + n;
    };
    EXPECT_EQ(live, 1);
    Fn g = std::move(f);
    EXPECT_EQ(live, 1) << "the move destroyed the source";
    EXPECT_EQ(g(1), 6);
  }
  EXPECT_EQ(live, 0);
}

TEST(InlineFunction, BoxesACallableTooBigToKeepInline) {
  int live = 0;
  {
    std::array<int, 32> big{};
    big[31] = 7;
    Fn f = [big, t = Tracked(&live)](int n) { return big[31] * n; };
    Fn g = std::move(f);
    EXPECT_EQ(live, 1) << "the box changed hands, the callable did not move";
    EXPECT_EQ(g(6), 42);
    Fn h;
    h = std::move(g);
    EXPECT_EQ(h(1), 7);
  }
  EXPECT_EQ(live, 0);
}

TEST(InlineFunction, AssigningOverAFunctionDestroysWhatItHeld) {
  int first = 0;
  int second = 0;
  Fn f = [t = Tracked(&first)](int n) { return n; };
  f = Fn([t = Tracked(&second)](int n) { return -n; });
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
  EXPECT_EQ(f(3), -3);
}

}  // namespace
}  // namespace coreactor::detail
