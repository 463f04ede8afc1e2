// One actor's system line: the system messages that come to it (start,
// stop, watch, supervision, moves, an ask's reply or a coroutine's
// resumption), what of them waits for a turn, and the order its turn runs
// them in (runtime/SystemLine.cpp). What each one does is the cell's
// lifecycle (CellLifecycle.hpp). Everything here runs on the actor's
// isolate.
#pragma once

#include <memory>
#include <optional>

#include "ObjectRing.hpp"
#include "SystemMessage.hpp"

namespace coreactor::detail {

class ActorCell;

/// The system line of one cell (ActorCell::systemLine()): made for a call,
/// it holds nothing but the cell. The cell's pending flags say in one byte
/// what waits (a Start, a Stop, lined-up continuations, queued messages),
/// so that its common turn tests them once; what the flags do not hold
/// (Data) is in its rare part.
class SystemLine {
 public:
  // System messages the pending flags do not hold: the oldest in `first`
  // while the ring is empty, the rest in the ring. An asking actor's
  // replies (Continue) come one at a time and take no ring buffer, which
  // the ring would otherwise take and give back around every ask.
  struct Queue {
    std::optional<SystemMessage> first;
    ObjectRing<SystemMessage> ring;
    bool empty() const noexcept { return !first && ring.empty(); }
    void push(SystemMessage&& message) {
      if (!first && ring.empty()) {
        first.emplace(std::move(message));
      } else {
        ring.push(std::move(message));
      }
    }
    /// Precondition: !empty().
    SystemMessage pop() {
      if (!first) return ring.pop();
      SystemMessage message = std::move(*first);
      first.reset();
      return message;
    }
    void shrinkIdle() noexcept { ring.shrinkIdle(); }
  };
  struct Data {
    Data() = default;
    Data(const Data&) = delete;
    Data& operator=(const Data&) = delete;
    ~Data() {
      while (Continuation* c = firstContinuation) {
        firstContinuation = c->next;
        delete c;
      }
    }
    Queue queue;
    // Continue messages (an ask's reply, a coroutine's resumption) that came
    // while no other system message was queued: a line through the
    // continuations themselves, owned, older than everything in `queue`.
    // A reply moves no SystemMessage in or out of a queue.
    Continuation* firstContinuation = nullptr;
    Continuation* lastContinuation = nullptr;
  };

  explicit SystemLine(ActorCell& cell) noexcept : cell_(cell) {}

  /// A system message from the send path. Isolate-local.
  void enqueue(SystemMessage&& message);
  /// A Continue (an ask's reply, a coroutine's resumption), isolate-local:
  /// enqueue() without building a SystemMessage when none is queued.
  void enqueueContinue(std::unique_ptr<Continuation> continuation);
  /// The Start of a cell just made, on this thread, its isolate: its flag
  /// is set from its making, so this only gives it a turn, what enqueue()
  /// of the Start would do after finding it there.
  void enqueueStart();
  /// Queues a system message behind the pending flags, and says so in them.
  void push(SystemMessage&& message);
  /// System messages are queued (behind the pending flags).
  bool queued() const noexcept;
  /// The oldest queued system message. Precondition: queued().
  SystemMessage pop();
  /// The lined-up continuations of a cell that stopped: dropped (a reply, a
  /// dead letter).
  void dropContinuations(const char* reason);
  /// A Continue that came while the actor was suspended: kept until its
  /// parent resumes it (releaseHeld()) or it stops or restarts (dropHeld()).
  void hold(std::unique_ptr<Continuation> continuation);
  /// The actor resumed: what was held goes back into the line, in order.
  void releaseHeld();
  /// The actor stops or restarts: what was held is dropped.
  void dropHeld(const char* reason) noexcept;

  /// The system messages of a turn, oldest first: the pending Start, the
  /// pending Stop, the lined-up continuations, then the queue. Static: the
  /// turn calls it with the cell in hand, as it calls its own.
  [[gnu::noinline]] static void run(ActorCell& cell);

 private:
  /// Lines up a Continue while no other system message is queued.
  void pushContinuation(std::unique_ptr<Continuation> continuation);
  /// Runs the lined-up continuations, oldest first.
  void runContinuations();

  ActorCell& cell_;
};

}  // namespace coreactor::detail
