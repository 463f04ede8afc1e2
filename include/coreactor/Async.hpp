/// @file
/// `coreactor/Async.hpp` — handlers that are C++20 coroutines (requirement A11).
//
//   struct Fetcher : coreactor::AsyncActor {
//     coreactor::Async receiveAsync(coreactor::ReceiveContext& ctx) override {
//       auto price = co_await ctx.ask<int>(pricer, Quote{}, 1s);  // an AskResult<int>
//       if (!price) co_return;                // ErrAskTimeout, ErrDead, ...
//       co_await ctx.delay(10ms);
//       ctx.reply(price.value() * 2);
//     }
//   };
//
// Non-reentrant by default: while a handler is suspended in a co_await, the
// actor takes no other message; the next one is handled once the coroutine
// has finished, so its state changes exactly as with a plain handler. System
// work (stop, supervision) is not held up: a stop or a restart destroys the
// suspended coroutine. A throw after an await goes to supervision like any
// throw from a handler. The context and the current message stay valid
// across awaits.
//
// Re-entrant (override reentrant() to return true): the actor keeps taking
// messages while coroutines are suspended, and several may be in flight. Then
// ctx.message() and ctx.sender() belong to whichever message is current:
// copy what you need before the first co_await.
//
// Resumption always happens on the actor's isolate, inside one of its turns.
// Cost: one coroutine frame (a heap allocation) per message handled.
#pragma once

#include <chrono>
#include <coroutine>
#include <exception>
#include <utility>

#include "coreactor/Actor.hpp"

namespace coreactor {

/// What a coroutine handler returns (AsyncActor::receiveAsync): the owner of
/// its coroutine frame, which the runtime takes over.
class Async {
 public:
  /// The coroutine's promise: the handler starts at once and, once finished,
  /// keeps its frame for the runtime to read `error` and destroy it.
  struct promise_type {
    std::exception_ptr error;  ///< what the handler threw, for supervision
    /// The Async that owns this frame.
    Async get_return_object() noexcept {
      return Async(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    /// Runs the handler at once, up to its first suspension.
    std::suspend_never initial_suspend() noexcept { return {}; }
    /// Keeps the finished frame: its owner destroys it.
    std::suspend_always final_suspend() noexcept { return {}; }
    /// `co_return;` gives nothing.
    void return_void() noexcept {}
    /// Keeps the throw in `error`.
    void unhandled_exception() noexcept { error = std::current_exception(); }
  };
  /// The coroutine's handle.
  using Handle = std::coroutine_handle<promise_type>;

  /// Takes over `other`'s frame; `other` is left empty.
  Async(Async&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  /// Destroys this frame, if any, and takes over `other`'s.
  Async& operator=(Async&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Async(const Async&) = delete;
  Async& operator=(const Async&) = delete;
  ~Async() {
    if (handle_) handle_.destroy();
  }

  /// Gives up ownership of the frame.
  Handle release() noexcept { return std::exchange(handle_, {}); }

 private:
  explicit Async(Handle h) noexcept : handle_(h) {}
  Handle handle_;
};

/// An actor whose handler is a coroutine.
class AsyncActor : public Actor {
 public:
  /// Handles the current message as a coroutine. What stays valid across
  /// its awaits depends on reentrant(): see the file comment.
  virtual Async receiveAsync(ReceiveContext& ctx) = 0;
  /// Opt in to taking messages while a handler is suspended.
  virtual bool reentrant() const { return false; }
  void receive(ReceiveContext& ctx) final;
};

}  // namespace coreactor
