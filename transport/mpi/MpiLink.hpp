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

#include "transport/ProcessLink.hpp"

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

  /// Collective over `comm`. Throws ErrInvalidOption if MPI is not
  /// initialized or gives less than MPI_THREAD_SERIALIZED.
  explicit MpiLink(MPI_Comm comm);
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
  bool sendBatches();
  bool completeSends();
  bool receiveArrived();
  // Hands each whole unit of rank `from`'s stream to the receiver, keeping
  // a unit cut short by the end of the chunk for the next one.
  void unpack(int from);
  // (Re)posts the receive ahead from `rank`.
  void postReceive(int rank);
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
  std::vector<Outgoing> taken_;       // what moveQueued() took from the queue

  std::atomic<std::uint64_t> unitsSent_{0};
  std::atomic<std::uint64_t> unitsReceived_{0};
  std::atomic<std::uint64_t> bytesSent_{0};
  std::atomic<std::uint64_t> bytesReceived_{0};
  std::atomic<std::uint64_t> batchesSent_{0};
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace coreactor::transport
