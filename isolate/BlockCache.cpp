// The block cache's slow paths: parking above the fixed bound, and the trim
// (BlockCache.hpp, CacheTrim.hpp).
#include "BlockCache.hpp"

#include <limits>

#include "CacheTrim.hpp"

namespace coreactor::detail {

BlockCache::~BlockCache() {
  for (std::size_t i = 0; i < 2 * kClasses; ++i) {
    while (heads_[i] != nullptr) release(std::exchange(heads_[i], heads_[i]->next), i);
    // Every later put() takes the slow path, which frees at once.
    counts_[i] = std::numeric_limits<std::size_t>::max();
  }
  gone_ = true;
}

bool BlockCache::parkAboveFixed(std::size_t i) const noexcept {
  return !gone_ && (counts_[i] + 1) * bytesOf(i % kClasses) <= kParkCeiling && trimWillCome();
}

bool BlockCache::trim() noexcept {
  if (gone_) return false;
  bool left = false;
  for (std::size_t i = 0; i < 2 * kClasses; ++i) {
    const std::size_t unused = unusedAbove(counts_[i], lowest_[i], kFixed[i]);
    for (std::size_t n = 0; n < unused; ++n) {
      release(std::exchange(heads_[i], heads_[i]->next), i);
    }
    counts_[i] -= unused;
    lowest_[i] = counts_[i];
    left = left || counts_[i] > kFixed[i];
  }
  return left;
}

}  // namespace coreactor::detail
