// The unbounded mailbox's queue (runtime/MailFifo.hpp) against a std::deque
// doing the same random work: word cells and envelopes mixed, envelopes
// that own memory (a Counted, which counts its live instances), segments of
// five cells so that envelopes keep missing a segment's last cell, single
// consumes and a turn's runs, pushes while an entry is handled, handlers
// that throw, idle shrinking. Same order, same values and senders, same
// sizes, nothing leaked or destroyed twice. SPEC A4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <stdexcept>

#include "coreactor/ActorSystem.hpp"
#include "runtime/MailFifo.hpp"
#include "tests/isolate/Counted.hpp"

namespace coreactor::detail {
namespace {

using test::Counted;

const MessageType* const kWordType = &MessageTypeOf<std::uint64_t, true>::kType;
const MessageType* const kOtherWordType = &MessageTypeOf<std::int32_t, true>::kType;

struct Entry {
  const MessageType* type;  // null: an envelope holding a Counted
  int value;
  ActorRef sender;
};

// A queue of five-cell segments and its reference, with what each check needs.
struct Harness {
  std::unique_ptr<ActorSystem> system =
      ActorSystem::create("fifo", ActorSystemOptions::create().withManualRun());
  const ActorRef senders[3] = {ActorRef(), system->spawn("a", [](ReceiveContext&) {}),
                               system->spawn("b", [](ReceiveContext&) {})};
  int live = 0;       // Counted instances alive
  int envelopes = 0;  // envelopes the reference holds
  std::deque<Entry> reference;
  std::mt19937 random{31};
  int next = 0;

  template <std::uint32_t kCells>
  void push(MailFifo<kCells>& fifo, int count) {
    for (int i = 0; i < count; ++i) {
      const ActorRef sender = senders[random() % 3];
      const int roll = static_cast<int>(random() % 4);
      const MessageType* type = random() % 2 == 0 ? kWordType : kOtherWordType;
      const auto word = static_cast<std::uint64_t>(next);
      if (roll == 0) {
        fifo.push(Message(Counted(next, &live)), sender);
        type = nullptr;
        ++envelopes;
      } else if (roll == 1) {
        if (!fifo.tryPushInPlace(Word{type, word}, sender)) fifo.push(Word{type, word}, sender);
      } else {
        fifo.push(Word{type, word}, sender);
      }
      reference.push_back(Entry{type, next++, sender});
    }
  }
  // Checks a word against the oldest entry and retires it.
  void onWord(const MessageType* type, std::uint64_t word, const ActorRef& sender) {
    ASSERT_FALSE(reference.empty());
    const Entry want = reference.front();
    reference.pop_front();
    ASSERT_NE(want.type, nullptr) << "entry " << want.value << " is an envelope";
    EXPECT_EQ(type, want.type) << "entry " << want.value;
    EXPECT_EQ(word, static_cast<std::uint64_t>(want.value));
    EXPECT_EQ(sender, want.sender);
  }
  void onEnvelope(Envelope& envelope) {
    ASSERT_FALSE(reference.empty());
    const Entry want = reference.front();
    reference.pop_front();
    ASSERT_EQ(want.type, nullptr) << "entry " << want.value << " is a word";
    --envelopes;
    const Counted* c = envelope.message.get<Counted>();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(*c->value, want.value);
    EXPECT_EQ(envelope.sender, want.sender);
  }
};

TEST(MailFifo, WordsAndEnvelopesKeepFifoOrderAgainstADeque) {
  // SPEC A4: the unbounded mailbox is FIFO, whatever mix of word cells and
  // envelopes it holds, whichever way its entries are taken. Pushes and
  // takes are balanced so that the queue empties (and starts over in place)
  // often, and now and then it is drained and shrunk.
  Harness h;
  int emptied = 0;
  int runsToASegmentEnd = 0;
  {
    MailFifo<5> fifo;
    // Handlers push now and then: an actor telling itself, behind the entry.
    const auto pushSome = [&] {
      if (h.random() % 5 == 0) h.push(fifo, static_cast<int>(1 + h.random() % 3));
    };
    const auto takeOne = [&] {
      fifo.consumeFront(
          [&](const MessageType* t, std::uint64_t w, const ActorRef& s) {
            h.onWord(t, w, s);
            pushSome();
          },
          [&](Envelope& e) {
            h.onEnvelope(e);
            pushSome();
          });
    };
    for (int step = 0; step < 30000; ++step) {
      const int roll = static_cast<int>(h.random() % 10);
      if (roll < 3) {
        h.push(fifo, static_cast<int>(h.random() % 8 == 0 ? h.random() % 30 : h.random() % 4));
      } else if (roll < 6 && !fifo.empty()) {
        takeOne();
      } else if (roll < 9 && !fifo.empty()) {
        // A turn's run: bounded, stopped by go(), by the end of a segment or
        // by the queue emptying.
        const auto max = static_cast<std::uint32_t>(1 + h.random() % 12);
        const auto stopAfter = static_cast<std::uint32_t>(1 + h.random() % 12);
        std::uint32_t handled = 0;
        const std::uint32_t ran = fifo.consumeRun(
            max,
            [&](const MessageType* t, std::uint64_t w, const ActorRef& s) {
              h.onWord(t, w, s);
              ++handled;
              pushSome();
            },
            [&](Envelope& e) {
              h.onEnvelope(e);
              ++handled;
              pushSome();
            },
            [&] { return handled < stopAfter; });
        ASSERT_EQ(ran, handled);
        ASSERT_LE(ran, std::min(max, stopAfter));
        ASSERT_LE(ran, 5u) << "a run stays in one segment";
        // It stopped for one of its reasons, not sooner.
        const bool ended = fifo.atSegmentStart();
        ASSERT_TRUE(ran == max || ran == stopAfter || ended) << "step " << step;
        if (ended && !fifo.empty()) ++runsToASegmentEnd;
      } else if (roll == 9) {
        while (!fifo.empty()) takeOne();
        if (::testing::Test::HasFatalFailure()) return;
        // Pushes from the last handlers may have refilled it.
        while (!fifo.empty()) {
          fifo.consumeFront(
              [&](const MessageType* t, std::uint64_t w, const ActorRef& s) { h.onWord(t, w, s); },
              [&](Envelope& e) { h.onEnvelope(e); });
        }
        fifo.shrinkIdle();
      }
      if (::testing::Test::HasFatalFailure()) return;
      if (fifo.empty()) ++emptied;
      ASSERT_EQ(fifo.size(), h.reference.size()) << "step " << step;
      ASSERT_EQ(fifo.empty(), h.reference.empty()) << "step " << step;
      ASSERT_EQ(h.live, h.envelopes) << "step " << step << ": handled envelopes are destroyed";
    }
    h.push(fifo, 17);  // some left behind for the destructor
  }
  EXPECT_EQ(h.live, 0) << "what was left was destroyed with the queue";
  EXPECT_GT(emptied, 1000) << "the queue emptied and started over in place often";
  EXPECT_GT(runsToASegmentEnd, 100) << "runs ended at a segment's end";
}

TEST(MailFifo, AnEnvelopeThatMissesASegmentsLastCellStartsTheNext) {
  // Four words fill four of five cells; the envelope takes the next
  // segment's first two, and the cell it left says so.
  Harness h;
  MailFifo<5> fifo;
  for (int i = 0; i < 4; ++i) fifo.push(Word{kWordType, static_cast<std::uint64_t>(i)}, ActorRef());
  for (int i = 0; i < 4; ++i) h.reference.push_back({kWordType, i, {}});
  fifo.push(Message(Counted(4, &h.live)), ActorRef());
  fifo.push(Word{kWordType, 5}, ActorRef());
  h.reference.push_back({nullptr, 4, {}});
  h.reference.push_back({kWordType, 5, {}});
  const auto word = [&](const MessageType* t, std::uint64_t w, const ActorRef& s) {
    h.onWord(t, w, s);
  };
  const auto envelope = [&](Envelope& e) { h.onEnvelope(e); };
  EXPECT_EQ(fifo.consumeRun(10, word, envelope, [] { return true; }), 4u)
      << "the run ends with the first segment";
  EXPECT_EQ(fifo.consumeRun(10, word, envelope, [] { return true; }), 2u);
  EXPECT_TRUE(fifo.empty());
  EXPECT_EQ(h.live, 0);
}

TEST(MailFifo, AHandlerThatThrowsHasItsEntryDroppedAndTheRunStops) {
  // The turn hands a message over for good: one whose handler throws is
  // gone too (an envelope destroyed), and the run stops there.
  Harness h;
  {
    MailFifo<5> fifo;
    fifo.push(Word{kWordType, 0}, ActorRef());
    fifo.push(Message(Counted(1, &h.live)), ActorRef());
    fifo.push(Word{kWordType, 2}, ActorRef());
    fifo.push(Message(Counted(3, &h.live)), ActorRef());
    int words = 0;
    EXPECT_THROW(fifo.consumeRun(
                     4, [&](const MessageType*, std::uint64_t, const ActorRef&) { ++words; },
                     [](Envelope&) { throw std::runtime_error("envelope"); }, [] { return true; }),
                 std::runtime_error);
    EXPECT_EQ(words, 1);
    EXPECT_EQ(fifo.size(), 2u);
    EXPECT_EQ(h.live, 1) << "the envelope whose handler threw was destroyed";
    EXPECT_THROW(fifo.consumeFront(
                     [](const MessageType*, std::uint64_t w, const ActorRef&) {
                       if (w == 2) throw std::runtime_error("word");
                     },
                     [](Envelope&) {}),
                 std::runtime_error);
    EXPECT_EQ(fifo.size(), 1u);
    int value = -1;
    fifo.consumeFront([](const MessageType*, std::uint64_t, const ActorRef&) {},
                      [&](Envelope& e) { value = *e.message.get<Counted>()->value; });
    EXPECT_EQ(value, 3);
    EXPECT_TRUE(fifo.empty());
  }
  EXPECT_EQ(h.live, 0);
}

}  // namespace
}  // namespace coreactor::detail
