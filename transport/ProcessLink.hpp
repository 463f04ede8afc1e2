// transport::ProcessLink — the seam between processes: what the runtime
// needs from a transport that moves bytes between the processes (ranks) of
// one program, and what it gives back (a ProcessReceiver). The MPI one is
// transport/mpi/MpiLink.hpp; a test can plug in another.
//
// The link moves opaque byte strings: each send() is one unit for one rank,
// delivered whole and in order (per ordered pair of ranks) to that rank's
// receiver, or accounted as lost by stop(). What the bytes hold (frames of
// actor messages, coreactor/Remote.hpp) is the runtime's business.
//
// Threads: allGather() runs on the thread that calls it, before start().
// send() may be called from any thread once started. receive() is called
// one unit at a time, in order, on the link's own thread or on a thread
// inside progress(), never from send(). stop() is collective (every rank
// calls it) and returns once every unit any rank sent before its stop() has
// been handed to its receiver.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace coreactor::transport {

/// What a process link hands what arrives to.
class ProcessReceiver {
 public:
  virtual ~ProcessReceiver() = default;
  /// One unit of bytes from `fromRank`, on the link's thread.
  virtual void receive(int fromRank, std::string_view bytes) = 0;
};

/// Counters of a process link (any thread; relaxed).
struct ProcessLinkStats {
  std::uint64_t unitsSent = 0;      ///< units handed to send() and accepted
  std::uint64_t unitsReceived = 0;  ///< units handed to the receiver
  std::uint64_t bytesSent = 0;
  std::uint64_t bytesReceived = 0;
  std::uint64_t batchesSent = 0;        ///< transport messages (one holds many units)
  std::uint64_t refused = 0;            ///< units send() refused: after stop(), or to no such rank
  std::uint64_t sharedMemoryRanks = 0;  ///< other ranks whose bytes go through shared memory
};

class ProcessLink {
 public:
  virtual ~ProcessLink() = default;
  /// This process's rank, from 0, and how many ranks there are.
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  /// Collective, before start(): every rank's `value`, indexed by rank.
  virtual std::vector<std::uint64_t> allGather(std::uint64_t value) = 0;
  /// Starts moving bytes; what arrives goes to `receiver` until stop().
  virtual void start(ProcessReceiver& receiver) = 0;
  /// Does the link's work on the calling thread (an isolate's loop,
  /// between its turns), unless another thread is doing it: sends what is
  /// queued and hands what arrived to the receiver. True if it moved
  /// anything. A link that cannot share its work with other threads
  /// returns false and does nothing.
  virtual bool progress() { return false; }
  /// A loop that calls progress() is awake (it will call it again before
  /// it sleeps), or is about to sleep. A link with a thread of its own
  /// leaves the work to the loops while any is awake. Each loop calls
  /// loopWakes() first, then the two alternately.
  virtual void loopWakes() noexcept {}
  virtual void loopSleeps() noexcept {}
  /// Queues `bytes` for `rank`. False (and counted as refused) for a rank
  /// that does not exist or once stop() has begun.
  virtual bool send(int rank, std::string&& bytes) = 0;
  /// Collective: refuses further sends, delivers everything every rank sent
  /// before its stop(), then stops the link's thread.
  virtual void stop() = 0;
  virtual ProcessLinkStats stats() const noexcept = 0;
};

}  // namespace coreactor::transport
