// Mailboxes: unbounded FIFO, bounded with each overflow policy, stable
// priority. SPEC A4, A7.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "runtime/Mailbox.hpp"

namespace coreactor {
namespace {

using test::errorOf;

struct Fixture {
  std::unique_ptr<ActorSystem> system =
      ActorSystem::create("mailbox", ActorSystemOptions::create().withManualRun());
  std::vector<int> seen;
  std::vector<int> dead;
  Fixture() {
    system->eventStream().subscribe<DeadLetter>([this](const DeadLetter& d) {
      if (const int* n = d.message->get<int>()) dead.push_back(*n);
    });
  }
  ActorRef spawn(MailboxOptions mailbox) {
    ActorRef a = system->spawn(
        "a", [this](ReceiveContext& ctx) { seen.push_back(*ctx.get<int>()); },
        ActorOptions::create().withMailbox(std::move(mailbox)));
    system->runUntilIdle();  // started, idle
    return a;
  }
};

TEST(Mailbox, UnboundedKeepsEveryMessageInOrder) {
  // SPEC A4
  Fixture f;
  ActorRef a = f.spawn(MailboxOptions::unbounded());
  for (int i = 0; i < 10000; ++i) a.tell(i);
  f.system->runUntilIdle();
  ASSERT_EQ(f.seen.size(), 10000u);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(f.seen[i], i);
}

// What the interleaving test sends besides an int: a message too large for
// the word slot, and one that owns memory.
struct Wide {
  std::int64_t value;
  std::int64_t pad[2];
};

TEST(Mailbox, TheInlineSlotAndTheQueueKeepFifoUnderAnyInterleaving) {
  // SPEC A4: the unbounded mailbox keeps its oldest message in a slot of
  // its own while the queue is empty, if it is a word from a sender of its
  // system or from none. Random runs of pushes and pops against a deque:
  // words (as Messages, and as a type and a word: tell's fast path), wide
  // and owning messages and empty ones, from no sender, from an actor of the
  // mailbox's system and from one of another system; each pop must give
  // back the same value and the same sender. Pops are pop(), a turn's
  // consume(), which reads a queued message in place, and runs of a
  // flooded actor's turn (consumeFifoRun); the last two sometimes push
  // more while they hold a message (an actor telling itself).
  auto own = ActorSystem::create("own", ActorSystemOptions::create().withManualRun());
  auto other = ActorSystem::create("other", ActorSystemOptions::create().withManualRun());
  const ActorRef senders[] = {ActorRef(), own->spawn("s", [](ReceiveContext&) {}),
                              other->spawn("s", [](ReceiveContext&) {})};
  detail::SystemCore* system = &detail::coreOf(*own);
  detail::Mailbox box(MailboxOptions::unbounded());
  struct Sent {
    int kind;  // 0 empty, 1 int, 2 Wide, 3 std::string
    int value;
    ActorRef sender;
  };
  std::deque<Sent> reference;
  std::mt19937 random(17);
  int next = 0;
  const auto push = [&](int count) {
    for (int i = 0; i < count; ++i) {
      const int roll = static_cast<int>(random() % 8);
      const int kind = roll == 0 ? 0 : roll == 1 ? 2 : roll == 2 ? 3 : 1;
      const ActorRef sender = senders[random() % 3];
      if (kind == 1 && random() % 2 == 0) {
        ASSERT_TRUE(box.tryPush(detail::Word{&detail::MessageTypeOf<int, true>::kType,
                                             static_cast<std::uint32_t>(next)},
                                sender, system));
      } else {
        Message m = kind == 0   ? Message()
                    : kind == 1 ? Message(next)
                    : kind == 2 ? Message(Wide{next, {0, 0}})
                                : Message(std::to_string(next));
        ASSERT_TRUE(box.tryPush(std::move(m), sender, system));
      }
      reference.push_back(Sent{kind, next, sender});
      ++next;
    }
  };
  const auto check = [&](Message& message, const ActorRef& sender, int step) {
    const Sent& want = reference.front();
    switch (want.kind) {
      case 0:
        ASSERT_TRUE(message.empty()) << "step " << step;
        break;
      case 1:
        ASSERT_TRUE(message.is<int>()) << "step " << step;
        ASSERT_EQ(*message.get<int>(), want.value) << "step " << step;
        break;
      case 2:
        ASSERT_TRUE(message.is<Wide>()) << "step " << step;
        ASSERT_EQ(message.get<Wide>()->value, want.value) << "step " << step;
        break;
      default:
        ASSERT_TRUE(message.is<std::string>()) << "step " << step;
        ASSERT_EQ(*message.get<std::string>(), std::to_string(want.value));
    }
    ASSERT_EQ(sender, want.sender) << "step " << step;
  };
  for (int step = 0; step < 20000; ++step) {
    const int n = static_cast<int>(random() % 6);
    if (random() % 2 == 0) {
      push(n);
    } else {
      for (int i = 0; i < n && !reference.empty(); ++i) {
        ASSERT_FALSE(box.empty());
        const int how = static_cast<int>(random() % 3);
        if (how == 2 && box.fifoFirst()) {
          // A flooded actor's turn: a run from the queue, bounded, stopped
          // by the actor (go()) or by the end of a segment.
          const auto max = static_cast<std::uint32_t>(1 + random() % 8);
          const auto stopAfter = static_cast<std::uint32_t>(1 + random() % 8);
          std::uint32_t handled = 0;
          const std::uint32_t ran = box.consumeFifoRun(
              max,
              [&](Message& message, const ActorRef& sender) {
                check(message, sender, step);
                reference.pop_front();
                ++handled;
                if (random() % 4 == 0) push(1);  // behind the run
              },
              [&] { return handled < stopAfter; });
          ASSERT_EQ(ran, handled);
          ASSERT_LE(ran, std::min(max, stopAfter));
          if (::testing::Test::HasFatalFailure()) return;
          continue;
        }
        if (how == 0) {
          detail::Envelope e = box.pop(system);
          check(e.message, e.sender, step);
        } else {
          const int more = random() % 4 == 0 ? static_cast<int>(random() % 3) : 0;
          box.consume(system, [&](Message& message, const ActorRef& sender) {
            check(message, sender, step);
            push(more);  // behind the message being handled, which stays put
            check(message, sender, step);
          });
        }
        if (::testing::Test::HasFatalFailure()) return;
        reference.pop_front();
      }
      if (reference.empty()) box.shrinkIfIdle();
    }
    ASSERT_EQ(box.size(), reference.size());
    ASSERT_EQ(box.empty(), reference.empty());
  }
}

TEST(Mailbox, BoundedMailboxesKeepTheirBoundAndOrderWithWordsAndEnvelopesMixed) {
  // SPEC A4: a bounded mailbox queues words in single cells and anything
  // else as an envelope. Random pushes and pops against a deque of
  // `capacity`, for both policies: what is refused is the message pushed,
  // what is evicted is the oldest, and nothing else moves.
  auto own = ActorSystem::create("bounded", ActorSystemOptions::create().withManualRun());
  const ActorRef senders[] = {ActorRef(), own->spawn("s", [](ReceiveContext&) {})};
  detail::SystemCore* system = &detail::coreOf(*own);
  for (const OverflowPolicy policy : {OverflowPolicy::DropNewest, OverflowPolicy::DropOldest}) {
    constexpr std::size_t kCapacity = 70;  // more than one segment of cells
    detail::Mailbox box(MailboxOptions::bounded(kCapacity, policy));
    struct Sent {
      int kind;  // 1 int, 2 Wide, 3 std::string
      int value;
      ActorRef sender;
    };
    std::deque<Sent> reference;
    std::mt19937 random(5);
    int next = 0;
    const auto check = [](const Message& message, const ActorRef& sender, const Sent& want) {
      switch (want.kind) {
        case 1:
          ASSERT_TRUE(message.is<int>());
          ASSERT_EQ(*message.get<int>(), want.value);
          break;
        case 2:
          ASSERT_TRUE(message.is<Wide>());
          ASSERT_EQ(message.get<Wide>()->value, want.value);
          break;
        default:
          ASSERT_TRUE(message.is<std::string>());
          ASSERT_EQ(*message.get<std::string>(), std::to_string(want.value));
      }
      ASSERT_EQ(sender, want.sender);
    };
    int refused = 0;
    int evicted = 0;
    for (int step = 0; step < 4000; ++step) {
      if (random() % 2 == 0) {
        const int count = static_cast<int>(random() % 12);
        for (int i = 0; i < count; ++i) {
          const int roll = static_cast<int>(random() % 4);
          const int kind = roll == 0 ? 2 : roll == 1 ? 3 : 1;
          const Sent sent{kind, next++, senders[random() % 2]};
          Message m = kind == 1   ? Message(sent.value)
                      : kind == 2 ? Message(Wide{sent.value, {0, 0}})
                                  : Message(std::to_string(sent.value));
          detail::Envelope displaced;
          switch (box.push(detail::Envelope{std::move(m), sent.sender}, &displaced, system)) {
            case detail::Mailbox::Push::Queued:
              ASSERT_LT(reference.size(), kCapacity) << "step " << step;
              reference.push_back(sent);
              break;
            case detail::Mailbox::Push::Refused:
              ASSERT_EQ(policy, OverflowPolicy::DropNewest);
              ASSERT_EQ(reference.size(), kCapacity);
              check(displaced.message, displaced.sender, sent);
              ++refused;
              break;
            case detail::Mailbox::Push::Evicted:
              ASSERT_EQ(policy, OverflowPolicy::DropOldest);
              ASSERT_EQ(reference.size(), kCapacity);
              check(displaced.message, displaced.sender, reference.front());
              reference.pop_front();
              reference.push_back(sent);
              ++evicted;
              break;
          }
          if (::testing::Test::HasFatalFailure()) return;
        }
      } else {
        const int count = static_cast<int>(random() % 10);
        for (int i = 0; i < count && !reference.empty(); ++i) {
          if (random() % 2 == 0) {
            detail::Envelope e = box.pop(system);
            check(e.message, e.sender, reference.front());
          } else {
            box.consume(system, [&](Message& message, const ActorRef& sender) {
              check(message, sender, reference.front());
            });
          }
          if (::testing::Test::HasFatalFailure()) return;
          reference.pop_front();
        }
      }
      ASSERT_EQ(box.size(), reference.size()) << "step " << step;
    }
    EXPECT_GT(policy == OverflowPolicy::DropNewest ? refused : evicted, 100)
        << "the mailbox was full often";
  }
}

TEST(Mailbox, BoundedDropNewestRefusesWhatDoesNotFitAsDeadLetters) {
  // SPEC A4, A7: the refused messages are dead letters, counted.
  Fixture f;
  ActorRef a = f.spawn(MailboxOptions::bounded(3, OverflowPolicy::DropNewest));
  for (int i = 0; i < 5; ++i) a.tell(i);
  f.system->runUntilIdle();
  EXPECT_EQ(f.seen, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(f.dead, (std::vector<int>{3, 4}));
  EXPECT_EQ(f.system->deadLetterCount(), 2u);
}

TEST(Mailbox, BoundedDropOldestEvictsTheOldestAsADeadLetter) {
  // SPEC A4
  Fixture f;
  ActorRef a = f.spawn(MailboxOptions::bounded(3, OverflowPolicy::DropOldest));
  for (int i = 0; i < 5; ++i) a.tell(i);
  f.system->runUntilIdle();
  EXPECT_EQ(f.seen, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(f.dead, (std::vector<int>{0, 1}));
}

TEST(Mailbox, BoundedFailThrowsErrMailboxFullToTheSender) {
  // SPEC A4: on the receiver's isolate the sender hears it at once.
  Fixture f;
  ActorRef a = f.spawn(MailboxOptions::bounded(2, OverflowPolicy::Fail));
  a.tell(0);
  a.tell(1);
  EXPECT_EQ(errorOf([&] { a.tell(2); }), Error::ErrMailboxFull);
  f.system->runUntilIdle();
  EXPECT_EQ(f.seen, (std::vector<int>{0, 1}));
  EXPECT_EQ(f.dead, (std::vector<int>{2})) << "and it is still a dead letter";
}

TEST(Mailbox, PriorityIsStableWithinAPriority) {
  // SPEC A4
  Fixture f;
  ActorRef a = f.spawn(MailboxOptions::priority([](const Message& m) {
    return *m.get<int>() % 10 == 0 ? 0 : 1;  // multiples of ten first
  }));
  for (int i = 1; i <= 30; ++i) a.tell(i);
  f.system->runUntilIdle();
  std::vector<int> expected{10, 20, 30};
  for (int i = 1; i <= 30; ++i) {
    if (i % 10 != 0) expected.push_back(i);
  }
  EXPECT_EQ(f.seen, expected);
}

TEST(Mailbox, RefusesACapacityOfZero) {
  // Bad input
  EXPECT_EQ(errorOf([] { MailboxOptions::bounded(0); }), Error::ErrInvalidCapacity);
}

TEST(Mailbox, HoldsMoveOnlyAndLargeMessages) {
  // Messages: move-only allowed; large ones go to the heap, small ones do not.
  Fixture f;
  std::vector<int> got;
  struct Big {
    char bytes[200];
    int n;
  };
  ActorRef a = f.system->spawn("moves", [&](ReceiveContext& ctx) {
    if (auto* p = ctx.get<std::unique_ptr<int>>()) got.push_back(**p);
    if (auto* b = ctx.get<Big>()) got.push_back(b->n);
  });
  a.tell(std::make_unique<int>(7));
  a.tell(Big{{}, 8});
  f.system->runUntilIdle();
  EXPECT_EQ(got, (std::vector<int>{7, 8}));
  static_assert(Message::storedInline<std::unique_ptr<int>>);
  static_assert(!Message::storedInline<Big>);
}

}  // namespace
}  // namespace coreactor
