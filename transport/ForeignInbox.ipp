// transport::ForeignInbox's members (ForeignInbox.hpp), included once by
// the translation unit that instantiates it with its receiver
// (runtime/ForeignReceiver.cpp).
#pragma once

#include <algorithm>
#include <iterator>
#include <new>
#include <thread>
#include <utility>

#include "transport/ForeignInbox.hpp"

namespace coreactor::transport {

// Nothing is allocated before the first letter: an isolate no other thread
// feeds pays the queue's header only (bench isolates/memory/<n>). The queue
// takes its blocks, and take() its batch, as letters come.
template <class Receiver>
ForeignInbox<Receiver>::ForeignInbox(Receiver receiver, Isolate& isolate)
    : receiver_(std::move(receiver)), isolate_(isolate), queue_(0), parcels_(0) {}

template <class Receiver>
ForeignInbox<Receiver>::~ForeignInbox() {
  closeAndDrain();
}

template <class Receiver>
bool ForeignInbox<Receiver>::enter() noexcept {
  // Against closeAndDrain(): either it sees this writer and waits, or this
  // writer sees the inbox closed (both sides seq_cst).
  writers_.fetch_add(1, std::memory_order_seq_cst);
  if (closed_.load(std::memory_order_seq_cst)) {
    leave();
    return false;
  }
  return true;
}

template <class Receiver>
bool ForeignInbox<Receiver>::put(Letter&& letter) {
  if (!enter()) return false;
  bool queued;
  try {
    queued = queue_.enqueue(std::move(letter));
  } catch (...) {
    leave();
    throw;
  }
  leave();
  if (!queued) throw std::bad_alloc();  // the queue could not grow
  announce();
  return true;
}

template <class Receiver>
bool ForeignInbox<Receiver>::putInTurn(Letter&& letter) {
  if (!enter()) return false;
  bool queued;
  try {
    queued = queue_.enqueue(inTurn_, std::move(letter));
  } catch (...) {
    leave();
    throw;
  }
  leave();
  if (!queued) throw std::bad_alloc();
  announce();
  return true;
}

template <class Receiver>
bool ForeignInbox<Receiver>::putParcel(moodycamel::ProducerToken& token,
                                       std::unique_ptr<Parcel>& parcel) {
  if (parcel == nullptr || parcel->empty()) return true;
  if (!enter()) return false;
  // Counted before it is queued: the loop, which can take it only after
  // the enqueue, never counts it off first.
  const std::size_t n = parcel->size();
  parcelLetters_.fetch_add(n, std::memory_order_relaxed);
  bool queued;
  try {
    queued = parcels_.enqueue(token, parcel.get());
  } catch (...) {
    parcelLetters_.fetch_sub(n, std::memory_order_relaxed);
    leave();
    throw;
  }
  leave();
  if (!queued) {
    parcelLetters_.fetch_sub(n, std::memory_order_relaxed);
    throw std::bad_alloc();
  }
  static_cast<void>(parcel.release());  // the queue owns it now
  announce();
  return true;
}

template <class Receiver>
void ForeignInbox<Receiver>::announce() {
  // An exchange, not a store: a read-modify-write continues the release
  // sequence of every put before it, so the loop's exchange that reads the
  // flag up sees every letter whose put raised it.
  letters_.exchange(true, std::memory_order_acq_rel);
  isolate_.wake();  // fences; a system call only if the loop sleeps
}

template <class Receiver>
void ForeignInbox<Receiver>::poll() {
  if (!letters_.load(std::memory_order_relaxed)) return;
  letters_.exchange(false, std::memory_order_acq_rel);
  // A full batch may have left letters behind: the flag goes up again
  // (an exchange too, so as not to cut a producer's release sequence).
  if (take(kBatch) == kBatch) letters_.exchange(true, std::memory_order_relaxed);
}

template <class Receiver>
std::size_t ForeignInbox<Receiver>::take(std::size_t batch) {
  taken_.clear();
  const std::size_t n = queue_.try_dequeue_bulk(std::back_inserter(taken_), batch);
  for (std::size_t i = 0; i < n; ++i) receiver_.deliver(taken_[i]);
  taken_.clear();
  return n + openParcels(batch - n);
}

template <class Receiver>
std::size_t ForeignInbox<Receiver>::openParcels(std::size_t budget) {
  std::size_t done = 0;
  while (done < budget) {
    if (opened_ == nullptr) {
      Parcel* next = nullptr;
      if (!parcels_.try_dequeue(next)) break;
      opened_.reset(next);
      openedAt_ = 0;
    }
    Parcel& parcel = *opened_;
    const std::size_t end = std::min(parcel.size(), openedAt_ + (budget - done));
    done += end - openedAt_;
    for (; openedAt_ < end; ++openedAt_) receiver_.deliver(parcel[openedAt_]);
    if (openedAt_ == parcel.size()) recycle(std::move(opened_));
  }
  if (done != 0) parcelLetters_.fetch_sub(done, std::memory_order_relaxed);
  return done;
}

template <class Receiver>
void ForeignInbox<Receiver>::closeAndDrain() noexcept {
  closed_.store(true, std::memory_order_seq_cst);
  while (writers_.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  Letter letter;
  while (queue_.try_dequeue(letter)) {
    drop(letter);
    letter = Letter{};
  }
  if (opened_ != nullptr) {
    for (std::size_t i = openedAt_; i < opened_->size(); ++i) drop((*opened_)[i]);
    opened_.reset();
  }
  Parcel* parcel = nullptr;
  while (parcels_.try_dequeue(parcel)) {
    const std::unique_ptr<Parcel> owned(parcel);
    for (Letter& each : *owned) drop(each);
  }
  parcelLetters_.store(0, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(sparesMutex_);
  for (; spareCount_ != 0; --spareCount_) delete spares_[spareCount_ - 1];
}

template <class Receiver>
void ForeignInbox<Receiver>::recycle(std::unique_ptr<Parcel> parcel) noexcept {
  if (parcel->capacity() > kSpareLettersAtMost) return;
  parcel->clear();
  std::lock_guard<std::mutex> lock(sparesMutex_);
  if (spareCount_ < kSpareParcels) spares_[spareCount_++] = parcel.release();
}

template <class Receiver>
std::unique_ptr<typename ForeignInbox<Receiver>::Parcel>
ForeignInbox<Receiver>::spareParcel() noexcept {
  std::lock_guard<std::mutex> lock(sparesMutex_);
  if (spareCount_ == 0) return nullptr;
  return std::unique_ptr<Parcel>(spares_[--spareCount_]);
}

}  // namespace coreactor::transport
