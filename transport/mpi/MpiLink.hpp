// transport::MpiLink — a ProcessLink over MPI (Open MPI from Debian): the
// ranks of a communicator; the MPI calls made by the isolates' loops or by a
// thread of the link's own, whichever holds the link's lock.
//
// The communicator is duplicated (MPI_Comm_dup, collective) so that the
// link's messages and collectives never meet the program's own. MPI must be
// initialized with at least MPI_THREAD_SERIALIZED. With MPI_THREAD_MULTIPLE
// the isolates share the link's work (progress(), from their loops): the one
// that takes the link's lock sends what is queued and receives what came,
// so a busy or idle-polling isolate answers a rank without waiting for the
// link's thread to be scheduled and to wake it. One lock for all of it
// keeps each rank's units in order. With SERIALIZED, only the link's thread
// calls MPI after start(); before it, allGather() calls it on the caller's
// thread.
//
// One round of the link's work (round(), under the lock work_):
// - takes the units queued by send() (any thread: a vector under a lock,
//   swapped out whole) and appends each, length-prefixed, to its rank's
//   pending batch;
// - sends each rank's pending bytes with MPI_Isend, in chunks of at most
//   kChunk bytes, with at most kInFlight chunks in flight per rank: while
//   they are, the next batch grows, so a flood leaves in large chunks and a
//   lone message at once;
// - completes finished sends (MPI_Test) and frees their buffers;
// - takes what arrived and hands each unit to the receiver, in order per
//   sending rank. Receives are posted ahead: one MPI_Irecv of kChunk bytes
//   per rank, waiting from start() on, so that MPI can put a chunk straight
//   where it goes; a round looks at them all with one MPI_Testsome. What a
//   rank sends is one stream of length-prefixed units cut into chunks (a
//   unit larger than a chunk spans several), put back together here.
// While a loop that does the work is awake (loopWakes/loopSleeps) the thread
// naps: it looks after kNapWhileLoopsAwake, and if the loops did rounds
// since its last look and nothing waits in the queue, it naps twice as long
// (up to kLongestNap) without touching MPI; otherwise (a loop in a long
// turn) it does a round itself and naps the shortest again. Once every
// such loop sleeps, with nothing to do it polls with a
// yield between for kYieldRounds rounds (about a millisecond), then sleeps
// between polls, 20 µs at first and doubling every 16 sleeps up to 32 ms,
// reached after about half a second (MPI gives no descriptor to sleep on);
// send() wakes it at once. An idle rank thus wakes about 30 times a second,
// and the first message to a rank whose loops have all slept for a while
// waits up to 32 ms to be seen (less after a shorter idleness; at once when
// one of its isolates is awake, since that one polls too).
//
// Ranks on one machine (MpiOptions::withSharedMemory, on by default): at
// construction the ranks of each node of MPI_COMM_TYPE_SHARED allocate one
// window of shared memory (MPI_Win_allocate_shared), in which each rank
// owns the rings that come to it, one ByteRing per other rank of its node.
// A round writes a node peer's pending bytes into the ring to it, as much
// as there is room for (the rest waits for the next round), instead of
// MPI_Isend, and takes what the rings to it hold before it looks at MPI;
// what a rank sends to itself goes straight from its batch to its stream.
// With every other rank on its node, a rank posts no MPI receive and calls
// no MPI in a round at all, and a loop's look for work is a few loads
// (quiet()), not the link's lock and an MPI progress call. The stream and
// its framing are the same on both paths; only how the bytes travel
// differs.
//
// stop() (collective): send() refuses from then on; the thread flushes
// every batch, the ranks exchange how many units each sent to each
// (MPI_Ialltoall), each receives until it has them all, waits for its own
// sends to complete, and the thread ends.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coreactor/Cluster.hpp"
#include "transport/ProcessLink.hpp"
#include "transport/mpi/ByteRing.hpp"

namespace coreactor::transport {

class MpiLink final : public ProcessLink {
 public:
  /// Chunks in flight to one rank before the next waits.
  static constexpr std::size_t kInFlight = 8;
  /// The largest chunk, and the size of each receive posted ahead.
  static constexpr std::size_t kChunk = 64 * 1024;
  /// Idle rounds of polling with a yield between before the thread starts
  /// to sleep. No pure spinning: on a machine with no CPU to spare, a
  /// spinning link thread takes the one its isolate needs.
  static constexpr int kYieldRounds = 2000;
  /// While a loop is awake (loopWakes), the thread's first and shortest
  /// nap: the loop does the work, and on a rank bound to one CPU the
  /// thread would otherwise take turns with it.
  static constexpr std::chrono::microseconds kNapWhileLoopsAwake{200};
  /// The longest nap while the loops do the work: each look is a switch
  /// onto the CPU a loop polls on, which an exchange then waits behind.
  static constexpr std::chrono::microseconds kLongestNap{3200};
  /// A flood to a rank of this node goes into its ring in pieces of this
  /// many bytes (sendNow), and the rest with the round.
  static constexpr std::size_t kSharedPiece = 16 * 1024;

  /// Collective over `comm`. Throws ErrInvalidOption if MPI is not
  /// initialized or gives less than MPI_THREAD_SERIALIZED. If the node's
  /// ranks cannot allocate their shared window, they talk MPI instead.
  explicit MpiLink(MPI_Comm comm, const MpiOptions& options = MpiOptions::create());
  ~MpiLink() override;
  MpiLink(const MpiLink&) = delete;
  MpiLink& operator=(const MpiLink&) = delete;

  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  std::vector<std::uint64_t> allGather(std::uint64_t value) override;
  void start(ProcessReceiver& receiver) override;
  bool progress() override;
  bool send(int rank, std::string&& bytes) override;
  void loopWakes() noexcept override;
  void loopSleeps() noexcept override;
  void stop() override;
  ProcessLinkStats stats() const noexcept override;

 private:
  struct Outgoing;
  struct InFlight;
  struct Queue;

  void run();
  // One round of the link's work; the caller holds work_.
  bool round();
  // round() if no other thread holds work_; false if it did not run or
  // moved nothing.
  bool roundIfFree();
  std::size_t moveQueued();
  // send()'s way when no other thread holds the work lock: the unit goes
  // straight into its rank's batch, and to a rank of this node into the
  // ring at once. False: the caller queues it instead.
  bool sendNow(int rank, std::string& bytes);
  // Appends `bytes`, length-prefixed, to `rank`'s pending batch.
  void frame(std::size_t rank, const std::string& bytes);
  bool sendBatches();
  // The batch to rank `r` has wholly gone (over MPI or into its ring):
  // emptied, and its units counted as sent.
  void batchGone(std::size_t r);
  bool completeSends();
  bool receiveArrived();
  // Hands each whole unit of rank `from`'s stream to the receiver, keeping
  // a unit cut short by the end of the chunk for the next one.
  void unpack(int from);
  // Hands each whole unit at the front of `bytes` to the receiver; returns
  // the bytes they took.
  std::size_t deliver(int from, const char* bytes, std::size_t size);
  // (Re)posts the receive ahead from `rank`.
  void postReceive(int rank);
  // Sets up the rings to and from the other ranks of this one's node.
  void shareMemory(std::size_t ringBytes);
  // Writes what it can of rank r's pending bytes into the ring to it (or,
  // for this rank, into its own stream); true if it moved any.
  bool writeShared(std::size_t r);
  // Takes what the rings to this rank hold; true if there was any.
  bool readShared();
  // Nothing to do, as far as loads can tell: nothing queued or held back,
  // nothing in the rings to this rank. Meaningful only when every other
  // rank is on the node (mpiPeers_ == 0). Any thread.
  bool quiet() const noexcept;
  void finish();
  void sleepIdle(int& idleRounds);
  // Naps `nap` while the loops are awake, and sets the next nap.
  void napWhileLoopsAwake(std::chrono::microseconds& nap);
  // Sleeps up to `pause` (woken by send() or loopSleeps()), unless
  // stillIdle(), read under the sleep lock once the flag is up, is false.
  template <class StillIdle>
  void sleepFor(std::chrono::microseconds pause, StillIdle stillIdle);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  ProcessReceiver* receiver_ = nullptr;
  std::unique_ptr<Queue> queue_;
  std::thread thread_;
  std::atomic<bool> sleeping_{false};
  std::atomic<int> awakeLoops_{0};        // loops that call progress() and are awake
  std::atomic<std::uint64_t> rounds_{0};  // rounds done; written under work_
  bool shared_ = false;                   // MPI_THREAD_MULTIPLE: progress() may do the work
  std::atomic<bool> running_{false};
  // Held by whichever thread does the link's work (below): the link's
  // thread, or an isolate in progress().
  std::mutex work_;
  std::mutex sleepMutex_;
  std::condition_variable wake_;

  // Whoever holds work_.
  std::vector<std::string> pending_;                 // by rank: the bytes being gathered
  std::vector<std::size_t> pendingSent_;             // how many of them have gone out
  std::vector<std::uint64_t> pendingUnits_;          // units in them
  std::vector<std::size_t> inFlightTo_;              // batches in flight, by rank
  std::vector<std::unique_ptr<InFlight>> inFlight_;  // their buffers and requests
  std::vector<std::uint64_t> sentTo_;                // units sent, by rank
  std::vector<std::uint64_t> receivedFrom_;          // units received, by rank
  std::vector<std::string> posted_;          // by rank: the buffer of its receive posted ahead
  std::vector<MPI_Request> postedRequests_;  // and its request
  std::vector<int> completed_;               // MPI_Testsome's indices
  std::vector<MPI_Status> completedStatus_;
  std::vector<std::string> streams_;  // by rank: bytes received and not yet a whole unit
  // Shared memory: by rank, the ring to it and the ring from it (empty views
  // for ranks on other nodes and for this one).
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Win window_ = MPI_WIN_NULL;
  std::vector<ByteRing> ringTo_;
  std::vector<ByteRing> ringFrom_;
  std::vector<std::uint8_t> wroteAtOnce_;  // by rank: sendNow wrote since the last round
  std::vector<int> sharedPeers_;           // the ranks with rings, in order
  int mpiPeers_ = 0;                       // other ranks reached through MPI messages
  bool closed_ = false;  // under work_: the link has finished (stop); start() opens it
  std::atomic<bool> heldBack_{false};  // a pending batch waits for room (written under work_)
  std::vector<Outgoing> taken_;        // what moveQueued() took from the queue

  std::atomic<std::uint64_t> unitsSent_{0};
  std::atomic<std::uint64_t> unitsReceived_{0};
  std::atomic<std::uint64_t> bytesSent_{0};
  std::atomic<std::uint64_t> bytesReceived_{0};
  std::atomic<std::uint64_t> batchesSent_{0};
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace coreactor::transport
