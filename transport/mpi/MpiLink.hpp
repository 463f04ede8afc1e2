// transport::MpiLink — a ProcessLink over MPI (Open MPI from Debian): the
// ranks of a communicator, one thread of the link's own making the MPI calls.
//
// The communicator is duplicated (MPI_Comm_dup, collective) so that the
// link's messages and collectives never meet the program's own. MPI must be
// initialized with at least MPI_THREAD_SERIALIZED: after start(), only the
// link's thread calls MPI; before it, allGather() calls it on the caller's
// thread.
//
// The link's thread, each round:
// - takes the units queued by send() (any thread: a vector under a lock,
//   swapped out whole) and appends each, length-prefixed, to its rank's
//   pending batch;
// - sends each rank's pending batch with MPI_Isend, with at most kInFlight
//   batches in flight per rank: while they are, the next batch grows, so a
//   flood leaves in large batches and a lone message at once;
// - completes finished sends (MPI_Testsome) and frees their buffers;
// - takes what arrived (MPI_Improbe + MPI_Mrecv, any size) and hands each
//   unit to the receiver, in order per sending rank.
// With nothing to do it polls for kSpinRounds rounds, then kYieldRounds
// more with a yield between (a few milliseconds), then sleeps between
// polls, 20 µs at first and doubling up to 4 ms (MPI gives no descriptor
// to sleep on); send() wakes it at once. An idle rank thus wakes 250 times
// a second, for a probe each, and the first message to a rank that has
// been idle for a while waits up to 4 ms to be seen.
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
  /// Batches in flight to one rank before the next waits.
  static constexpr std::size_t kInFlight = 8;
  /// Idle rounds of polling, then of polling with a yield between, before
  /// the thread starts to sleep.
  static constexpr int kSpinRounds = 2000;
  static constexpr int kYieldRounds = 20000;

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
  bool send(int rank, std::string&& bytes) override;
  void stop() override;
  ProcessLinkStats stats() const noexcept override;

 private:
  struct Outgoing;
  struct InFlight;
  struct Queue;

  void run();
  std::size_t moveQueued();
  bool sendBatches();
  bool completeSends();
  bool receiveArrived();
  void unpack(int from, const std::string& batch);
  void finish();
  void sleepIdle(int& idleRounds);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  ProcessReceiver* receiver_ = nullptr;
  std::unique_ptr<Queue> queue_;
  std::thread thread_;
  std::atomic<bool> sleeping_{false};
  std::mutex sleepMutex_;
  std::condition_variable wake_;

  // The link thread's own.
  std::vector<std::string> pending_;                 // by rank: the batch being filled
  std::vector<std::uint64_t> pendingUnits_;          // units in it
  std::vector<std::size_t> inFlightTo_;              // batches in flight, by rank
  std::vector<std::unique_ptr<InFlight>> inFlight_;  // their buffers and requests
  std::vector<std::uint64_t> sentTo_;                // units sent, by rank
  std::vector<std::uint64_t> receivedFrom_;          // units received, by rank
  std::string incoming_;
  std::vector<Outgoing> taken_;  // what moveQueued() took from the queue

  std::atomic<std::uint64_t> unitsSent_{0};
  std::atomic<std::uint64_t> unitsReceived_{0};
  std::atomic<std::uint64_t> bytesSent_{0};
  std::atomic<std::uint64_t> bytesReceived_{0};
  std::atomic<std::uint64_t> batchesSent_{0};
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace coreactor::transport
