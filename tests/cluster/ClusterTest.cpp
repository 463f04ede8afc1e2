// Actor systems over MPI ranks (coreactor/Cluster.hpp): ctest runs this
// program under `mpirun -np 2` and `-np 3`. Every rank runs the same tests
// in the same order; creating and shutting down a system are collective, so
// each test makes its own system on every rank and shuts it down. A rank
// that fails an assertion leaves the others waiting in a collective: the
// run then ends by ctest's timeout, with the failure printed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cereal/types/string.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Cluster.hpp"
#include "coreactor/Remote.hpp"

namespace coreactor {
namespace {

std::shared_ptr<Cluster> gCluster;
/// Whether the ranks share memory (the default) or were told to talk MPI
/// messages only (the program's --mpi-messages: ctest runs both).
bool gSharedMemory = true;

MpiOptions testMpiOptions() {
  return MpiOptions::create().withSharedMemory(gSharedMemory);
}

struct Count {
  std::int32_t from;
  std::int32_t seq;
};

struct Echo {
  std::int64_t n;
};

/// A question that names where the answer goes: a reference inside a message.
struct Forward {
  ActorRef to;
  std::int64_t n = 0;
  std::string note;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(to, n, note);
  }
};

struct NotRegistered {
  int n;
};

/// Larger than the link's chunk (64 KiB): one message spans several.
constexpr std::size_t kBigBytes = 300'000;

struct Big {
  std::string bytes;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(bytes);
  }
};

/// Counts Count messages per sender rank and checks their order.
struct Tally {
  std::vector<std::atomic<std::int64_t>> next;
  std::atomic<std::int64_t> outOfOrder{0};
  std::atomic<std::int64_t> total{0};
  std::atomic<std::int64_t> forwarded{0};
  std::atomic<std::int64_t> echoes{0};
  std::atomic<std::int64_t> bigs{0};  // Big messages whose every byte arrived
  explicit Tally(int ranks) : next(static_cast<std::size_t>(ranks)) {}
};

class Sink final : public Actor {
 public:
  explicit Sink(Tally* tally) : tally_(tally) {}
  void receive(ReceiveContext& ctx) override {
    if (const Count* c = ctx.get<Count>()) {
      auto& next = tally_->next[static_cast<std::size_t>(c->from)];
      if (next.load() != c->seq) ++tally_->outOfOrder;
      next.store(c->seq + 1);
      ++tally_->total;
    } else if (const Forward* f = ctx.get<Forward>()) {
      if (f->note == "hop") ++tally_->forwarded;
    } else if (ctx.is<Echo>()) {
      ++tally_->echoes;
    } else if (const Big* big = ctx.get<Big>()) {
      const bool whole =
          big->bytes.size() == kBigBytes && big->bytes.find_first_not_of('y') == std::string::npos;
      if (whole) ++tally_->bigs;
    }
  }

 private:
  Tally* tally_;
};

/// Answers Echo with Echo(n + 1); tells a Forward's `to` an Echo(n).
class Echoer final : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (const Echo* e = ctx.get<Echo>()) {
      ctx.reply(Echo{e->n + 1});
    } else if (const Forward* f = ctx.get<Forward>()) {
      f->to.tell(Forward{ActorRef(), f->n, "hop"});
    }
  }
};

/// On Echo{count}, asks the echoer of the next rank `count` times, one at a
/// time, and counts the right answers.
class Asker final : public Actor {
 public:
  Asker(ActorRef target, std::atomic<std::int64_t>* answered)
      : target_(target), answered_(answered) {}
  void receive(ReceiveContext& ctx) override {
    if (const Echo* go = ctx.get<Echo>()) {
      left_ = go->n;
      next(ctx);
    }
  }

 private:
  void next(ReceiveContext& ctx) {
    if (left_-- <= 0) return;
    const std::int64_t n = left_;
    ctx.ask<Echo>(target_, Echo{n}, std::chrono::seconds(30),
                  [this, n](ReceiveContext& again, AskResult<Echo>& result) {
                    if (result.ok() && result.value().n == n + 1) {
                      ++*answered_;
                    } else {
                      std::fprintf(
                          stderr, "ask %lld: %s\n", static_cast<long long>(n),
                          result.ok() ? "a wrong answer" : result.error().message().c_str());
                    }
                    next(again);
                  });
  }
  ActorRef target_;
  std::atomic<std::int64_t>* answered_;
  std::int64_t left_ = 0;
};

/// Watches the actor it is told of (answering an ask once the watch has
/// gone out); counts the Terminated of that actor.
class Watcher final : public Actor {
 public:
  explicit Watcher(std::atomic<int>* heard) : heard_(heard) {}
  void receive(ReceiveContext& ctx) override {
    if (const ActorRef* ref = ctx.get<ActorRef>()) {
      watched_ = *ref;
      ctx.watch(watched_);
      if (ctx.sender()) ctx.reply(Echo{0});
    } else if (const Terminated* t = ctx.get<Terminated>()) {
      if (t->actor == watched_) ++*heard_;
    }
  }

 private:
  std::atomic<int>* heard_;
  ActorRef watched_;
};

/// On a reference, tells it Echo{1}, then stays in the same turn until
/// `released` is up (or a minute has passed): a long turn.
class Spinner final : public Actor {
 public:
  Spinner(const std::atomic<bool>* released, std::atomic<int>* sawRelease,
          std::atomic<bool>* turnEnded)
      : released_(released), sawRelease_(sawRelease), turnEnded_(turnEnded) {}
  void receive(ReceiveContext& ctx) override {
    const ActorRef* to = ctx.get<ActorRef>();
    if (to == nullptr) return;
    to->tell(Echo{1});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!released_->load() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();  // the rank's other threads share its CPU
    }
    if (released_->load()) ++*sawRelease_;
    turnEnded_->store(true);
  }

 private:
  const std::atomic<bool>* released_;
  std::atomic<int>* sawRelease_;
  std::atomic<bool>* turnEnded_;
};

/// Never answers: an ask to it waits for its timeout, or for its rank to
/// leave. Counts what it got.
class Silent final : public Actor {
 public:
  explicit Silent(std::atomic<int>* got) : got_(got) {}
  void receive(ReceiveContext&) override { ++*got_; }

 private:
  std::atomic<int>* got_;
};

/// On a reference, asks it from inside its handler with ActorSystem::ask
/// (the callback form) a message that cannot cross, and keeps the error
/// the call threw.
class OutsideAskerInATurn final : public Actor {
 public:
  OutsideAskerInATurn(ActorSystem* system, std::atomic<int>* completions, std::atomic<int>* threw)
      : system_(system), completions_(completions), threw_(threw) {}
  void receive(ReceiveContext& ctx) override {
    const ActorRef* to = ctx.get<ActorRef>();
    if (to == nullptr) return;
    const std::error_code error = test::errorOf([&] {
      system_->ask(*to, Message(NotRegistered{3}), std::chrono::seconds(120),
                   [completions = completions_](Message*, std::error_code) { ++*completions; });
    });
    if (error == Error::ErrNotSerializable) ++*threw_;
    if (ctx.sender()) ctx.reply(Echo{0});
  }

 private:
  ActorSystem* system_;
  std::atomic<int>* completions_;
  std::atomic<int>* threw_;
};

/// On a reference, ctx.asks that actor a message that cannot cross, with a
/// 1 ms timeout, counting the throw and any callback; then answers.
class ContextAskerOfTheUncrossable final : public Actor {
 public:
  ContextAskerOfTheUncrossable(std::atomic<int>* callbacks, std::atomic<int>* threw)
      : callbacks_(callbacks), threw_(threw) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Echo>()) {  // a turn after the others
      ctx.reply(Echo{0});
      return;
    }
    const ActorRef* to = ctx.get<ActorRef>();
    if (to == nullptr) return;
    const std::error_code error = test::errorOf([&] {
      ctx.ask<Echo>(*to, NotRegistered{4}, std::chrono::milliseconds(1),
                    [callbacks = callbacks_](ReceiveContext&, AskResult<Echo>&) { ++*callbacks; });
    });
    if (error == Error::ErrNotSerializable) ++*threw_;
    if (ctx.sender()) ctx.reply(Echo{0});
  }

 private:
  std::atomic<int>* callbacks_;
  std::atomic<int>* threw_;
};

/// On a reference, stops that actor with ctx.stop (any actor, not only a
/// child), then answers an ask.
class Stopper final : public Actor {
 public:
  void receive(ReceiveContext& ctx) override {
    if (const ActorRef* ref = ctx.get<ActorRef>()) {
      ctx.stop(*ref);
      if (ctx.sender()) ctx.reply(Echo{0});
    }
  }
};

std::unique_ptr<ActorSystem> clusterSystem(std::size_t isolates = 2,
                                           const std::shared_ptr<Cluster>& cluster = gCluster) {
  return ActorSystem::create("cluster-test", ActorSystemOptions::create()
                                                 .withIsolates(isolates)
                                                 .withCluster(cluster, 1 << 20)
                                                 .withLogLevel(LogLevel::Warn));
}

/// The top-level actor `name` of `rank`, once that rank has spawned it.
ActorRef find(ActorSystem& system, int rank, const std::string& name) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    const ActorRef ref = system.lookup(rank, name).get();
    if (ref) return ref;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return ActorRef();
}

/// test::eventually with the generous deadline of these tests.
template <class Done>
bool waitFor(Done&& done) {
  return test::eventually(std::forward<Done>(done), std::chrono::seconds(120));
}

/// Every rank's main thread meets here: a rank shuts its system down only
/// once the others no longer need its actors (MPI_THREAD_MULTIPLE: the
/// link's thread calls MPI meanwhile).
void allRanksDone() {
  MPI_Barrier(MPI_COMM_WORLD);
}

/// The sum over all ranks (after the system is gone: only this thread calls MPI).
std::uint64_t sumOverRanks(std::uint64_t value) {
  std::uint64_t sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

/// Every rank tells every other's sink kMessages Count messages, with a Big
/// one (several chunks, many rings' worth when rings are small) every
/// 5,000; checks order, wholeness and the counts over all ranks. Returns
/// this rank's stats.
ClusterStats everyRankTellsEveryOther(const std::shared_ptr<Cluster>& cluster) {
  constexpr int kMessages = 20'000;
  const int ranks = cluster->size();
  const int me = cluster->rank();
  Tally tally(ranks);
  ClusterStats stats;
  {
    auto system = clusterSystem(2, cluster);
    EXPECT_EQ(system->rank(), me);
    system->spawn<Sink>("sink", ActorOptions::create(), &tally);
    for (int peer = 0; peer < ranks; ++peer) {
      if (peer == me) continue;
      const ActorRef sink = find(*system, peer, "sink");
      EXPECT_TRUE(sink) << "rank " << peer << "'s sink";
      if (!sink) return stats;
      EXPECT_EQ(system->rankOf(sink), peer);
      for (int seq = 0; seq < kMessages; ++seq) {
        sink.tell(Count{me, seq});
        // Now and then a message longer than a chunk, among the small ones.
        if (seq % 5'000 == 0) sink.tell(Big{std::string(kBigBytes, 'y')});
      }
    }
    const std::int64_t expected = static_cast<std::int64_t>(ranks - 1) * kMessages;
    EXPECT_TRUE(waitFor([&] { return tally.total.load() == expected; }))
        << tally.total.load() << " of " << expected;
    const std::int64_t bigs = static_cast<std::int64_t>(ranks - 1) * (kMessages / 5'000);
    EXPECT_TRUE(waitFor([&] { return tally.bigs.load() == bigs; }))
        << tally.bigs.load() << " of " << bigs;
    allRanksDone();
    system->shutdown();
    stats = system->clusterStats();
  }
  EXPECT_EQ(tally.outOfOrder.load(), 0);
  for (int peer = 0; peer < ranks; ++peer) {
    EXPECT_EQ(tally.next[static_cast<std::size_t>(peer)].load(), peer == me ? 0 : kMessages);
  }
  // Lookups count too: each is a message there and one back.
  EXPECT_EQ(stats.received, stats.delivered + stats.undecodable);
  EXPECT_EQ(stats.undecodable, 0u);
  EXPECT_EQ(stats.refusedAtSend, 0u);
  EXPECT_GE(stats.sent, static_cast<std::uint64_t>(ranks - 1) * kMessages);
  EXPECT_EQ(sumOverRanks(stats.sent), sumOverRanks(stats.received));
  return stats;
}

TEST(Cluster, EveryRankTellsEveryOtherAndEachMessageArrivesOnceInOrder) {
  const ClusterStats stats = everyRankTellsEveryOther(gCluster);
  // This program's ranks all run on one machine: unless told otherwise,
  // each reaches every other through shared memory.
  EXPECT_EQ(stats.sharedMemoryRanks,
            gSharedMemory ? static_cast<std::uint64_t>(gCluster->size() - 1) : 0u);
  EXPECT_GT(stats.batchesSent, 0u);
}

TEST(Cluster, RingsSmallerThanTheMessagesStillCarryEveryByteInOrder) {
  // The smallest rings: each 300 KB message, and a flood of small ones,
  // pass a ring of 4 KiB in pieces, the sender holding back what finds no
  // room until the receiver has taken what came before.
  auto small = Cluster::mpi(nullptr, nullptr,
                            testMpiOptions().withSharedRingBytes(MpiOptions::kMinSharedRingBytes));
  const ClusterStats stats = everyRankTellsEveryOther(small);
  EXPECT_EQ(stats.sharedMemoryRanks,
            gSharedMemory ? static_cast<std::uint64_t>(small->size() - 1) : 0u);
  if (gSharedMemory) {
    // Many ring writes: at least one per 4 KiB of what each rank sent.
    EXPECT_GE(stats.batchesSent, stats.bytesSent / MpiOptions::kMinSharedRingBytes);
  }
}

TEST(Cluster, AnActorAsksAnActorOfTheNextRankAndTheMainThreadAsksOneToo) {
  constexpr int kAsks = 500;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  const int nextRank = (me + 1) % ranks;
  std::atomic<std::int64_t> answered{0};
  {
    auto system = clusterSystem();
    system->spawn<Echoer>("echo");
    const ActorRef echo = find(*system, nextRank, "echo");
    ASSERT_TRUE(echo);
    // From outside: the reply comes back over the link to this rank.
    EXPECT_EQ(system->ask<Echo>(echo, Echo{41}, std::chrono::seconds(30)).get().n, 42);
    const ActorRef asker =
        system->spawn<Asker>("asker", ActorOptions::create().withIsolate(1), echo, &answered);
    asker.tell(Echo{kAsks});
    ASSERT_TRUE(waitFor([&] { return answered.load() == kAsks; })) << answered.load();
    allRanksDone();
    system->shutdown();
  }
  EXPECT_EQ(answered.load(), kAsks);
}

TEST(Cluster, AMessageToldInALongTurnLeavesBeforeTheTurnEnds) {
  // Each rank's spinner tells the next rank's sink, then stays in its turn
  // until that sink's rank says (over MPI, main thread to main thread) that
  // the message came. The loop that sent it polls nothing meanwhile, and
  // the sink's loop sleeps once idle: the link's thread sends it.
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  const int nextRank = (me + 1) % ranks;
  const int previousRank = (me + ranks - 1) % ranks;
  Tally tally(ranks);
  std::atomic<bool> released{false};
  std::atomic<int> sawRelease{0};
  std::atomic<bool> turnEnded{false};
  {
    auto system = clusterSystem();
    system->spawn<Sink>("sink", ActorOptions::create().withIsolate(1), &tally);
    const ActorRef sink = find(*system, nextRank, "sink");
    ASSERT_TRUE(sink);
    allRanksDone();  // every sink found
    const ActorRef spinner = system->spawn<Spinner>(
        "spinner", ActorOptions::create().withIsolate(0), &released, &sawRelease, &turnEnded);
    spinner.tell(sink);
    // The previous rank's message came: say so (EXPECT, so that the
    // exchange below still happens).
    EXPECT_TRUE(waitFor([&] { return tally.echoes.load() == 1; })) << tally.echoes.load();
    int word = 1;
    MPI_Send(&word, 1, MPI_INT, previousRank, 77, MPI_COMM_WORLD);
    // Ours came to the next rank: end the spinner's turn.
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Irecv(&word, 1, MPI_INT, nextRank, 77, MPI_COMM_WORLD, &request);
    for (int done = 0; done == 0;) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    released.store(true);
    EXPECT_TRUE(waitFor([&] { return turnEnded.load(); }));
    allRanksDone();
    system->shutdown();
  }
  EXPECT_EQ(sawRelease.load(), 1) << "the turn ended by its deadline: the message waited for it";
}

TEST(Cluster, AReferenceSentInsideAMessageNamesTheSameActorOnTheOtherRank) {
  // Rank r asks the echoer of rank r+1 to tell the sink of rank r+2 (for
  // two ranks: back to r): a reference minted on one rank, carried by a
  // second, used by it to reach a third.
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  Tally tally(ranks);
  {
    auto system = clusterSystem();
    system->spawn<Sink>("sink", ActorOptions::create(), &tally);
    system->spawn<Echoer>("echo");
    const ActorRef echo = find(*system, (me + 1) % ranks, "echo");
    const ActorRef sink = find(*system, (me + 2) % ranks, "sink");
    ASSERT_TRUE(echo);
    ASSERT_TRUE(sink);
    for (int i = 0; i < 100; ++i) echo.tell(Forward{sink, i, "forward"});
    ASSERT_TRUE(waitFor([&] { return tally.forwarded.load() == 100; })) << tally.forwarded.load();
    allRanksDone();
    system->shutdown();
  }
}

TEST(Cluster, AWatcherHearsTerminatedWhenAnotherRankStopsTheActorItWatchesAndAsksFailAtOnce) {
  // Rank r watches the victim of rank r+1 and stops it with ActorSystem::stop;
  // whichever of the watch and the stop arrives first, Terminated comes back.
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  std::atomic<int> heard{0};
  {
    auto system = clusterSystem();
    system->spawn<Echoer>("victim");
    const ActorRef watcher = system->spawn<Watcher>("watcher", ActorOptions::create(), &heard);
    const ActorRef victim = find(*system, (me + 1) % ranks, "victim");
    ASSERT_TRUE(victim);
    watcher.tell(victim);
    system->stop(victim);
    ASSERT_TRUE(waitFor([&] { return heard.load() == 1; })) << heard.load();
    // An ask to it now fails at once, as to a local actor that has stopped:
    // its rank sends the failure back.
    EXPECT_EQ(
        test::errorOf([&] { system->ask<Echo>(victim, Echo{1}, std::chrono::seconds(120)).get(); }),
        Error::ErrDead);
    // This rank's own victim was stopped by the rank before it.
    ASSERT_TRUE(waitFor([&] { return !system->lookup(me, "victim").get(); }));
    allRanksDone();
    system->shutdown();
  }
  EXPECT_EQ(heard.load(), 1);
}

TEST(Cluster, ScheduledTicksReachAnActorOfAnotherRankUntilCancelled) {
  using namespace std::chrono_literals;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  Tally tally(ranks);
  {
    auto system = clusterSystem();
    system->spawn<Sink>("sink", ActorOptions::create(), &tally);
    const ActorRef sink = find(*system, (me + 1) % ranks, "sink");
    ASSERT_TRUE(sink);
    // Bad calls first: nothing is scheduled by them.
    EXPECT_EQ(system->schedule(NotRegistered{1}, sink, 1ms).wait(), Error::ErrNotSerializable);
    EXPECT_EQ(
        system->schedule(Echo{0}, sink, 1ms, ScheduleOptions::create().withStrictCancel()).wait(),
        Error::ErrInvalidOption);
    EXPECT_EQ(system->scheduleCount(), 0u);
    // One tick, then a tick every 2 ms: the rank before this one does the same here.
    EXPECT_FALSE(system->scheduleOnce(Echo{1}, sink, 1ms).wait());
    const ScheduleResult every = system->schedule(Echo{2}, sink, 2ms);
    ASSERT_FALSE(every.wait());
    ASSERT_TRUE(waitFor([&] { return tally.echoes.load() >= 6; }))
        << tally.echoes.load() << " ticks; sent " << system->clusterStats().sent << ", received "
        << system->clusterStats().received << ", ticks " << system->tickCount() << ", schedules "
        << system->scheduleCount();
    allRanksDone();  // each rank's ticks keep coming until every rank has its six
    EXPECT_FALSE(system->cancelSchedule(every.handle()).wait());
    EXPECT_EQ(system->scheduleCount(), 0u);
    allRanksDone();
    system->shutdown();
  }
}

TEST(Cluster, BadInputIsANamedErrorAtTheSendAndNothingIsLostSilently) {
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  ClusterStats stats;
  {
    auto system = clusterSystem();
    system->spawn<Echoer>("echo");
    const ActorRef echo = find(*system, (me + 1) % ranks, "echo");
    ASSERT_TRUE(echo);
    // A type never registered: refused at the send, not at the receiver.
    EXPECT_EQ(test::errorOf([&] { echo.tell(NotRegistered{1}); }), Error::ErrNotSerializable);
    // Larger than the system's limit (1 MiB here).
    EXPECT_EQ(test::errorOf([&] { echo.tell(Big{std::string(2 << 20, 'x')}); }),
              Error::ErrMessageTooLarge);
    // A reference of another system inside a message.
    auto other = ActorSystem::create("other", ActorSystemOptions::create().withIsolates(1));
    const ActorRef stranger = other->spawn<Echoer>("stranger");
    EXPECT_EQ(test::errorOf([&] {
                echo.tell(Forward{stranger, 1, "x"});
              }),
              Error::ErrNotSerializable);
    other->shutdown();
    // A router's reference inside a message (docs/routers.md).
    const ActorRef pool = system->spawnPool<Echoer>("pool", RouterOptions::roundRobin());
    EXPECT_EQ(test::errorOf([&] { echo.tell(Forward{pool, 1, "x"}); }), Error::ErrNotSerializable);
    // A rank the cluster does not have; a name no rank has.
    EXPECT_EQ(test::errorOf([&] { system->lookup(ranks, "echo"); }), Error::ErrInvalidOption);
    EXPECT_FALSE(system->lookup((me + 1) % ranks, "nobody").get());
    allRanksDone();
    system->shutdown();
    stats = system->clusterStats();
  }
  EXPECT_EQ(stats.refusedAtSend, 4u);
  EXPECT_EQ(stats.undecodable, 0u);
  EXPECT_EQ(sumOverRanks(stats.sent), sumOverRanks(stats.received));
}

TEST(Cluster, AnAskFromOutsideOfAMessageThatCannotCrossThrowsAtTheCallAndTakesNoReplySlot) {
  // SPEC A3
  // Issue 43, item 8: ActorSystem::ask, both forms, refuses on the calling
  // thread what cannot cross, as tell does; not a timeout later.
  using namespace std::chrono_literals;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  std::atomic<int> completions{0};
  ClusterStats stats;
  {
    auto system = clusterSystem();
    system->spawn<Echoer>("echo");
    const ActorRef echo = find(*system, (me + 1) % ranks, "echo");
    ASSERT_TRUE(echo);
    auto other = ActorSystem::create("other", ActorSystemOptions::create().withIsolates(1));
    const ActorRef stranger = other->spawn<Echoer>("stranger");
    EXPECT_EQ(test::errorOf([&] { system->ask<Echo>(echo, NotRegistered{1}, 120s); }),
              Error::ErrNotSerializable);
    EXPECT_EQ(test::errorOf([&] { system->ask<Echo>(echo, Big{std::string(2 << 20, 'x')}, 120s); }),
              Error::ErrMessageTooLarge);
    EXPECT_EQ(test::errorOf([&] {
                system->ask<Echo>(echo, Forward{stranger, 1, "x"}, 120s);
              }),
              Error::ErrNotSerializable);
    // The callback form: its completion never runs. A reply slot taken for
    // a request that never left would complete at its timeout, or with the
    // shutdown below.
    const auto completion = [&](Message*, std::error_code) { ++completions; };
    EXPECT_EQ(
        test::errorOf([&] { system->ask(echo, Message(NotRegistered{2}), 120s, completion); }),
        Error::ErrNotSerializable);
    EXPECT_EQ(test::errorOf([&] {
                system->ask(echo, Message(Big{std::string(2 << 20, 'x')}), 120s, completion);
              }),
              Error::ErrMessageTooLarge);
    other->shutdown();
    // From a handler, on the isolate that would hold the reply slot (0)
    // and on another one (1): thrown there too.
    std::atomic<int> threw{0};
    for (const std::size_t isolate : {std::size_t{0}, std::size_t{1}}) {
      const ActorRef asker = system->spawn<OutsideAskerInATurn>(
          "asker-" + std::to_string(isolate), ActorOptions::create().withIsolate(isolate),
          system.get(), &completions, &threw);
      system->ask<Echo>(asker, echo, 120s).get();
    }
    EXPECT_EQ(threw.load(), 2);
    // What can cross still does.
    EXPECT_EQ(system->ask<Echo>(echo, Echo{1}, 120s).get().n, 2);
    allRanksDone();
    system->shutdown();
    stats = system->clusterStats();
  }
  EXPECT_EQ(completions.load(), 0);
  EXPECT_EQ(stats.refusedAtSend, 7u);
  EXPECT_EQ(stats.undecodable, 0u);
  EXPECT_EQ(sumOverRanks(stats.sent), sumOverRanks(stats.received));
}

TEST(Cluster, ACtxAskOfAMessageThatCannotCrossThrowsInTheHandlerAndNeverCallsBack) {
  // SPEC A3: the reply slot of a ctx.ask whose request never left is freed
  // at once: no callback later (its timeout is 1 ms; the wait below is
  // far longer), nothing held.
  using namespace std::chrono_literals;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  std::atomic<int> callbacks{0};
  std::atomic<int> threw{0};
  {
    auto system = clusterSystem();
    system->spawn<Echoer>("echo");
    const ActorRef echo = find(*system, (me + 1) % ranks, "echo");
    ASSERT_TRUE(echo);
    const ActorRef asker = system->spawn<ContextAskerOfTheUncrossable>(
        "ctx-asker", ActorOptions::create(), &callbacks, &threw);
    system->ask<Echo>(asker, echo, 120s).get();
    EXPECT_EQ(threw.load(), 1);
    std::this_thread::sleep_for(200ms);             // a hundred of its timeouts
    system->ask<Echo>(asker, Echo{0}, 120s).get();  // a turn after them
    EXPECT_EQ(callbacks.load(), 0) << "a slot outlived the throw and timed out";
    allRanksDone();
    system->shutdown();
  }
  allRanksDone();
}

TEST(Cluster, AScheduleOfAMessageThatCannotCrossIsRefusedInItsResultAndSchedulesNothing) {
  // SPEC S12
  // Issue 43, item 10: refused at the call, not lost at every tick.
  using namespace std::chrono_literals;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  Tally tally(ranks);
  ClusterStats stats;
  {
    auto system = clusterSystem();
    system->spawn<Sink>("sink", ActorOptions::create(), &tally);
    const ActorRef sink = find(*system, (me + 1) % ranks, "sink");
    ASSERT_TRUE(sink);
    auto other = ActorSystem::create("other", ActorSystemOptions::create().withIsolates(1));
    const Forward foreign{other->spawn<Echoer>("stranger"), 1, "x"};
    const Big big{std::string(2 << 20, 'x')};  // over this system's limit, 1 MiB
    EXPECT_EQ(system->schedule(foreign, sink, 1ms).wait(), Error::ErrNotSerializable);
    EXPECT_EQ(system->scheduleOnce(foreign, sink, 1ms).wait(), Error::ErrNotSerializable);
    EXPECT_EQ(system->schedule(big, sink, 1ms).wait(), Error::ErrMessageTooLarge);
    EXPECT_EQ(system->scheduleOnce(big, sink, 1ms).wait(), Error::ErrMessageTooLarge);
    EXPECT_EQ(system->scheduleCron(big, sink, "* * * * *").wait(), Error::ErrMessageTooLarge);
    EXPECT_EQ(system->scheduleCount(), 0u);
    other->shutdown();
    allRanksDone();
    EXPECT_EQ(system->tickCount(), 0u);
    system->shutdown();
    stats = system->clusterStats();
  }
  EXPECT_EQ(stats.refusedAtSend, 5u);
  EXPECT_EQ(tally.bigs.load(), 0);
  EXPECT_EQ(tally.forwarded.load(), 0);
}

TEST(Cluster, APoisonPillCrossesWithoutRegistrationAndStopsTheActorAfterWhatCameBeforeIt) {
  // SPEC A2
  // Issue 43, item 12: the runtime's own messages cross unregistered (this
  // program registers no PoisonPill); the pill keeps its place in the
  // mailbox, as locally.
  using namespace std::chrono_literals;
  constexpr int kBefore = 100;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  Tally tally(ranks);
  std::atomic<int> heard{0};
  {
    auto system = clusterSystem();
    system->spawn<Sink>("sink", ActorOptions::create(), &tally);
    const ActorRef watcher = system->spawn<Watcher>("watcher", ActorOptions::create(), &heard);
    const ActorRef sink = find(*system, (me + 1) % ranks, "sink");
    ASSERT_TRUE(sink);
    system->ask<Echo>(watcher, sink, 120s).get();  // the watch has gone out
    for (int i = 0; i < kBefore; ++i) sink.tell(Echo{i});
    EXPECT_EQ(test::errorOf([&] { sink.tell(PoisonPill{}); }), std::error_code());
    ASSERT_TRUE(waitFor([&] { return heard.load() == 1; })) << heard.load();
    // This rank's sink, poisoned by the rank before: it handled every Echo
    // told before the pill, then stopped.
    ASSERT_TRUE(waitFor([&] { return !system->lookup(me, "sink").get(); }));
    EXPECT_EQ(tally.echoes.load(), kBefore);
    allRanksDone();
    system->shutdown();
  }
}

TEST(Cluster, AnActorStopsAnActorOfAnotherRankWithCtxStop) {
  // SPEC A2
  // Issue 43, item 12: ctx.stop(ref) stops any actor, as locally, not only
  // the actor's own children.
  using namespace std::chrono_literals;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  std::atomic<int> heard{0};
  {
    auto system = clusterSystem();
    system->spawn<Echoer>("victim");
    const ActorRef watcher = system->spawn<Watcher>("watcher", ActorOptions::create(), &heard);
    const ActorRef stopper =
        system->spawn<Stopper>("stopper", ActorOptions::create().withIsolate(1));
    const ActorRef victim = find(*system, (me + 1) % ranks, "victim");
    ASSERT_TRUE(victim);
    system->ask<Echo>(watcher, victim, 120s).get();  // watching it
    system->ask<Echo>(stopper, victim, 120s).get();  // stopped by an actor of this rank
    ASSERT_TRUE(waitFor([&] { return heard.load() == 1; })) << heard.load();
    ASSERT_TRUE(waitFor([&] { return !system->lookup(me, "victim").get(); }));
    allRanksDone();
    system->shutdown();
  }
  EXPECT_EQ(heard.load(), 1);
}

TEST(Cluster, ARankThatLeavesFailsTheAsksToItWithErrDeadAndItsWatchersHearTerminated) {
  // The last rank shuts its system down while the others go on: its
  // actors' watchers hear Terminated, an ask waiting on it fails with
  // ErrDead (not by its timeout), and from then on every ask, tell, watch
  // and lookup aimed at it ends at once, counted.
  using namespace std::chrono_literals;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  const int leaving = ranks - 1;
  std::atomic<int> heard{0};
  std::atomic<int> heardLate{0};
  std::atomic<int> silentGot{0};
  ClusterStats stats;
  // The ranks that stay meet once more before they shut down.
  MPI_Comm staying = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me == leaving ? MPI_UNDEFINED : 0, me, &staying);
  {
    auto system = clusterSystem();
    system->spawn<Echoer>("echo");
    system->spawn<Silent>("silent", ActorOptions::create(), &silentGot);
    if (me == leaving) {
      // Wait until every waiting ask has come (EXPECT, so that the
      // collective steps below still run).
      EXPECT_TRUE(waitFor([&] { return silentGot.load() == ranks - 1; })) << silentGot.load();
      allRanksDone();      // the others have their watches and their waiting ask
      system->shutdown();  // returns once the others have shut down too
    } else {
      const ActorRef echo = find(*system, leaving, "echo");
      const ActorRef silent = find(*system, leaving, "silent");
      ASSERT_TRUE(echo);
      ASSERT_TRUE(silent);
      const ActorRef watcher = system->spawn<Watcher>("watcher", ActorOptions::create(), &heard);
      system->ask<Echo>(watcher, echo, 120s).get();                  // the watch has gone out
      EXPECT_EQ(system->ask<Echo>(echo, Echo{1}, 120s).get().n, 2);  // and has arrived
      AskFuture<Echo> waiting = system->ask<Echo>(silent, Echo{0}, 120s);
      allRanksDone();
      EXPECT_EQ(test::errorOf([&] { waiting.get(); }), Error::ErrDead);
      ASSERT_TRUE(waitFor([&] { return heard.load() == 1; })) << heard.load();
      ASSERT_TRUE(waitFor([&] { return system->clusterStats().ranksLeft == 1; }));
      // After: each kind of call ends at once.
      EXPECT_EQ(test::errorOf([&] { system->ask<Echo>(echo, Echo{2}, 120s).get(); }),
                Error::ErrDead);
      EXPECT_EQ(test::errorOf([&] { system->lookup(leaving, "echo").get(); }), Error::ErrDead);
      const std::uint64_t deadBefore = system->deadLetterCount();
      echo.tell(Echo{3});
      EXPECT_EQ(system->deadLetterCount(), deadBefore + 1);
      const ActorRef lateWatcher =
          system->spawn<Watcher>("late-watcher", ActorOptions::create(), &heardLate);
      system->ask<Echo>(lateWatcher, echo, 120s).get();
      ASSERT_TRUE(waitFor([&] { return heardLate.load() == 1; })) << heardLate.load();
      // The ranks that stay still talk to each other.
      if (ranks > 2) {
        const int peer = me == 0 ? 1 : 0;
        EXPECT_EQ(system->ask<Echo>(find(*system, peer, "echo"), Echo{5}, 120s).get().n, 6);
      }
      stats = system->clusterStats();
      EXPECT_EQ(stats.toLeftRanks, 4u) << "the ask, the lookup, the tell and the watch";
      MPI_Barrier(staying);
      system->shutdown();
    }
  }
  if (staying != MPI_COMM_NULL) MPI_Comm_free(&staying);
  allRanksDone();
}

/// Logs, in order, the Count messages it is told (their seq) and the Echo
/// asks it gets (minus their n), answering each ask.
class OrderLog final : public Actor {
 public:
  explicit OrderLog(std::vector<std::int64_t>* log) : log_(log) {}
  void receive(ReceiveContext& ctx) override {
    if (const Count* c = ctx.get<Count>()) log_->push_back(c->seq);
    if (const Echo* e = ctx.get<Echo>()) {
      log_->push_back(-e->n);
      ctx.reply(Echo{e->n});
    }
  }

 private:
  std::vector<std::int64_t>* log_;
};

TEST(Cluster, APlainThreadsAskToAnotherRankKeepsItsPlaceAmongThatThreadsTells) {
  // SPEC A2, A3: an ask's request is a message of its sender: from the
  // main thread to an actor of the next rank, tells then an ask then a
  // tell, round after round, arrive as sent (none waited for in between).
  using namespace std::chrono_literals;
  constexpr std::int64_t kRounds = 200;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  std::vector<std::int64_t> log;
  {
    auto system = clusterSystem();
    system->spawn<OrderLog>("log", ActorOptions::create().withIsolate(1), &log);
    const ActorRef next = find(*system, (me + 1) % ranks, "log");
    ASSERT_TRUE(next);
    std::vector<AskFuture<Echo>> replies;
    for (std::int64_t round = 1; round <= kRounds; ++round) {
      next.tell(Count{me, static_cast<std::int32_t>(round)});
      replies.push_back(system->ask<Echo>(next, Echo{round}, 120s));
      next.tell(Count{me, static_cast<std::int32_t>(round)});
    }
    for (std::int64_t round = 1; round <= kRounds; ++round) {
      EXPECT_EQ(replies[static_cast<std::size_t>(round - 1)].get().n, round);
    }
    allRanksDone();  // every rank's asks answered: the logs are whole
    system->shutdown();
  }
  ASSERT_EQ(log.size(), static_cast<std::size_t>(3 * kRounds));
  for (std::int64_t round = 1; round <= kRounds; ++round) {
    const auto at = static_cast<std::size_t>(3 * (round - 1));
    EXPECT_EQ(log[at], round) << "the tell before the ask of round " << round;
    EXPECT_EQ(log[at + 1], -round) << "the ask of round " << round;
    EXPECT_EQ(log[at + 2], round) << "the tell after the ask of round " << round;
  }
  allRanksDone();
}

TEST(Cluster, ALongTurnOnIsolateZeroDelaysNeitherAPlainThreadsAskToAnotherRankNorItsTimeout) {
  // SPEC A3: the reply slot of a plain thread's ask to another rank lives on
  // no loop. An actor of isolate 0 holds its loop until the main thread
  // lets it go, which it does only once the remote ask has its reply and a
  // second one its timeout: were either waiting for isolate 0, the turn
  // would end by its own bound first, and the order below would say so.
  using namespace std::chrono_literals;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  std::atomic<int> silentGot{0};
  {
    auto system = clusterSystem();
    system->spawn<Echoer>("echo", ActorOptions::create().withIsolate(1));
    system->spawn<Silent>("silent", ActorOptions::create().withIsolate(1), &silentGot);
    const ActorRef echo = find(*system, (me + 1) % ranks, "echo");
    const ActorRef silent = find(*system, (me + 1) % ranks, "silent");
    ASSERT_TRUE(echo);
    ASSERT_TRUE(silent);
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> holding{false};
    std::atomic<bool> heldToItsBound{false};
    const ActorRef holder = system->spawn(
        "holder",
        [&, released](ReceiveContext&) {
          holding.store(true);
          if (released.wait_for(120s) != std::future_status::ready) heldToItsBound.store(true);
        },
        ActorOptions::create().withIsolate(0));
    holder.tell(1);
    ASSERT_TRUE(waitFor([&] { return holding.load(); }));
    AskFuture<Echo> answered = system->ask<Echo>(echo, Echo{7}, 120s);
    AskFuture<Echo> unanswered = system->ask<Echo>(silent, Echo{8}, 50ms);
    EXPECT_EQ(answered.get().n, 8);
    EXPECT_EQ(test::errorOf([&] { unanswered.get(); }), Error::ErrAskTimeout);
    EXPECT_FALSE(heldToItsBound.load()) << "the ask waited for isolate 0's turn to end";
    release.set_value();
    allRanksDone();
    system->shutdown();
  }
  allRanksDone();
}

TEST(Cluster, MessagesStillInFlightAtShutdownAreDeliveredOrDeadLetteredAndCounted) {
  // Every rank floods the next rank's sink and shuts down at once: what was
  // sent before each rank's shutdown arrives, to the sink or as a dead
  // letter there, and the totals over the ranks agree.
  constexpr int kMessages = 50'000;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  Tally tally(ranks);
  ClusterStats stats;
  std::uint64_t deadLetters = 0;
  {
    auto system = clusterSystem();
    system->spawn<Sink>("sink", ActorOptions::create(), &tally);
    const ActorRef sink = find(*system, (me + 1) % ranks, "sink");
    ASSERT_TRUE(sink);
    allRanksDone();  // every lookup answered: a rank that stops answers none
    for (int seq = 0; seq < kMessages; ++seq) sink.tell(Count{me, seq});
    system->shutdown();
    stats = system->clusterStats();
    deadLetters = system->deadLetterCount();
  }
  EXPECT_EQ(stats.received, stats.delivered);
  const std::uint64_t handled = static_cast<std::uint64_t>(tally.total.load());
  // Lookups (and their answers) cross too; Count messages are the rest.
  EXPECT_EQ(sumOverRanks(stats.sent), sumOverRanks(stats.received));
  EXPECT_EQ(sumOverRanks(handled + deadLetters), static_cast<std::uint64_t>(ranks) * kMessages);
  EXPECT_EQ(tally.outOfOrder.load(), 0);
}

/// What a sender rank says once it has streamed all it meant to: how many
/// Count messages it sent.
struct Done {
  std::int32_t from;
  std::int64_t sent;
};

/// An answer of the moving sink to one sender: how many of that sender's
/// Count messages it has handled, and how many moves its rank had completed
/// since it handled its first one.
struct Progress {
  std::int64_t count;
  std::int64_t moves;
};

/// What the moving sink saw, per sender rank and in all.
struct StreamTally {
  std::vector<std::atomic<std::int64_t>> next;  // the seq each sender's next Count should carry
  std::vector<std::atomic<std::int64_t>> sent;  // what each sender's Done said (-1 until then)
  std::atomic<std::int64_t> outOfOrder{0};
  std::atomic<std::int64_t> total{0};
  std::atomic<std::int64_t> done{0};
  std::atomic<std::int64_t> movesAtFirst{-1};  // the moves done when the first Count came
  std::atomic<std::int64_t> movesAtLast{0};    // the moves done when the last Count came
  explicit StreamTally(int ranks)
      : next(static_cast<std::size_t>(ranks)), sent(static_cast<std::size_t>(ranks)) {
    for (auto& s : sent) s.store(-1);
  }
};

/// Counts each sender's Count messages, checking they come in the order
/// sent, while a thread of its rank moves it between the rank's isolates
/// (`moved`: the moves completed so far). Answers a Count that is an ask,
/// and a Done, with the sender's Progress.
class MovingSink final : public Actor {
 public:
  MovingSink(StreamTally* tally, const std::atomic<std::int64_t>* moved)
      : tally_(tally), moved_(moved) {}
  void receive(ReceiveContext& ctx) override {
    if (const Count* c = ctx.get<Count>()) {
      auto& next = tally_->next[static_cast<std::size_t>(c->from)];
      if (next.load() != c->seq) ++tally_->outOfOrder;
      next.store(c->seq + 1);
      const std::int64_t moves = moved_->load();
      if (tally_->total.fetch_add(1) == 0) tally_->movesAtFirst.store(moves);
      tally_->movesAtLast.store(moves);
      if (ctx.sender()) ctx.reply(progressOf(c->from));
    } else if (const Done* d = ctx.get<Done>()) {
      tally_->sent[static_cast<std::size_t>(d->from)].store(d->sent);
      ++tally_->done;
      ctx.reply(progressOf(d->from));
    }
  }

 private:
  Progress progressOf(std::int32_t from) const {
    const std::int64_t first = tally_->movesAtFirst.load();
    return Progress{tally_->next[static_cast<std::size_t>(from)].load(),
                    first < 0 ? 0 : moved_->load() - first};
  }
  StreamTally* tally_;
  const std::atomic<std::int64_t>* moved_;
};

TEST(Cluster, AnActorMovingBetweenItsRanksIsolatesGetsEveryTellAndAskOfAnotherRankOnceInOrder) {
  // SPEC X4: rank 0's sink moves between rank 0's isolates, one move every
  // few milliseconds from a thread, while every other rank streams it
  // numbered tells with an ask every kAskEvery-th message: each sender's
  // messages are handled once each and in the order sent, each ask answers
  // with that sender's count so far, and the reference of another rank's
  // actor cannot be moved from here (ErrNotMovable). A sender streams at
  // least kMinRounds rounds, and on until the sink says kMinMoves moves were
  // completed after its first message: the moves happen amid the stream.
  using namespace std::chrono_literals;
  constexpr std::size_t kIsolates = 3;
  constexpr std::int32_t kAskEvery = 50;
  constexpr std::int64_t kMinRounds = 200;  // 10,000 messages at least
  constexpr std::int64_t kMinMoves = 12;
  constexpr std::size_t kAsksInFlight = 4;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  StreamTally tally(ranks);
  std::atomic<std::int64_t> moved{0};
  std::atomic<std::int64_t> moveErrors{0};
  std::atomic<int> completions{0};
  std::uint64_t transportMoves = 0;
  {
    auto system = clusterSystem(kIsolates);
    if (me == 0) {
      const ActorRef sink = system->spawn<MovingSink>(
          "moving-sink", ActorOptions::create().withIsolate(0), &tally, &moved);
      std::atomic<bool> stopMoving{false};
      std::thread mover([&] {
        // From the stream's first message on, isolate after isolate, until
        // every sender is done (and at least kMinMoves moves).
        waitFor([&] { return tally.total.load() > 0 || stopMoving.load(); });
        std::size_t to = 1;
        while (!stopMoving.load() || moved.load() < kMinMoves) {
          const std::error_code error = test::errorOf([&] { system->move(sink, to).get(); });
          if (error) {
            std::fprintf(stderr, "move to isolate %zu: %s\n", to, error.message().c_str());
            ++moveErrors;
            break;
          }
          ++moved;
          to = (to + 1) % kIsolates;
          std::this_thread::sleep_for(2ms);
        }
      });
      EXPECT_TRUE(waitFor([&] { return tally.done.load() == ranks - 1; }))
          << tally.done.load() << " of " << ranks - 1 << " senders done";
      stopMoving.store(true);
      mover.join();
      transportMoves = system->transportStats().moves;
      std::printf("moving sink: %lld messages, %lld moves (%lld amid the stream)\n",
                  static_cast<long long>(tally.total.load()), static_cast<long long>(moved.load()),
                  static_cast<long long>(tally.movesAtLast.load() - tally.movesAtFirst.load()));
    } else {
      const ActorRef sink = find(*system, 0, "moving-sink");
      EXPECT_TRUE(sink);
      if (sink) {
        EXPECT_EQ(system->rankOf(sink), 0);
        // Actors move between the isolates of their own process only.
        EXPECT_EQ(test::errorOf([&] { system->move(sink, 0); }), Error::ErrNotMovable);
        EXPECT_EQ(
            test::errorOf([&] { system->move(sink, 1, [&](std::error_code) { ++completions; }); }),
            Error::ErrNotMovable);
        // The stream: rounds of tells ending in an ask, a few asks in flight.
        std::vector<std::pair<std::int64_t, AskFuture<Progress>>> asks;  // (its seq, its reply)
        std::size_t answered = 0;
        std::int64_t lastCount = 0;
        std::int64_t lastMoves = 0;
        const auto takeReply = [&] {
          const std::int64_t seq = asks[answered].first;
          AskFuture<Progress>& reply = asks[answered].second;
          ++answered;
          const std::error_code error = test::errorOf([&] {
            const Progress progress = reply.get();
            EXPECT_GT(progress.count, lastCount) << "the ask of seq " << seq;
            EXPECT_EQ(progress.count, seq + 1) << "the ask of seq " << seq;
            EXPECT_GE(progress.moves, lastMoves) << "the ask of seq " << seq;
            lastCount = progress.count;
            lastMoves = progress.moves;
          });
          EXPECT_FALSE(error) << "the ask of seq " << seq << ": " << error.message();
        };
        const auto deadline = std::chrono::steady_clock::now() + 120s;
        std::int32_t seq = 0;
        for (std::int64_t round = 0;
             round < kMinRounds || lastMoves < kMinMoves || answered < asks.size(); ++round) {
          if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "after " << round << " rounds, " << lastMoves << " moves";
            break;
          }
          if (round >= kMinRounds && lastMoves >= kMinMoves) {
            takeReply();  // the stream is long enough: the last asks' replies
            continue;
          }
          for (std::int32_t i = 1; i < kAskEvery; ++i) sink.tell(Count{me, seq++});
          asks.emplace_back(seq, system->ask<Progress>(sink, Count{me, seq}, 120s));
          ++seq;
          if (asks.size() - answered > kAsksInFlight) takeReply();
          // Past kMinRounds, only the moves are missing: a little time for the mover.
          if (lastMoves < kMinMoves && round >= kMinRounds) std::this_thread::sleep_for(1ms);
        }
        EXPECT_EQ(answered, asks.size());
        const Progress last =
            system->ask<Progress>(sink, Done{me, static_cast<std::int64_t>(seq)}, 120s).get();
        EXPECT_EQ(last.count, seq) << "rank 0's sink handled " << last.count << " of " << seq;
        EXPECT_GE(last.moves, kMinMoves);
        std::printf("rank %d: %d messages, %zu asks answered, %lld moves amid them\n", me, seq,
                    answered, static_cast<long long>(last.moves));
      }
    }
    allRanksDone();
    system->shutdown();
  }
  EXPECT_EQ(completions.load(), 0) << "the completion of a move that threw ran";
  if (me != 0) return;
  EXPECT_EQ(moveErrors.load(), 0);
  EXPECT_GE(moved.load(), kMinMoves);
  EXPECT_GE(transportMoves, static_cast<std::uint64_t>(moved.load()));
  EXPECT_GE(tally.movesAtLast.load() - tally.movesAtFirst.load(), kMinMoves)
      << "the moves happened amid the stream";
  EXPECT_EQ(tally.outOfOrder.load(), 0);
  std::int64_t sent = 0;
  for (int peer = 1; peer < ranks; ++peer) {
    const auto at = static_cast<std::size_t>(peer);
    EXPECT_GE(tally.sent[at].load(), kMinRounds * kAskEvery) << "rank " << peer;
    EXPECT_EQ(tally.next[at].load(), tally.sent[at].load()) << "rank " << peer;
    sent += tally.sent[at].load();
  }
  EXPECT_EQ(tally.total.load(), sent);
}

TEST(Cluster, ReleasingTheClusterThatInitializedMpiFirstLeavesMpiToTheOneStillHeld) {
  // Issue 43, item 11: main's cluster initialized MPI; a second one made
  // after it holds MPI too, so releasing the first finalizes nothing. The
  // other order is RingsSmallerThanTheMessagesStillCarryEveryByteInOrder's.
  using namespace std::chrono_literals;
  const int ranks = gCluster->size();
  const int me = gCluster->rank();
  std::shared_ptr<Cluster> first =
      std::exchange(gCluster, Cluster::mpi(nullptr, nullptr, testMpiOptions()));
  first.reset();
  int finalized = 1;
  MPI_Finalized(&finalized);
  ASSERT_EQ(finalized, 0) << "releasing the first cluster finalized MPI under the second";
  {
    auto system = clusterSystem();  // on the second cluster, as every test after this one
    system->spawn<Echoer>("echo");
    const ActorRef echo = find(*system, (me + 1) % ranks, "echo");
    ASSERT_TRUE(echo);
    EXPECT_EQ(system->ask<Echo>(echo, Echo{1}, 120s).get().n, 2);
    allRanksDone();
    system->shutdown();
  }
}

}  // namespace
}  // namespace coreactor

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  coreactor::registerRemoteType<coreactor::Count>("cluster-test.Count");
  coreactor::registerRemoteType<coreactor::Echo>("cluster-test.Echo");
  coreactor::registerRemoteType<coreactor::Forward>("cluster-test.Forward");
  coreactor::registerRemoteType<coreactor::Big>("cluster-test.Big");
  coreactor::registerRemoteType<coreactor::Done>("cluster-test.Done");
  coreactor::registerRemoteType<coreactor::Progress>("cluster-test.Progress");
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--mpi-messages") coreactor::gSharedMemory = false;
  }
  coreactor::gCluster = coreactor::Cluster::mpi(&argc, &argv, coreactor::testMpiOptions());
  int threads = MPI_THREAD_SINGLE;
  MPI_Query_thread(&threads);
  if (threads != MPI_THREAD_MULTIPLE) {
    std::printf("this MPI gives no MPI_THREAD_MULTIPLE, which the test's barriers need\n");
    return 1;
  }
  const int failed = RUN_ALL_TESTS();
  int anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (coreactor::gCluster->rank() == 0) {
    std::printf("%d ranks: %s\n", coreactor::gCluster->size(),
                anyFailed == 0 ? "every rank passed" : "a rank failed");
  }
  coreactor::gCluster.reset();  // the last cluster: finalizes MPI
  return anyFailed;
}
