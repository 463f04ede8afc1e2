// Hashing helpers: the stable string hash (FNV-1a, coreactor/detail/Fnv.hpp:
// placement by key and a router's string keys rely on it), and the rule of
// backward-shift deletion for the runtime's linear-probing table
// (ScheduleNames).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coreactor/detail/Fnv.hpp"

namespace coreactor::detail {

/// Backward-shift deletion in a linear-probing table: true if the entry at
/// slot `i`, whose home slot is `home`, may move into the hole at `hole`,
/// i.e. its home is not in (hole, i], cyclically. Lookups then need no
/// tombstones.
inline bool mayFillHole(std::size_t hole, std::size_t i, std::size_t home) noexcept {
  const bool between = hole < i ? (home > hole && home <= i) : (home > hole || home <= i);
  return !between;
}

}  // namespace coreactor::detail
