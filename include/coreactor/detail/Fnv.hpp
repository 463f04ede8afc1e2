/// @file
/// `coreactor/detail/Fnv.hpp` — a stable 64-bit string hash (FNV-1a): the
/// same key gives the same value in every run and on every machine. Placement
/// by key (ActorOptions::withKey) and a router's string keys (HashKeyed) rely
/// on it. Not part of the API.
#pragma once

#include <cstdint>
#include <string_view>

namespace coreactor::detail {

/// FNV-1a of `key`.
inline std::uint64_t fnv1a(std::string_view key) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace coreactor::detail
