// transport::Link alone, with a receiver of the test's own in place of the
// runtime's (runtime/CrossingReceiver.hpp): what one isolate's link sends
// reaches the other's receiver in order, words in runs and messages whole;
// past the overflow list's bound a crossing is refused, counted; and what
// is in flight at teardown is refused as Stopped. Two links on one thread,
// their isolates never run: each poll() is the receiving loop's look.
// SPEC A2, X2, X3.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "coreactor/Isolate.hpp"
#include "coreactor/Message.hpp"
#include "transport/Link.ipp"

namespace coreactor {
namespace {

using transport::Crossing;
using transport::Refusal;

/// What the link handed over, in order: the target's key (its low bits),
/// the sender, and the value (an int message), or the refusal.
struct Seen {
  std::uint64_t target;
  std::uint64_t sender;
  int value;
  bool refused = false;
  Refusal why = Refusal::Backpressure;
};

struct FakeReceiver {
  std::vector<Seen>* seen;
  void deliverWords(std::uint64_t target, std::uint64_t sender, const detail::MessageType* type,
                    const std::uint64_t* words, std::uint64_t count) noexcept {
    for (std::uint64_t i = 0; i < count; ++i) {
      const Message m = detail::Word{type, words[i]}.message();
      seen->push_back({target, sender, *m.get<int>()});
    }
  }
  void deliver(std::uint64_t target, Crossing&& c) noexcept {
    const int* n = c.message.get<int>();
    const std::string* s = c.message.get<std::string>();
    const int value = n != nullptr ? *n : s != nullptr ? -static_cast<int>(s->size()) : 0;
    seen->push_back({target, c.sender, value});
  }
  void refuse(std::uint64_t target, Crossing&& c, Refusal why) noexcept {
    const int* n = c.message.get<int>();
    seen->push_back({target, c.sender, n != nullptr ? *n : 0, true, why});
  }
};

using TestLink = transport::Link<FakeReceiver>;

/// Two isolates' links, 0 and 1, with rings of `slots` lines that never
/// grow and overflow lists of `overflow` crossings.
struct Pair {
  explicit Pair(std::size_t slots = 64, std::size_t overflow = 1 << 20)
      : a(IsolateOptions{.name = "a"}),
        b(IsolateOptions{.name = "b"}),
        zero(FakeReceiver{&seenByZero}, a, 0, 2, slots, slots, overflow),
        one(FakeReceiver{&seenByOne}, b, 1, 2, slots, slots, overflow) {}
  /// A target on isolate 1 with key `key`.
  static std::uint64_t onOne(std::uint64_t key) {
    return (std::uint64_t{1} << TestLink::kIsolateShift) | key;
  }
  std::vector<Seen> seenByZero;
  std::vector<Seen> seenByOne;
  Isolate a;
  Isolate b;
  TestLink zero;
  TestLink one;
};

detail::Word wordOf(int n) {
  return detail::Word::of(Message(n));
}

TEST(Link, WordsAndMessagesFromOneSenderReachTheOtherIsolatesReceiverInTheOrderSent) {
  // SPEC A2: one sender, one receiver, order kept, whichever form each takes.
  Pair p;
  std::vector<int> sent;
  for (int i = 0; i < 300; ++i) {
    if (i % 7 == 3) {
      const std::string text(static_cast<std::size_t>(i), 'x');  // no word: crosses whole
      p.zero.send(p.one, Pair::onOne(5), Crossing{9, Message(text)});
      sent.push_back(-i);
    } else {
      p.zero.send(p.one, Pair::onOne(5), 9, wordOf(i));
      sent.push_back(i);
    }
  }
  // The sender flushes what it gathered as its loop would, then the
  // receiver looks until it has taken everything.
  p.zero.beforeSleep();
  for (int look = 0; look < 100 && p.seenByOne.size() < sent.size(); ++look) {
    p.one.poll();
    p.zero.poll();
  }
  ASSERT_EQ(p.seenByOne.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(p.seenByOne[i].value, sent[i]) << "crossing " << i;
    EXPECT_EQ(p.seenByOne[i].sender, 9u);
    EXPECT_EQ(p.seenByOne[i].target, Pair::onOne(5)) << "the receiving link puts the isolate back";
    EXPECT_FALSE(p.seenByOne[i].refused);
  }
  EXPECT_TRUE(p.seenByZero.empty()) << "nothing was sent the other way";
  EXPECT_EQ(p.zero.stats().sent.load(), sent.size());
  EXPECT_EQ(p.one.stats().received.load(), sent.size());
}

TEST(Link, PastTheOverflowListsBoundACrossingIsRefusedCountedAndNothingElseIsLost) {
  // SPEC X3: a ring of 2 lines and an overflow list of 8 crossings, and a
  // receiver that does not look: the rest is refused, each one counted and
  // handed back; what was taken arrives in order once it looks.
  Pair p(2, 8);
  constexpr int kSent = 200;
  for (int i = 0; i < kSent; ++i) {
    p.zero.send(p.one, Pair::onOne(1), Crossing{4, Message(i)});
  }
  std::vector<int> refused;
  for (const Seen& s : p.seenByZero) {
    EXPECT_TRUE(s.refused);
    EXPECT_EQ(s.why, Refusal::Backpressure);
    refused.push_back(s.value);
  }
  ASSERT_FALSE(refused.empty());
  EXPECT_EQ(p.zero.stats().refused.load(), refused.size());
  for (int look = 0; look < 1000 && p.seenByOne.size() + refused.size() < kSent; ++look) {
    p.one.poll();
    p.zero.poll();
  }
  ASSERT_EQ(p.seenByOne.size() + refused.size(), static_cast<std::size_t>(kSent))
      << "delivered + refused = sent";
  for (std::size_t i = 1; i < p.seenByOne.size(); ++i) {
    EXPECT_LT(p.seenByOne[i - 1].value, p.seenByOne[i].value)
        << "a refusal leaves a gap, never a swap";
  }
}

TEST(Link, WhatIsInFlightAtTeardownIsRefusedAsStoppedOnce) {
  // SPEC X2: nothing polled; the teardown hands every crossing back once.
  Pair p(2, 1 << 20);
  constexpr int kSent = 50;
  for (int i = 0; i < kSent; ++i) p.zero.send(p.one, Pair::onOne(2), Crossing{1, Message(i)});
  for (int i = 0; i < kSent; ++i) p.zero.send(p.one, Pair::onOne(2), 1, wordOf(1000 + i));
  p.one.drainAtTeardown();
  p.zero.drainAtTeardown();
  std::vector<Seen> all = p.seenByOne;
  all.insert(all.end(), p.seenByZero.begin(), p.seenByZero.end());
  ASSERT_EQ(all.size(), static_cast<std::size_t>(2 * kSent));
  for (const Seen& s : all) {
    EXPECT_TRUE(s.refused);
    EXPECT_EQ(s.why, Refusal::Stopped);
  }
}

}  // namespace
}  // namespace coreactor
