// Mailboxes: unbounded FIFO, bounded with each overflow policy, stable
// priority. SPEC A4, A7.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "../runtime/Mailbox.hpp"
#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"

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

TEST(Mailbox, TheInlineSlotAndTheRingKeepFifoUnderAnyInterleaving) {
  // SPEC A4: the unbounded mailbox keeps its oldest message in a slot of
  // its own while the ring is empty. Random runs of pushes and pops, with
  // empty messages mixed in (they always take the ring), against a deque.
  detail::Mailbox box(MailboxOptions::unbounded());
  std::deque<int> reference;  // -1: an empty message
  std::mt19937 random(17);
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    const int n = static_cast<int>(random() % 6);
    if (random() % 2 == 0) {
      for (int i = 0; i < n; ++i) {
        const bool empty = random() % 8 == 0;
        ASSERT_TRUE(
            box.tryPushUnbounded(detail::Envelope{empty ? Message() : Message(next), ActorRef()}));
        reference.push_back(empty ? -1 : next);
        ++next;
      }
    } else {
      for (int i = 0; i < n && !reference.empty(); ++i) {
        ASSERT_FALSE(box.empty());
        detail::Envelope e = box.pop();
        const int got = e.message.empty() ? -1 : *e.message.get<int>();
        ASSERT_EQ(got, reference.front()) << "step " << step;
        reference.pop_front();
      }
      if (reference.empty()) box.shrinkIfIdle();
    }
    ASSERT_EQ(box.size(), reference.size());
    ASSERT_EQ(box.empty(), reference.empty());
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
