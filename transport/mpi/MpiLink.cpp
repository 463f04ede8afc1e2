// Over 600 lines on purpose: one class, whose round (batches, shared-memory
// rings, MPI requests) and collective stop work on the same per-rank state.
// transport/mpi/MpiLink.cpp — see the header.
#include "transport/mpi/MpiLink.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "coreactor/Error.hpp"
#include "transport/SoleWriter.hpp"

namespace coreactor::transport {

namespace {
/// The tag of the link's batches on its own communicator.
constexpr int kTag = 1;
/// A unit's length prefix in a batch.
using UnitLength = std::uint32_t;

/// Whether this thread holds some link's work lock: a send() from inside a
/// round (a receive that answers at once) takes the queue, never the lock
/// it already holds.
thread_local bool tHoldsWork = false;

struct HoldingWork {
  HoldingWork() noexcept { tHoldsWork = true; }
  ~HoldingWork() { tHoldsWork = false; }
  HoldingWork(const HoldingWork&) = delete;
  HoldingWork& operator=(const HoldingWork&) = delete;
};

/// A counter that only the holder of the work lock writes.
void bump(std::atomic<std::uint64_t>& counter, std::uint64_t by) noexcept {
  addAsSoleWriter(counter, by);
}
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

MpiLink::MpiLink(MPI_Comm comm, const MpiOptions& options) : queue_(std::make_unique<Queue>()) {
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
  ringTo_.resize(n);
  ringFrom_.resize(n);
  wroteAtOnce_.assign(n, 0);
  if (options.sharedMemory()) shareMemory(options.sharedRingBytes());
  mpiPeers_ = size_ - 1 - static_cast<int>(sharedPeers_.size());
}

void MpiLink::shareMemory(std::size_t ringBytes) {
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_);
  int nodeSize = 1;
  int nodeRank = 0;
  MPI_Comm_size(node_, &nodeSize);
  MPI_Comm_rank(node_, &nodeRank);
  if (nodeSize < 2) {
    MPI_Comm_free(&node_);
    return;
  }
  std::vector<int> ranks(static_cast<std::size_t>(nodeSize));  // in comm_, by node rank
  MPI_Allgather(&rank_, 1, MPI_INT, ranks.data(), 1, MPI_INT, node_);
  // Each rank owns the rings that come to it, one per other rank of the
  // node, in its own segment ("noncontig": on pages of its own, which the
  // first touch below puts on its NUMA node). The ring from node rank s to
  // node rank d is slot (s < d ? s : s - 1) of d's segment.
  const std::size_t stride = ByteRing::footprint(ringBytes);
  const auto slot = [](int from, int to) {
    return static_cast<std::size_t>(from < to ? from : from - 1);
  };
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  MPI_Comm_set_errhandler(node_, MPI_ERRORS_RETURN);
  void* base = nullptr;
  const int made = MPI_Win_allocate_shared(
      static_cast<MPI_Aint>(stride * static_cast<std::size_t>(nodeSize - 1)), 1, info, node_, &base,
      &window_);
  MPI_Info_free(&info);
  int ok = made == MPI_SUCCESS ? 1 : 0;
  int allOk = 0;
  MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, node_);
  if (allOk == 0) {
    // Every rank of the node falls back to MPI messages together.
    if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
    MPI_Comm_free(&node_);
    return;
  }
  for (int from = 0; from < nodeSize; ++from) {
    if (from != nodeRank)
      ByteRing::format(static_cast<char*>(base) + slot(from, nodeRank) * stride);
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  MPI_Barrier(node_);  // every ring formatted before any is used
  for (int peer = 0; peer < nodeSize; ++peer) {
    if (peer == nodeRank) continue;
    MPI_Aint bytes = 0;
    int unit = 0;
    void* theirs = nullptr;
    MPI_Win_shared_query(window_, peer, &bytes, &unit, &theirs);
    const auto r = static_cast<std::size_t>(ranks[static_cast<std::size_t>(peer)]);
    ringTo_[r] = ByteRing(static_cast<char*>(theirs) + slot(nodeRank, peer) * stride, ringBytes);
    ringFrom_[r] = ByteRing(static_cast<char*>(base) + slot(peer, nodeRank) * stride, ringBytes);
    sharedPeers_.push_back(static_cast<int>(r));
  }
  std::sort(sharedPeers_.begin(), sharedPeers_.end());
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
  // Collective over the node, as the link's construction was: every rank
  // destroys its link before it finalizes MPI.
  if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
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
    const auto r = static_cast<std::size_t>(rank);
    const bool viaMpi = rank != rank_ && !ringTo_[r];
    if (viaMpi && postedRequests_[r] == MPI_REQUEST_NULL) postReceive(rank);
  }
  {
    const std::lock_guard<std::mutex> lock(work_);
    closed_ = false;
  }
  running_.store(true);
  thread_ = std::thread([this] { run(); });
}

bool MpiLink::progress() {
  if (!shared_ || !running_.load(std::memory_order_relaxed)) return false;
  if (mpiPeers_ == 0 && quiet()) return false;  // a look without the lock
  return roundIfFree();
}

bool MpiLink::quiet() const noexcept {
  if (queue_->size.load(std::memory_order_relaxed) != 0) return false;
  if (heldBack_.load(std::memory_order_relaxed)) return false;
  for (const int from : sharedPeers_) {
    if (ringFrom_[static_cast<std::size_t>(from)].ready()) return false;
  }
  return true;
}

bool MpiLink::roundIfFree() {
  if (tHoldsWork) return false;
  std::unique_lock<std::mutex> lock(work_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  const HoldingWork holding;
  return round();
}

bool MpiLink::sendNow(int rank, std::string& bytes) {
  if (tHoldsWork || !shared_) return false;
  std::unique_lock<std::mutex> lock(work_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  // Once the link has finished (stop), the queue refuses.
  if (closed_ || !running_.load(std::memory_order_relaxed)) return false;
  const HoldingWork holding;
  moveQueued();  // what was queued before goes first
  const auto r = static_cast<std::size_t>(rank);
  frame(r, bytes);
  // To a rank of this node, the first message since the last round leaves
  // at once (a lone message: an answer, a request); after it, a turn that
  // floods the rank gathers its messages here and writes them in pieces
  // of kSharedPiece, and the turn's round writes the rest, so the
  // receiver reads large pieces instead of chasing each message's line
  // (measured: a flood of 64-byte tells costs about twice as much when
  // each is written at once). Others go with the next round: an MPI send
  // per message would cost more than it saves, and this rank's own units
  // must not be received inside send().
  if (ringTo_[r]) {
    if (!wroteAtOnce_[r] || pending_[r].size() >= kSharedPiece) {
      wroteAtOnce_[r] = 1;
      writeShared(r);
    }
  } else if (rank != rank_ && pending_[r].size() - pendingSent_[r] >= kChunk) {
    // A flood to a rank of another machine: a whole chunk leaves from the
    // sending turn, instead of waiting for a round of the link's thread
    // (whose try for the lock a flood of sends would often find taken).
    completeSends();
    sendBatches();
  }
  if (!pending_[r].empty()) heldBack_.store(true, std::memory_order_relaxed);
  return true;
}

void MpiLink::frame(std::size_t rank, const std::string& bytes) {
  std::string& batch = pending_[rank];
  const auto length = static_cast<UnitLength>(bytes.size());
  const std::size_t at = batch.size();
  batch.resize(at + sizeof(length));
  std::memcpy(batch.data() + at, &length, sizeof(length));
  batch += bytes;
  ++pendingUnits_[rank];
  bump(unitsSent_, 1);
  bump(bytesSent_, bytes.size());
}

bool MpiLink::send(int rank, std::string&& bytes) {
  if (rank < 0 || rank >= size_ || bytes.size() > UINT32_MAX) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (!sendNow(rank, bytes)) {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    if (queue_->stopping) {
      refused_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    queue_->items.push_back(Outgoing{rank, std::move(bytes)});
    queue_->size.store(queue_->items.size());
  }
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
  s.sharedMemoryRanks = sharedPeers_.size();
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
  const HoldingWork holding;
  finish();
  closed_ = true;
}

bool MpiLink::round() {
  rounds_.store(rounds_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  std::fill(wroteAtOnce_.begin(), wroteAtOnce_.end(), 0);
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
  for (Outgoing& item : taken_) frame(static_cast<std::size_t>(item.rank), item.bytes);
  const std::size_t moved = taken_.size();
  taken_.clear();
  return moved;
}

// Sends each rank's pending bytes in chunks of at most kChunk, within
// kInFlight per rank. True if it sent one.
bool MpiLink::sendBatches() {
  bool sent = false;
  bool held = false;
  for (int rank = 0; rank < size_; ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    if (rank == rank_ || ringTo_[r]) {
      sent |= writeShared(r);
      held |= !pending_[r].empty();
      continue;
    }
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
      bump(batchesSent_, 1);
      inFlight_.push_back(std::move(flight));
      sent = true;
    }
    if (from != 0 && from >= batch.size()) batchGone(r);
  }
  if (held != heldBack_.load(std::memory_order_relaxed)) {
    heldBack_.store(held, std::memory_order_relaxed);
  }
  return sent;
}

void MpiLink::batchGone(std::size_t r) {
  pending_[r].clear();  // keeps its capacity: no allocation in steady state
  pendingSent_[r] = 0;
  sentTo_[r] += pendingUnits_[r];
  pendingUnits_[r] = 0;
}

bool MpiLink::writeShared(std::size_t r) {
  std::string& batch = pending_[r];
  std::size_t& from = pendingSent_[r];
  if (from >= batch.size()) return false;
  const bool self = r == static_cast<std::size_t>(rank_);
  std::size_t wrote = batch.size() - from;
  if (self) {
    streams_[r].append(batch, from);
  } else {
    wrote = ringTo_[r].write(batch.data() + from, wrote);
    if (wrote == 0) return false;  // the ring is full: the rest waits for room
    bump(batchesSent_, 1);
  }
  from += wrote;
  if (from == batch.size()) batchGone(r);
  if (self) unpack(rank_);
  return true;
}

bool MpiLink::readShared() {
  bool got = false;
  for (const int from : sharedPeers_) {
    const auto f = static_cast<std::size_t>(from);
    std::string& stream = streams_[f];
    // Whole units are handed over from the ring itself (their room is
    // given back after); only a unit cut by the ring's end or by the
    // producer's last write waits in the stream.
    const auto take = [&](const char* bytes, std::size_t size) {
      if (stream.empty()) {
        const std::size_t used = deliver(from, bytes, size);
        stream.append(bytes + used, size - used);
      } else {
        stream.append(bytes, size);
        unpack(from);
      }
    };
    if (ringFrom_[f].read(take) == 0) continue;
    got = true;
  }
  return got;
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
  bool got = readShared();
  if (mpiPeers_ == 0) return got;  // no receive posted ahead
  // Only the holder of work_ tests and reposts the receives posted ahead.
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
  stream.erase(0, deliver(from, stream.data(), stream.size()));
}

std::size_t MpiLink::deliver(int from, const char* bytes, std::size_t size) {
  std::size_t at = 0;
  while (size - at >= sizeof(UnitLength)) {
    UnitLength length = 0;
    std::memcpy(&length, bytes + at, sizeof(length));
    if (size - at - sizeof(length) < length) break;  // the rest comes later
    at += sizeof(length);
    const std::string_view unit(bytes + at, length);
    at += length;
    ++receivedFrom_[static_cast<std::size_t>(from)];
    bump(unitsReceived_, 1);
    bump(bytesReceived_, length);
    receiver_->receive(from, unit);
  }
  return at;
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
  // Loops that look without the lock (quiet()) do no rounds: then nothing
  // to do is as good as rounds done.
  const bool loopsWork =
      rounds_.load(std::memory_order_relaxed) != before || (mpiPeers_ == 0 && quiet());
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
