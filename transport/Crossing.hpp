// What crosses between isolates (SPEC X1): the items a Link's rings and
// overflow lists hold. References travel as 64-bit ids that the runtime
// mints and reads; the link never looks inside them but for the receiving
// isolate's bits (Link.hpp, "Targets").
#pragma once

#include <cstdint>

#include "coreactor/Message.hpp"

namespace coreactor::transport {

/// One message on its way from one isolate to another: with the ring
/// cell's mark, which carries the target's id, one cache line (a big item
/// of the ring). The runtime carries what is not a plain message (a system
/// message, a message whose sender no id can name) as a Message of a type
/// of its own.
struct Crossing {
  static constexpr std::uint64_t kNoSender = ~std::uint64_t{0};
  std::uint64_t sender = kNoSender;  ///< the sender's id, or kNoSender
  Message message;
};
static_assert(sizeof(Crossing) + sizeof(std::uint64_t) == 64,
              "a crossing and its cell's mark are one cache line");

/// A word (Message::kWord: trivially copyable, at most 8 bytes) on its way
/// to another isolate: with its cell's mark, half a cache line (a small
/// item of the ring), so a flood of words moves half the lines a flood of
/// crossings does.
struct WordCrossing {
  std::uint64_t sender;
  const detail::MessageType* type;
  std::uint64_t word;
};
static_assert(sizeof(WordCrossing) + sizeof(std::uint64_t) == 32,
              "a word crossing and its cell's mark are half a cache line");

/// Words of one sender and one type to one target, sent one after another
/// (a flood): up to kWords of them cross as one Crossing whose message is
/// this run, a line for four words instead of half a line for each. How
/// many it holds is in the ring's key (Link::kRunShift).
struct WordRun {
  static constexpr std::uint32_t kWords = 4;
  const detail::MessageType* type;
  std::uint64_t words[kWords];
};
static_assert(sizeof(WordRun) <= Message::kInlineSize, "a run of words is held inline");

/// Why a link hands a crossing back to its receiver's refuse() instead of
/// delivering it.
enum class Refusal : std::uint8_t {
  Backpressure,  ///< the overflow list to the receiving isolate is at its bound (SPEC X3)
  Stopped,       ///< the system stopped with the crossing still in flight (SPEC X2)
};

}  // namespace coreactor::transport
