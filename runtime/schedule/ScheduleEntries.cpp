// The entries of one isolate's scheduler: taking and freeing a slot, the
// chunk sets, mapping and unmapping chunks, and the trim. Read runtime/schedule/ScheduleEntries.hpp
// first.
#include "runtime/schedule/ScheduleEntries.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <new>

#include "isolate/CacheTrim.hpp"
#include "runtime/IsolateRuntime.hpp"
#include "runtime/schedule/ScheduleNames.hpp"  // mapPages

namespace coreactor::detail {

ScheduleEntries::~ScheduleEntries() {
  for (std::uint32_t c = 0; c < chunks_.size(); ++c) {
    if (chunks_[c] != nullptr) unmapChunk(c);
  }
}

// ---- entries ----------------------------------------------------------------------

// The lowest chunk with a free slot gives it: live entries gather low, and
// the high chunks empty out to be given back. The hot path reads and writes
// the chunk's two counters; a chunk that fills up or was empty goes through
// the sets, out of line.
std::uint32_t ScheduleEntries::allocate() {
  std::uint32_t c = lowestRoomy_;
  if (c == kNoChunk) [[unlikely]] {
    c = mapChunk();
  }
  Chunk& chunk = chunkInfo_[c];
  const std::uint32_t slot = chunk.freeHead;
  chunk.freeHead = at(slot).next;
  const std::uint32_t left = --chunk.freeCount;
  if (left - 1 >= kChunkSize - 2) [[unlikely]] {  // left is 0 or kChunkSize - 1
    if (left == kChunkSize - 1) chunkUnemptied(c);
    if (left == 0) chunkFilled(c);
  }
  return slot;
}

void ScheduleEntries::freeSlot(std::uint32_t slot) noexcept {
  const std::uint32_t c = slot >> kChunkBits;
  Chunk& chunk = chunkInfo_[c];
  Entry& e = at(slot);
  chunk.generations = std::max(chunk.generations, e.generation);
  e.next = chunk.freeHead;
  chunk.freeHead = slot;
  const std::uint32_t free = ++chunk.freeCount;
  if (free - 2 >= kChunkSize - 2) [[unlikely]] {  // free is 1 or kChunkSize
    if (free == 1) chunkUnfilled(c);
    if (free == kChunkSize) chunkEmptied(c);  // may give the chunk back
  }
}

// ---- the chunk sets -----------------------------------------------------------------

void ScheduleEntries::ChunkSet::grow(std::size_t chunks) {
  const std::size_t words = (chunks + 63) / 64;
  if (words > bits_.size()) bits_.resize(words, 0);
  const std::size_t summaries = (words + 63) / 64;
  if (summaries > words_.size()) words_.resize(summaries, 0);
}

void ScheduleEntries::ChunkSet::insert(std::uint32_t chunk) noexcept {
  const std::uint32_t w = chunk >> 6;
  bits_[w] |= std::uint64_t{1} << (chunk & 63);
  words_[w >> 6] |= std::uint64_t{1} << (w & 63);
}

void ScheduleEntries::ChunkSet::erase(std::uint32_t chunk) noexcept {
  const std::uint32_t w = chunk >> 6;
  bits_[w] &= ~(std::uint64_t{1} << (chunk & 63));
  if (bits_[w] == 0) words_[w >> 6] &= ~(std::uint64_t{1} << (w & 63));
}

std::uint32_t ScheduleEntries::ChunkSet::lowest() const noexcept {
  for (std::size_t s = 0; s < words_.size(); ++s) {
    if (words_[s] == 0) continue;
    const std::size_t w = s * 64 + static_cast<std::size_t>(std::countr_zero(words_[s]));
    return static_cast<std::uint32_t>(w * 64 +
                                      static_cast<std::size_t>(std::countr_zero(bits_[w])));
  }
  return kNoChunk;
}

std::uint32_t ScheduleEntries::ChunkSet::highest() const noexcept {
  for (std::size_t s = words_.size(); s-- > 0;) {
    if (words_[s] == 0) continue;
    const std::size_t w = s * 64 + 63 - static_cast<std::size_t>(std::countl_zero(words_[s]));
    return static_cast<std::uint32_t>(w * 64 + 63 -
                                      static_cast<std::size_t>(std::countl_zero(bits_[w])));
  }
  return kNoChunk;
}

std::size_t ScheduleEntries::ChunkSet::bytes() const noexcept {
  return (bits_.capacity() + words_.capacity()) * sizeof(std::uint64_t);
}

// ---- chunks ------------------------------------------------------------------------

void ScheduleEntries::chunkFilled(std::uint32_t c) noexcept {
  roomy_.erase(c);
  lowestRoomy_ = roomy_.lowest();
}

void ScheduleEntries::chunkUnfilled(std::uint32_t c) noexcept {
  roomy_.insert(c);
  lowestRoomy_ = std::min(lowestRoomy_, c);
}

void ScheduleEntries::chunkUnemptied(std::uint32_t c) noexcept {
  empty_.erase(c);
  --emptyChunks_;
}

void ScheduleEntries::chunkEmptied(std::uint32_t c) noexcept {
  empty_.insert(c);
  ++emptyChunks_;
  chunkInfo_[c].emptiedAt = trimPeriod_;
  // Beyond the reserve, empty chunks go back at a trim (TrimTask, in the
  // header): never here, in the middle of a cancel or an expiry.
  if (emptyChunks_ > reserveChunks() && !trimArmed_) armTrim();
}

void ScheduleEntries::armTrim() noexcept {
  try {
    trimTimer_ = home_.isolate->setTimeout(std::chrono::duration_cast<Clock::duration>(kTrimPeriod),
                                           trimTask_, TimerOptions{.referenced = false});
    trimArmed_ = true;
  } catch (...) {
    // The isolate is stopping (its teardown unmaps everything) or out of
    // memory for the timer: the chunks stay until the next chunk empties.
    trimArmed_ = false;
  }
}

void ScheduleEntries::onTrimDropped(Task& task) noexcept {
  static_cast<TrimTask&>(task).self->trimArmed_ = false;
}

void ScheduleEntries::onTrim(Task& task) {
  ScheduleEntries& self = *static_cast<TrimTask&>(task).self;
  self.trimArmed_ = false;
  ++self.trimPeriod_;
  if (self.trim()) self.armTrim();
}

bool ScheduleEntries::trim() noexcept {
  // The reserve is weighed now, against the schedules live now.
  const std::size_t reserve = reserveChunks();
  bool left = false;
  for (std::uint32_t c = static_cast<std::uint32_t>(chunks_.size()); c-- > 0;) {
    if (emptyChunks_ <= reserve) return false;
    if (chunks_[c] == nullptr || chunkInfo_[c].freeCount != kChunkSize) continue;
    // Emptied in an earlier period than the last one: empty for a whole period.
    if (trimPeriod_ - chunkInfo_[c].emptiedAt >= 2) {
      unmapChunk(c);
    } else {
      left = true;
    }
  }
  return left && emptyChunks_ > reserve;
}

// Chunks come straight from the OS (mapPages, runtime/schedule/ScheduleNames.hpp), not
// from malloc: a chunk given back leaves the process at once, where malloc
// would keep a freed 480 KiB block mapped unless it ended its heap.
std::uint32_t ScheduleEntries::mapChunk() {
  std::uint32_t c = 0;
  if (mappedChunks_ < chunks_.size()) {
    while (chunks_[c] != nullptr) ++c;  // the lowest chunk given back
  } else {
    if (chunks_.size() >= kMaxChunks) throw std::bad_alloc();
    c = static_cast<std::uint32_t>(chunks_.size());
    // Every table first: a throw leaves a consistent hole, not a half chunk.
    roomy_.grow(c + 1);
    empty_.grow(c + 1);
    chunkInfo_.emplace_back();
    chunks_.push_back(nullptr);
    capacity_ = static_cast<std::uint32_t>(chunks_.size()) << kChunkBits;
  }
  auto* entries = static_cast<Entry*>(mapPages(kChunkBytes));
  Chunk& chunk = chunkInfo_[c];
  const std::uint32_t base = c << kChunkBits;
  for (std::uint32_t i = kChunkSize; i-- > 0;) {  // the free list, lowest slot first
    Entry* e = new (entries + i) Entry();
    e->generation = chunk.generations;
    e->next = chunk.freeHead;
    chunk.freeHead = base + i;
  }
  chunk.freeCount = kChunkSize;
  chunks_[c] = entries;
  ++mappedChunks_;
  ++chunkMaps_;
  roomy_.insert(c);
  lowestRoomy_ = std::min(lowestRoomy_, c);
  empty_.insert(c);
  ++emptyChunks_;
  return c;
}

// Every entry of an empty chunk is free and holds no message (release()
// reset it), so the entries' destructors have nothing to do and are not
// run: the pages go back without being read again.
void ScheduleEntries::unmapChunk(std::uint32_t c) noexcept {
  Chunk& chunk = chunkInfo_[c];
  if (chunk.freeCount == kChunkSize) {
    empty_.erase(c);
    --emptyChunks_;
  }
  if (chunk.freeCount != 0) roomy_.erase(c);
  if (lowestRoomy_ == c) lowestRoomy_ = roomy_.lowest();
  chunk.freeHead = kNil;
  chunk.freeCount = 0;
  ++chunk.generations;  // above every generation a handle into it can carry
  unmapPages(chunks_[c], kChunkBytes);
  chunks_[c] = nullptr;
  --mappedChunks_;
  ++chunkUnmaps_;
}

void ScheduleEntries::stopTrim() noexcept {
  if (trimArmed_) home_.isolate->clearTimeout(trimTimer_);  // disposes: onTrimDropped
  trimArmed_ = false;
}

ScheduleMemory ScheduleEntries::memory() const noexcept {
  ScheduleMemory m;
  m.chunks = mappedChunks_;
  m.reservedBytes = mappedChunks_ * kChunkBytes + chunks_.capacity() * sizeof(Entry*) +
                    chunkInfo_.capacity() * sizeof(Chunk) + roomy_.bytes() + empty_.bytes();
  m.chunkMaps = chunkMaps_;
  m.chunkUnmaps = chunkUnmaps_;
  return m;
}

}  // namespace coreactor::detail
