// The reply slot of one ask (SPEC A3): an entry of an isolate's actor table
// that the target answers as it would an actor, with its timeout. From
// outside the system its completion runs where the slot lives (the target's
// isolate); from an actor, the slot itself becomes the continuation that
// carries the reply into the asker's turn. runtime/Ask.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <system_error>

#include "ActorTable.hpp"
#include "AskTimeouts.hpp"
#include "IsolateRuntime.hpp"
#include "SystemMessage.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Task.hpp"
#include "isolate/BlockCache.hpp"

namespace coreactor::detail {

class SystemCore;

// The reply slot of one ask. From outside, its completion runs where the
// slot lives; from an actor, the slot itself becomes the continuation that
// carries the reply into the asker's turn (no further allocation).
class AskEndpoint final : public Endpoint,
                          public Task,
                          public Continuation,
                          public AskTimeouts::Entry {
 public:
  AskEndpoint(IsolateRuntime& home, std::uint32_t slot, AskCompletion completion);
  AskEndpoint(IsolateRuntime& home, std::uint32_t slot, const ActorRef& asker,
              AskContinuation continuation);
  ~AskEndpoint() override;
  AskEndpoint(const AskEndpoint&) = delete;
  AskEndpoint& operator=(const AskEndpoint&) = delete;
  void run(ReceiveContext& ctx) override;
  Message* carried() noexcept override { return &reply_; }
  /// Isolate-local: arms the timeout (in its isolate's AskTimeouts, or a
  /// timer of its own when those lanes are all taken).
  void arm(std::chrono::nanoseconds timeout);
  /// Completes once: cancels the timer, frees the slot, runs the completion, deletes itself.
  /// `fromRing`: the reply was just taken from another isolate's ring
  /// (CrossingReceiver), where an idle asker's continuation may run at once
  /// (CellTurn::onContinuation) instead of in a turn of its own.
  void complete(Message* reply, std::error_code error, bool fromRing = false) noexcept;
  /// Isolate-local: goes without completing (an ask whose call threw
  /// before its request left): cancels the timer, frees the slot, deletes itself.
  void dismiss() noexcept;

  // Reply slots come and go at the rate of asks: their memory recycles
  // through the thread's block cache (its smallest class) instead of a
  // malloc and a free each (callgrind: 95 of an ask's ~1,700 instructions
  // went to operator delete alone). The caches hold plain blocks, so a
  // slot made on one thread (an ask from outside) may be freed on another.
  static void* operator new(std::size_t size) {
    static_assert(sizeof(AskEndpoint) <= BlockCache::kSmallest);
    static_cast<void>(size);
    return BlockCache::local().get(0);
  }
  static void operator delete(void* block) noexcept { BlockCache::local().put(block, 0); }

 private:
  static void onTimeout(Task& task);
  static void onDiscard(Task& task) noexcept;
  SystemCore& core() const noexcept;
  IsolateRuntime& home_;
  std::uint32_t slot_;
  ActorRef asker_;  // none for an ask from outside
  union {
    AskCompletion completion_;      // from outside
    AskContinuation continuation_;  // from an actor (asker_)
  };
  Message reply_;
  // The outcome's error, set by complete(), in parts: a default
  // std::error_code would cost a call (std::system_category()) per ask.
  const std::error_category* errorCategory_ = nullptr;  // null: a reply
  int errorValue_ = 0;
  TimerId timer_;
  bool completing_ = false;
};

}  // namespace coreactor::detail
