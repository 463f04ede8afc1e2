// The cell's path string (runtime/CompactString.hpp): inline up to 15
// characters, on the heap past that, the same text either way.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "runtime/CompactString.hpp"

namespace coreactor {
namespace {

TEST(CompactString, KeepsEveryLengthAcrossTheInlineLimitAndMoves) {
  for (std::size_t n = 0; n <= 40; ++n) {
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text += static_cast<char>('a' + i % 26);
    detail::CompactString s(text);
    ASSERT_EQ(s.view(), text) << n;
    detail::CompactString moved(std::move(s));
    ASSERT_EQ(moved.view(), text) << n;
    EXPECT_TRUE(s.view().empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    detail::CompactString assigned("/user/x");
    assigned = std::move(moved);
    ASSERT_EQ(assigned.view(), text) << n;
  }
  EXPECT_EQ(sizeof(detail::CompactString), 16u);
}

}  // namespace
}  // namespace coreactor
