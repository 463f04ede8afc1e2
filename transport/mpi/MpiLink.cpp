// transport/mpi/MpiLink.cpp — see the header.
#include "transport/mpi/MpiLink.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "coreactor/Error.hpp"

namespace coreactor::transport {

namespace {
/// The tag of the link's batches on its own communicator.
constexpr int kTag = 1;
/// A unit's length prefix in a batch.
using UnitLength = std::uint32_t;
}  // namespace

struct MpiLink::Outgoing {
  int rank = 0;
  std::string bytes;
};

struct MpiLink::InFlight {
  int rank = 0;
  std::string bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

// What send() queued: a vector under a lock, swapped out whole by the link's
// thread each round. A remote send costs a microsecond or more in MPI; the
// lock (uncontended: tens of ns) is not what it waits for.
struct MpiLink::Queue {
  std::mutex mutex;
  std::vector<Outgoing> items;  // guarded by mutex
  std::atomic<std::size_t> size{0};
  bool stopping = false;  // guarded by mutex: send() refuses from then on
  std::atomic<bool> stopRequested{false};
};

MpiLink::MpiLink(MPI_Comm comm) : queue_(std::make_unique<Queue>()) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized == 0 || finalized != 0) {
    throwError(Error::ErrInvalidOption, "an MPI link needs MPI initialized (and not finalized)");
  }
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_SERIALIZED) {
    throwError(Error::ErrInvalidOption,
               "an MPI link needs MPI initialized with MPI_THREAD_SERIALIZED or more "
               "(MPI_Init_thread): its own thread makes the MPI calls");
  }
  shared_ = level == MPI_THREAD_MULTIPLE;
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  const auto n = static_cast<std::size_t>(size_);
  pending_.resize(n);
  pendingSent_.assign(n, 0);
  pendingUnits_.assign(n, 0);
  posted_.resize(n);
  postedRequests_.assign(n, MPI_REQUEST_NULL);
  completed_.resize(n);
  completedStatus_.resize(n);
  streams_.resize(n);
  inFlightTo_.assign(n, 0);
  sentTo_.assign(n, 0);
  receivedFrom_.assign(n, 0);
}

MpiLink::~MpiLink() {
  if (thread_.joinable()) stop();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) return;
  // The receives posted ahead outlive each stop (the next start goes on
  // with them); they end with the link. After the collective stop nothing
  // more comes for them.
  for (MPI_Request& request : postedRequests_) {
    if (request == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiLink::postReceive(int rank) {
  const auto r = static_cast<std::size_t>(rank);
  posted_[r].resize(kChunk);
  MPI_Irecv(posted_[r].data(), static_cast<int>(kChunk), MPI_BYTE, rank, kTag, comm_,
            &postedRequests_[r]);
}

std::vector<std::uint64_t> MpiLink::allGather(std::uint64_t value) {
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size_));
  MPI_Allgather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm_);
  return all;
}

void MpiLink::start(ProcessReceiver& receiver) {
  // A link may serve one system after another: each start begins afresh
  // (the stop before it delivered everything sent before it).
  receiver_ = &receiver;
  awakeLoops_.store(0);  // the new system's loops report in as they run
  std::fill(sentTo_.begin(), sentTo_.end(), 0);
  std::fill(receivedFrom_.begin(), receivedFrom_.end(), 0);
  queue_->stopRequested.store(false);
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stopping = false;
  }
  for (int rank = 0; rank < size_; ++rank) {
    if (postedRequests_[static_cast<std::size_t>(rank)] == MPI_REQUEST_NULL) postReceive(rank);
  }
  running_.store(true);
  thread_ = std::thread([this] { run(); });
}

bool MpiLink::progress() {
  if (!shared_ || !running_.load(std::memory_order_relaxed)) return false;
  return roundIfFree();
}

bool MpiLink::roundIfFree() {
  std::unique_lock<std::mutex> lock(work_, std::try_to_lock);
  return lock.owns_lock() && round();
}

bool MpiLink::send(int rank, std::string&& bytes) {
  if (rank < 0 || rank >= size_ || bytes.size() > UINT32_MAX) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const std::size_t size = bytes.size();
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    if (queue_->stopping) {
      refused_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    queue_->items.push_back(Outgoing{rank, std::move(bytes)});
    queue_->size.store(queue_->items.size());
  }
  unitsSent_.fetch_add(1, std::memory_order_relaxed);
  bytesSent_.fetch_add(size, std::memory_order_relaxed);
  // Seen by the thread's check of the queue after it raised the flag, or
  // this load sees the flag: either way the unit is not left waiting. While
  // a loop is awake, that loop sends it (no wake-up): one that goes to
  // sleep meanwhile wakes the thread in loopSleeps().
  if (sleeping_.load() && awakeLoops_.load() == 0) {
    std::lock_guard<std::mutex> lock(sleepMutex_);
    wake_.notify_one();
  }
  return true;
}

void MpiLink::loopWakes() noexcept {
  awakeLoops_.fetch_add(1);
}

void MpiLink::loopSleeps() noexcept {
  // The last awake loop: the thread takes over the polling at once.
  if (awakeLoops_.fetch_sub(1) == 1 && sleeping_.load()) {
    std::lock_guard<std::mutex> lock(sleepMutex_);
    wake_.notify_one();
  }
}

void MpiLink::stop() {
  if (!thread_.joinable()) return;
  running_.store(false);
  {
    // Under the queue's lock: a send either queued before this or is refused.
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stopping = true;
  }
  {
    std::lock_guard<std::mutex> lock(sleepMutex_);
    queue_->stopRequested.store(true);
  }
  wake_.notify_one();
  thread_.join();
}

ProcessLinkStats MpiLink::stats() const noexcept {
  ProcessLinkStats s;
  s.unitsSent = unitsSent_.load(std::memory_order_relaxed);
  s.unitsReceived = unitsReceived_.load(std::memory_order_relaxed);
  s.bytesSent = bytesSent_.load(std::memory_order_relaxed);
  s.bytesReceived = bytesReceived_.load(std::memory_order_relaxed);
  s.batchesSent = batchesSent_.load(std::memory_order_relaxed);
  s.refused = refused_.load(std::memory_order_relaxed);
  return s;
}

// ---- the link's thread ----------------------------------------------------------------

void MpiLink::run() {
  int idleRounds = 0;
  auto nap = kNapWhileLoopsAwake;
  while (!queue_->stopRequested.load(std::memory_order_acquire)) {
    if (awakeLoops_.load() > 0) {
      napWhileLoopsAwake(nap);
      idleRounds = 0;  // when the loops sleep, the thread polls at once
      continue;
    }
    nap = kNapWhileLoopsAwake;
    // While an isolate does the work, this thread moves towards sleep:
    // the loops that poll need no help, and it would take their CPU.
    if (roundIfFree()) {
      idleRounds = 0;
    } else {
      sleepIdle(idleRounds);
    }
  }
  const std::lock_guard<std::mutex> lock(work_);
  finish();
}

bool MpiLink::round() {
  rounds_.store(rounds_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  bool did = moveQueued() > 0;
  did |= sendBatches();
  did |= completeSends();
  did |= receiveArrived();
  return did;
}

// Moves what send() queued into the ranks' batches; returns how many.
std::size_t MpiLink::moveQueued() {
  // A loop polling for a reply looks here thousands of times a second: an
  // empty queue costs it one load, not the lock. A unit queued after this
  // load is taken in the next round; the thread, and a loop, look again
  // before they sleep.
  if (queue_->size.load(std::memory_order_relaxed) == 0) return 0;
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    if (queue_->items.empty()) return 0;
    taken_.swap(queue_->items);
    queue_->size.store(0);
  }
  for (Outgoing& item : taken_) {
    const auto rank = static_cast<std::size_t>(item.rank);
    std::string& batch = pending_[rank];
    const auto length = static_cast<UnitLength>(item.bytes.size());
    const std::size_t at = batch.size();
    batch.resize(at + sizeof(length));
    std::memcpy(batch.data() + at, &length, sizeof(length));
    batch += item.bytes;
    ++pendingUnits_[rank];
  }
  const std::size_t moved = taken_.size();
  taken_.clear();
  return moved;
}

// Sends each rank's pending bytes in chunks of at most kChunk, within
// kInFlight per rank. True if it sent one.
bool MpiLink::sendBatches() {
  bool sent = false;
  for (int rank = 0; rank < size_; ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    std::string& batch = pending_[r];
    std::size_t& from = pendingSent_[r];
    while (from < batch.size() && inFlightTo_[r] < kInFlight) {
      auto flight = std::make_unique<InFlight>();
      flight->rank = rank;
      const std::size_t length = std::min(batch.size() - from, kChunk);
      if (from == 0 && length == batch.size()) {
        flight->bytes = std::move(batch);  // the whole batch: no copy
        batch = std::string();
      } else {
        flight->bytes.assign(batch, from, length);
      }
      from += length;
      MPI_Isend(flight->bytes.data(), static_cast<int>(flight->bytes.size()), MPI_BYTE, rank, kTag,
                comm_, &flight->request);
      ++inFlightTo_[r];
      batchesSent_.fetch_add(1, std::memory_order_relaxed);
      inFlight_.push_back(std::move(flight));
      sent = true;
    }
    if (from != 0 && from >= batch.size()) {
      // All of it has gone: its units count as sent.
      batch.clear();
      from = 0;
      sentTo_[r] += pendingUnits_[r];
      pendingUnits_[r] = 0;
    }
  }
  return sent;
}

bool MpiLink::completeSends() {
  bool done = false;
  for (std::size_t i = 0; i < inFlight_.size();) {
    int flag = 0;
    MPI_Test(&inFlight_[i]->request, &flag, MPI_STATUS_IGNORE);
    if (flag == 0) {
      ++i;
      continue;
    }
    --inFlightTo_[static_cast<std::size_t>(inFlight_[i]->rank)];
    inFlight_[i] = std::move(inFlight_.back());
    inFlight_.pop_back();
    done = true;
  }
  return done;
}

bool MpiLink::receiveArrived() {
  // Only the holder of work_ tests and reposts the receives posted ahead.
  bool got = false;
  for (int round = 0; round < 64; ++round) {
    int count = 0;
    MPI_Testsome(size_, postedRequests_.data(), &count, completed_.data(), completedStatus_.data());
    if (count == MPI_UNDEFINED || count == 0) break;
    for (int i = 0; i < count; ++i) {
      const int from = completed_[static_cast<std::size_t>(i)];
      const auto f = static_cast<std::size_t>(from);
      int bytes = 0;
      MPI_Get_count(&completedStatus_[static_cast<std::size_t>(i)], MPI_BYTE, &bytes);
      streams_[f].append(posted_[f].data(), static_cast<std::size_t>(bytes));
      postReceive(from);
      unpack(from);
    }
    got = true;
  }
  return got;
}

void MpiLink::unpack(int from) {
  std::string& stream = streams_[static_cast<std::size_t>(from)];
  std::size_t at = 0;
  while (stream.size() - at >= sizeof(UnitLength)) {
    UnitLength length = 0;
    std::memcpy(&length, stream.data() + at, sizeof(length));
    if (stream.size() - at - sizeof(length) < length) break;  // the rest comes in the next chunk
    at += sizeof(length);
    const std::string_view unit(stream.data() + at, length);
    at += length;
    ++receivedFrom_[static_cast<std::size_t>(from)];
    unitsReceived_.fetch_add(1, std::memory_order_relaxed);
    bytesReceived_.fetch_add(length, std::memory_order_relaxed);
    receiver_->receive(from, unit);
  }
  stream.erase(0, at);
}

void MpiLink::sleepIdle(int& idleRounds) {
  ++idleRounds;
  // First yield between polls for a while: on a machine with fewer CPUs
  // than busy threads (an isolate and a link per rank), the thread gives
  // its CPU to whoever has work and still answers within a time slice.
  if (idleRounds < kYieldRounds) {
    std::this_thread::yield();
    return;
  }
  // Then sleep between polls: 20 µs at first, doubling every 16 sleeps up
  // to 32 ms, reached after about half a second of sleeping. An isolate
  // that is awake does the link's work meanwhile (progress()); this thread
  // only sees what comes while every loop of the rank sleeps.
  const int sleeps = idleRounds - kYieldRounds;
  const int doublings = std::min(sleeps / 16, 11);
  const auto pause =
      std::min(std::chrono::microseconds(20 << doublings), std::chrono::microseconds(32000));
  sleepFor(pause, [this] { return queue_->size.load() == 0; });
}

void MpiLink::napWhileLoopsAwake(std::chrono::microseconds& nap) {
  const std::uint64_t before = rounds_.load(std::memory_order_relaxed);
  sleepFor(nap, [this] { return awakeLoops_.load() > 0; });
  if (awakeLoops_.load() == 0) return;  // the last loop went to sleep: poll
  const bool loopsWork = rounds_.load(std::memory_order_relaxed) != before;
  if (loopsWork && queue_->size.load(std::memory_order_relaxed) == 0) {
    nap = std::min(nap * 2, kLongestNap);
    return;
  }
  // A loop in a long turn (or what it sent still queued): a round here.
  roundIfFree();
  nap = kNapWhileLoopsAwake;
}

template <class StillIdle>
void MpiLink::sleepFor(std::chrono::microseconds pause, StillIdle stillIdle) {
  // The flag up first, then the look: a send() or loopSleeps() either sees
  // the flag and wakes this thread, or came before the look.
  std::unique_lock<std::mutex> lock(sleepMutex_);
  sleeping_.store(true);
  if (stillIdle() && !queue_->stopRequested.load()) wake_.wait_for(lock, pause);
  sleeping_.store(false);
}

// The collective end: flush, learn what each rank sent here, take it all,
// and let the last sends complete.
void MpiLink::finish() {
  for (;;) {
    moveQueued();
    completeSends();
    sendBatches();
    receiveArrived();
    const bool flushed = std::all_of(pending_.begin(), pending_.end(),
                                     [](const std::string& bytes) { return bytes.empty(); });
    if (flushed && queue_->size.load() == 0) break;
  }
  std::vector<std::uint64_t> expected(static_cast<std::size_t>(size_), 0);
  MPI_Request exchange = MPI_REQUEST_NULL;
  MPI_Ialltoall(sentTo_.data(), 1, MPI_UINT64_T, expected.data(), 1, MPI_UINT64_T, comm_,
                &exchange);
  for (int exchanged = 0; exchanged == 0;) {
    receiveArrived();
    completeSends();
    MPI_Test(&exchange, &exchanged, MPI_STATUS_IGNORE);
  }
  while (receivedFrom_ != expected || !inFlight_.empty()) {
    if (!receiveArrived() && !completeSends()) std::this_thread::yield();
  }
}

}  // namespace coreactor::transport
