// transport::ForeignInbox — messages for one isolate from foreign threads
// (the main thread, a thread pool, a library's callback): a lock-free MPSC
// queue of letters (moodycamel's ConcurrentQueue), drained by the isolate's
// loop as one of its pollers, in batches. What a letter is and what becomes
// of it is the Receiver's (a template parameter, as for transport::Link):
// the runtime's is runtime/ForeignReceiver.hpp, which instantiates this
// with transport/ForeignInbox.ipp. A letter is the message and its sender,
// moved in once and out once: no task, no allocation per message beyond the
// queue's own blocks.
//
// A Feeder (coreactor/Feeder.hpp) gathers its letters for this isolate in a
// *parcel* (a vector of letters) and queues the parcel itself, one pointer,
// in a second queue with a producer token of its own: a batch costs one
// enqueue of one item and one wake-up, and the loop delivers straight from
// the parcel. Each letter is written once by the producer and read once by
// the loop; a bulk enqueue of the letters themselves moved each one again,
// into the queue's blocks, and again out of them (bench
// isolates/foreign/feeder).
//
// Order: one thread's letters to one actor keep their order (the queue is
// FIFO per producer), system messages and asks' requests included (a stop
// or an ask after a tell from the same thread lands after it). A Feeder is
// a producer of its own: its parcels keep their order (FIFO per producer
// token), and its letters theirs within each parcel; they have none against
// the same thread's plain tells.
//
// Fairness: the loop delivers at most kBatch letters per look, plain ones
// first, then from parcels; a parcel larger than what is left of the batch
// stays open, and the rest of it is delivered at the next look.
//
// Waking, as the isolate's inbox does: a producer queues, raises the
// letters flag and calls Isolate::wake(), which fences and makes a system
// call only if the loop sleeps; the loop looks at the flag once per
// iteration, between macrotasks, and after raising its sleeping flag
// (pending()), so no letter waits for a wake-up that never comes.
//
// Stop (requirement X2): after the loops have stopped, closeAndDrain() shuts
// the inbox, waits for the producers inside put(), and turns what is left
// into dead letters; a put() after that returns false, and its caller
// dead-letters the message itself. Nothing is lost silently.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <concurrentqueue/concurrentqueue.h>

#include "coreactor/Isolate.hpp"

namespace coreactor::transport {

// Receiver: `using Letter = ...` (movable, default-constructible);
// `void deliver(Letter&) noexcept` on the loop; `void drop(Letter&) noexcept`
// from any thread, for a letter that will not be delivered.
template <class Receiver>
class ForeignInbox final : public detail::Poller {
 public:
  /// What one message from another thread is: the receiver's.
  using Letter = typename Receiver::Letter;
  using Queue = moodycamel::ConcurrentQueue<Letter>;
  /// A batch of letters that travels as one item (putParcel()).
  using Parcel = std::vector<Letter>;
  /// Delivered parcels kept to be filled again, so that a Feeder writes
  /// into memory its cores have seen instead of fresh pages: at most this
  /// many per inbox, each with room for at most kSpareLettersAtMost letters
  /// (320 KiB at most in all; 80 KiB with the Feeder's default batch).
  static constexpr std::size_t kSpareParcels = 4;
  static constexpr std::size_t kSpareLettersAtMost = 1024;
  /// Letters taken per loop iteration.
  static constexpr std::size_t kBatch = 256;

  /// An inbox of `isolate`'s loop that hands what it takes to `receiver`.
  ForeignInbox(Receiver receiver, Isolate& isolate);
  ~ForeignInbox() override;
  ForeignInbox(const ForeignInbox&) = delete;
  ForeignInbox& operator=(const ForeignInbox&) = delete;

  /// Any thread: queues `letter` and wakes the loop. False, nothing queued
  /// (the letter left as it was), once the inbox is closed.
  bool put(Letter&& letter);
  /// Any thread: queues `parcel`, all its letters in their order, as one
  /// item with `token` (a producer's own, made by makeParcelToken()) and
  /// wakes the loop once; `parcel` is taken (null afterwards). False,
  /// nothing queued and `parcel` kept, once closed.
  bool putParcel(moodycamel::ProducerToken& token, std::unique_ptr<Parcel>& parcel);
  /// put() for callers that take turns (one at a time, serialized by a lock
  /// of theirs) from different threads: the letters of all of them keep
  /// the order in which they were put, as one producer's do. The cluster's
  /// link, whose work moves between its thread and the loops.
  bool putInTurn(Letter&& letter);
  /// Any thread: a delivered parcel to fill again, empty with its room
  /// kept, or null when none is spare.
  std::unique_ptr<Parcel> spareParcel() noexcept;
  /// A producer token of this inbox's parcel queue, for putParcel().
  moodycamel::ProducerToken makeParcelToken() { return moodycamel::ProducerToken(parcels_); }
  /// Letters queued and not yet delivered, those in parcels included
  /// (approximate while others put). Any thread.
  std::size_t sizeApprox() const noexcept {
    return queue_.size_approx() + parcelLetters_.load(std::memory_order_relaxed);
  }

  /// Takes a batch if the letters flag is up: an empty inbox costs the loop
  /// one load, not a walk over the queue's producers.
  void poll() override;
  /// On the home loop, in place of a put: delivers `letter` now, as a batch
  /// taken from the queue would be. For a producer that runs on that loop
  /// and whose earlier letters are all delivered (nothing pending()), so
  /// that its letters keep their order.
  void deliverNow(Letter& letter) noexcept { receiver_.deliver(letter); }
  /// No look between units: a drain that has no other poller stays the
  /// plain one, and what comes from other threads waits at most for the
  /// end of the drain, as posted tasks do.
  bool looksBetweenUnits() const noexcept override { return false; }
  bool pending() const noexcept override {
    return letters_.load(std::memory_order_seq_cst) || queue_.size_approx() != 0 ||
           parcels_.size_approx() != 0 || opened_ != nullptr;
  }
  /// From the idle poll window: the flag alone.
  bool ready() const noexcept override { return letters_.load(std::memory_order_relaxed); }

  /// Any thread: a letter that will not be delivered, its isolate stopped
  /// (closeAndDrain(), a Feeder's parcel that put found closed): the
  /// receiver's drop() accounts for it.
  void drop(Letter& letter) noexcept { receiver_.drop(letter); }
  /// After the loops have stopped: refuses further letters, waits for the
  /// puts in progress, and dead-letters what is queued.
  void closeAndDrain() noexcept;

 private:
  /// Delivers up to `batch` letters into this isolate's actors; how many.
  std::size_t take(std::size_t batch);
  /// take()'s part for parcels: up to `budget` letters from the open parcel
  /// and the ones queued after it.
  std::size_t openParcels(std::size_t budget);
  /// A delivered parcel becomes a spare (up to kSpareParcels of at most
  /// kSpareLettersAtMost letters' room), or is freed.
  void recycle(std::unique_ptr<Parcel> parcel) noexcept;
  /// After a put: raises the letters flag and wakes the loop.
  void announce();
  /// Enters a put; false (and nothing held) once closed.
  bool enter() noexcept;
  void leave() noexcept { writers_.fetch_sub(1, std::memory_order_release); }

  Receiver receiver_;
  Isolate& isolate_;
  Queue queue_;
  moodycamel::ProducerToken inTurn_{queue_};  // putInTurn()'s: one producer, whoever holds the turn
  std::vector<Letter> taken_;                 // what one take() dequeued; the loop's only
  moodycamel::ConcurrentQueue<Parcel*> parcels_;  // owned: each is deleted once delivered
  std::unique_ptr<Parcel> opened_;                // the parcel being delivered; the loop's only
  // Delivered parcels, for spareParcel(): a lock taken once per parcel on
  // each side.
  std::mutex sparesMutex_;
  std::array<Parcel*, kSpareParcels> spares_{};
  std::size_t spareCount_ = 0;
  std::size_t openedAt_ = 0;                           // its next letter
  alignas(64) std::atomic<std::uint32_t> writers_{0};  // puts in progress
  // Letters in queued parcels and the open one: added before a parcel is
  // queued, taken off as the loop delivers.
  std::atomic<std::size_t> parcelLetters_{0};
  std::atomic<bool> closed_{false};
  // Up from a put until the loop takes: the loop's look at an empty inbox
  // is one load of this line, which the loop itself writes only when the
  // flag was up.
  std::atomic<bool> letters_{false};
};

}  // namespace coreactor::transport
