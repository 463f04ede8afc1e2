// One actor's coroutine handlers (Coroutines.hpp): a handler started as a
// coroutine and kept while it is suspended, its resumption inside a turn of
// the actor, and the frames a stop or a restart destroys. Everything here
// runs on the actor's isolate.
#include "Coroutines.hpp"

#include <algorithm>

#include "SystemCore.hpp"
#include "coreactor/Async.hpp"

namespace coreactor::detail {

ActorCell::AsyncState* ActorCell::Coroutines::state() const noexcept {
  return cell_.flags_.any(CellFlags::kAsync) ? cell_.rare_->async.get() : nullptr;
}

bool ActorCell::Coroutines::suspended() const noexcept {
  const AsyncState* st = state();
  return st != nullptr && (static_cast<bool>(st->awaiting) || !st->inflight.empty());
}

void ActorCell::Coroutines::run(AsyncActor& actor, ReceiveContext& ctx) {
  if (!cell_.flags_.any(CellFlags::kAsync)) {
    cell_.rare().async = std::make_unique<AsyncState>(ReceiveContext(cell_));
    cell_.flags_.set(CellFlags::kAsync, true);
  }
  AsyncState& st = *cell_.rare_->async;
  const bool reentrant = actor.reentrant();
  if (!reentrant) {
    // The handler may suspend: keep its message where the coroutine can reach it.
    st.current = Envelope{std::move(*ctx.message_), ctx.sender_};
    st.ctx.message_ = &st.current.message;
    st.ctx.sender_ = st.current.sender;
  } else {
    st.ctx.message_ = ctx.message_;
    st.ctx.sender_ = ctx.sender_;
  }
  const std::uint64_t token = st.nextToken++;
  st.running = token;
  Async::Handle h = actor.receiveAsync(st.ctx).release();
  if (reentrant) {
    st.ctx.message_ = nullptr;  // the message was the turn's: gone when it ends
    st.ctx.sender_ = ActorRef();
  }
  if (h.done()) {
    std::exception_ptr error = h.promise().error;
    h.destroy();
    if (error) std::rethrow_exception(error);  // to supervision, via invoke
    return;
  }
  if (!reentrant) {
    st.awaiting = h;
    st.awaitingToken = token;
  } else {
    st.inflight.emplace_back(h, token);
  }
}

std::uint64_t ActorCell::Coroutines::running() const noexcept {
  const AsyncState* st = state();
  return st != nullptr ? st->running : 0;
}

bool ActorCell::Coroutines::live(std::coroutine_handle<> h, std::uint64_t token) const noexcept {
  const AsyncState* st = state();
  if (st == nullptr || cell_.state_ >= State::Terminating) return false;
  if (st->awaiting == h && st->awaitingToken == token) return true;
  return std::find(st->inflight.begin(), st->inflight.end(), std::make_pair(h, token)) !=
         st->inflight.end();
}

void ActorCell::Coroutines::resume(std::coroutine_handle<> h, std::uint64_t token) {
  if (!live(h, token)) return;
  AsyncState& st = *state();
  st.running = token;
  h.resume();
  if (!h.done()) return;
  std::exception_ptr error = Async::Handle::from_address(h.address()).promise().error;
  if (st.awaiting == h) {
    st.awaiting = {};
    st.current = Envelope{};
  } else {
    std::erase(st.inflight, std::make_pair(h, token));
  }
  h.destroy();
  if (error) {
    CellLifecycle::fail(cell_, error);  // SPEC A11: a throw after an await reaches supervision
  } else {
    cell_.moves().retry();  // a move that waited for this handler to finish
  }
}

void ActorCell::Coroutines::destroy() noexcept {
  AsyncState* st = state();
  if (st == nullptr) return;
  if (st->awaiting) st->awaiting.destroy();
  st->awaiting = {};
  for (auto& [h, token] : st->inflight) h.destroy();
  st->inflight.clear();
  st->current = Envelope{};
}

}  // namespace coreactor::detail
