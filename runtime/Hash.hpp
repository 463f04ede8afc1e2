// Hashing helpers. A stable 64-bit string hash (FNV-1a): the same key gives
// the same value in every run and on every machine (placement by key relies
// on it). And the rule of backward-shift deletion for the runtime's
// linear-probing table (ScheduleNames).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace coreactor::detail {

inline std::uint64_t fnv1a(std::string_view key) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

/// Backward-shift deletion in a linear-probing table: true if the entry at
/// slot `i`, whose home slot is `home`, may move into the hole at `hole`,
/// i.e. its home is not in (hole, i], cyclically. Lookups then need no
/// tombstones.
inline bool mayFillHole(std::size_t hole, std::size_t i, std::size_t home) noexcept {
  const bool between = hole < i ? (home > hole && home <= i) : (home > hole || home <= i);
  return !between;
}

}  // namespace coreactor::detail
