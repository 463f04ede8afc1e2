// examples/http-service/Kv.hpp — the key-value operations, whoever holds the
// map: a shard actor (Shards.hpp) or a map behind a mutex (the plain arm of
// bench/http/HttpBench.cpp). One request, one answer, both plain values, so that
// they travel as messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace httpservice {

enum class KvOp : std::uint8_t { Get, Put, Delete };

struct KvRequest {
  KvOp op;
  std::string key;
  std::string value;  // Put only
};

enum class KvOutcome : std::uint8_t {
  Found,        // Get: the value is in the answer
  Missing,      // Get, Delete: no such key
  Created,      // Put: a new key
  Replaced,     // Put: the key had a value
  Deleted,      // Delete
  Unavailable,  // the store did not answer (a timeout, a stopped system)
};

// 40 bytes with a non-throwing move: a Message holds it inline, so a reply
// costs no allocation beyond the value's own.
struct KvAnswer {
  KvOutcome outcome = KvOutcome::Unavailable;
  std::string value;  // Found only
};

using KvMap = std::unordered_map<std::string, std::string>;

// Runs one request against `map`, taking the request's strings.
inline KvAnswer apply(KvMap& map, KvRequest& request) {
  switch (request.op) {
    case KvOp::Get: {
      const auto it = map.find(request.key);
      if (it == map.end()) return {KvOutcome::Missing, {}};
      return {KvOutcome::Found, it->second};
    }
    case KvOp::Put: {
      const bool created =
          map.insert_or_assign(std::move(request.key), std::move(request.value)).second;
      return {created ? KvOutcome::Created : KvOutcome::Replaced, {}};
    }
    case KvOp::Delete:
      return {map.erase(request.key) != 0 ? KvOutcome::Deleted : KvOutcome::Missing, {}};
  }
  return {};
}

// 64-bit FNV-1a: stable across runs and machines, so a key always lands on
// the same shard for the same shard count.
inline std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace httpservice
