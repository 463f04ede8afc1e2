// The entries of one isolate's scheduler (Scheduler.hpp): the chunks they
// live in, the free slots, and the trim that gives emptied chunks back to
// the OS. It knows entries as storage, not as schedules: the scheduler
// arms, files and fires them.
//
// Entries live in chunks of kChunkSize (they never move) and are named by a
// slot and a generation (ScheduleHandle), so a stale handle finds nothing.
// One entry is 120 bytes with its message. A new entry takes a free slot of
// the lowest chunk that has one, so live entries gather in the low chunks
// and the high ones empty out as schedules end; an emptied chunk goes back
// to the OS once more chunks stand empty than the reserve allows (one, plus
// one per 16 chunks' worth of live entries), so that a count swinging around
// one size neither maps nor unmaps a chunk per swing. A chunk mapped again
// starts its slots' generations above any they had, so a handle from before
// never matches a schedule made after. Making or ending a schedule stays
// O(1) and allocation-free while no chunk is mapped or unmapped: a chunk's
// counters, and a few word reads of two small bitmaps when a chunk fills up
// or empties. Mapping or unmapping a chunk is a system call and 120 pages,
// once per 4,096 schedules at most (docs/scheduling.md, "Memory").
// Isolate-local.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "coreactor/Isolate.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Task.hpp"

namespace coreactor::detail {

struct IsolateRuntime;

/// What a scheduler holds in memory, and how often it took and gave back
/// a chunk of entries (Scheduler::memory()).
struct ScheduleMemory {
  std::size_t chunks = 0;         ///< chunks of entries mapped now
  std::size_t reservedBytes = 0;  ///< the chunks, their bookkeeping, the expiry's scratch
  std::uint64_t chunkMaps = 0;    ///< chunks taken from the OS so far
  std::uint64_t chunkUnmaps = 0;  ///< chunks given back so far
};

class ScheduleEntries final {
 public:
  static constexpr std::uint32_t kNil = 0xFFFFFFFF;
  static constexpr std::uint64_t kNoRef = ~std::uint64_t{0};  // SystemCore::kNoRefId
  enum class State : std::uint8_t { Free, Armed, Due, Paused, Anchor };
  enum Flag : std::uint8_t { kPassivation = 1, kNamed = 2, kCron = 4 };

  // 120 bytes: the references are kept as ids (the system is known), and a
  // named schedule keeps its name's hash (to leave the namespace by it).
  struct Entry {
    std::int64_t deadline = 0;  // ns on the clock; Paused: the delay left
    std::uint64_t seq = 0;      // arm order, for equal deadlines
    std::uint32_t prev = kNil;  // bucket list; `next` also links the free list
    std::uint32_t next = kNil;
    std::uint32_t ownerPrev = kNil;  // the owner's circle (kNil: system-owned)
    std::uint32_t ownerNext = kNil;
    std::int64_t interval = 0;  // ns between ticks; 0 for a one-shot
    std::uint32_t generation = 0;
    std::uint8_t bucket = 0;
    State state = State::Free;
    std::uint8_t flags = 0;
    std::uint64_t target = kNoRef;  // ActorRef::id()
    std::uint64_t sender = kNoRef;
    std::uint64_t nameHash = 0;  // named only (kNamed): its key's hash in the namespace
    Message message;
  };
  static constexpr std::uint32_t kChunkBits = 12;
  static constexpr std::uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr std::size_t kChunkBytes = kChunkSize * sizeof(Entry);  // 480 KiB

  /// The entries of the scheduler of `home`, whose trim timer runs on its
  /// isolate; `live` is the scheduler's count of live schedules, which
  /// weighs the reserve of empty chunks (reserveChunks()).
  ScheduleEntries(IsolateRuntime& home, const std::atomic<std::size_t>& live) noexcept
      : home_(home), live_(live) {}
  /// Gives every chunk back. The entries must be free already (the
  /// scheduler's clear()), and the trim timer stopped (stopTrim()).
  ~ScheduleEntries();
  ScheduleEntries(const ScheduleEntries&) = delete;
  ScheduleEntries& operator=(const ScheduleEntries&) = delete;

  /// The entry of `slot`, which a mapped chunk holds.
  Entry& at(std::uint32_t slot) noexcept {
    return chunks_[slot >> kChunkBits][slot & (kChunkSize - 1)];
  }
  /// The entry of `slot`, or nullptr when no chunk holds it (out of range, or given back).
  Entry* find(std::uint32_t slot) noexcept {
    if (slot >= capacity_) return nullptr;
    Entry* chunk = chunks_[slot >> kChunkBits];
    return chunk != nullptr ? chunk + (slot & (kChunkSize - 1)) : nullptr;
  }

  /// A free slot, of the lowest chunk that has one (a chunk is mapped when
  /// none has). Throws std::bad_alloc.
  std::uint32_t allocate();
  /// Puts `slot` back onto its chunk's free list; the entry must be reset
  /// (no message). May give the chunk back later (a trim): not at once.
  void freeSlot(std::uint32_t slot) noexcept;

  /// Calls f(slot) for each entry that is not free, lowest first. `f` may
  /// free it, and so empty its chunk: the chunk is looked at again before
  /// each entry.
  template <class F>
  void forEachUsed(F&& f) noexcept {
    for (std::uint32_t c = 0; c < chunks_.size(); ++c) {
      for (std::uint32_t i = 0; i < kChunkSize && chunks_[c] != nullptr; ++i) {
        if (chunks_[c][i].state != State::Free) f((c << kChunkBits) + i);
      }
    }
  }

  /// Stops the trim timer (the system stops).
  void stopTrim() noexcept;

  /// The chunks' part of Scheduler::memory(): everything but the expiry's scratch.
  ScheduleMemory memory() const noexcept;

 private:
  // Slots stay below kNil (and ScheduleHandle's empty slot).
  static constexpr std::uint32_t kMaxChunks = kNil >> kChunkBits;
  static constexpr std::uint32_t kNoChunk = 0xFFFFFFFF;

  // A set of chunk indices that finds its lowest and its highest member in
  // a couple of word reads: a bit per chunk, and a summary bit per word of
  // those (one summary word covers 4,096 chunks, 16M entries).
  class ChunkSet {
   public:
    void grow(std::size_t chunks);  // room for the indices below `chunks`
    void insert(std::uint32_t chunk) noexcept;
    void erase(std::uint32_t chunk) noexcept;
    std::uint32_t lowest() const noexcept;   // kNoChunk when empty
    std::uint32_t highest() const noexcept;  // kNoChunk when empty
    std::size_t bytes() const noexcept;

   private:
    std::vector<std::uint64_t> bits_;
    std::vector<std::uint64_t> words_;  // bit w: bits_[w] != 0
  };

  // One chunk's bookkeeping; it outlives the chunk's entries.
  struct Chunk {
    std::uint32_t freeHead = kNil;  // its free slots, through Entry::next
    std::uint32_t freeCount = 0;
    // The highest generation any of its slots has reached: the chunk's
    // slots start there when it is mapped again.
    std::uint32_t generations = 0;
    std::uint32_t emptiedAt = 0;  // the trim period in which it last became empty
  };
  // Empty chunks beyond the reserve go back to the OS, but only those that
  // stayed empty through a whole trim period (kTrimPeriod, the block caches'
  // too): a burst that recurs (schedules made and fired again and again,
  // bench schedule/fire/1M) keeps its chunks warm instead of mapping and
  // faulting them in anew each time, and what stays unused leaves within two
  // periods, also when the loop then sleeps. An unreferenced timer of its
  // own, armed while such chunks may be waiting.
  struct TrimTask final : Task {
    explicit TrimTask(ScheduleEntries& owner) : Task(&onTrim, &onTrimDropped), self(&owner) {}
    ScheduleEntries* self;
  };
  static void onTrim(Task& task);
  static void onTrimDropped(Task& task) noexcept;
  void armTrim() noexcept;
  /// Gives back the empty chunks beyond the reserve that stayed empty
  /// through a whole period, highest first; true while some may be left.
  bool trim() noexcept;

  std::uint32_t mapChunk();  // throws std::bad_alloc
  void unmapChunk(std::uint32_t chunk) noexcept;
  // Empty chunks kept mapped: one, plus one per 16 chunks' worth of live
  // schedules (6%). A count swinging by less than that maps and unmaps
  // nothing (ScheduleMemory.ChurnAroundOneSizeNeitherMapsNorUnmapsChunks); a
  // burst ended leaves that much behind (CancellingABurst...GivesItsChunksBack).
  std::size_t reserveChunks() const noexcept {
    return 1 + (live_.load(std::memory_order_relaxed) >> (kChunkBits + 4));
  }
  // The bookkeeping of a chunk that fills up or empties, off the hot path.
  void chunkFilled(std::uint32_t chunk) noexcept;
  void chunkUnfilled(std::uint32_t chunk) noexcept;   // was full, has a free slot now
  void chunkEmptied(std::uint32_t chunk) noexcept;    // every slot free now
  void chunkUnemptied(std::uint32_t chunk) noexcept;  // was empty, has an entry now

  std::vector<Entry*> chunks_;  // nullptr: given back
  std::vector<Chunk> chunkInfo_;
  std::uint32_t capacity_ = 0;            // slots below it have a chunk index
  ChunkSet roomy_;                        // mapped chunks with a free slot
  ChunkSet empty_;                        // mapped chunks with every slot free
  std::uint32_t lowestRoomy_ = kNoChunk;  // where the next entry comes from
  std::size_t emptyChunks_ = 0;
  std::size_t mappedChunks_ = 0;
  std::uint64_t chunkMaps_ = 0;
  std::uint64_t chunkUnmaps_ = 0;
  TrimTask trimTask_{*this};
  TimerId trimTimer_;
  bool trimArmed_ = false;
  std::uint32_t trimPeriod_ = 0;  // trims so far: the current period's number
  IsolateRuntime& home_;
  const std::atomic<std::size_t>& live_;
};

}  // namespace coreactor::detail
