/// @file
/// `coreactor/AskResult.hpp` — how an ask from an actor ended
/// (ReceiveContext::ask, `co_await ctx.ask`): the reply, or a named error.
/// A value of the actor's isolate.
#pragma once

#include <system_error>
#include <utility>

#include "coreactor/Error.hpp"
#include "coreactor/Message.hpp"

namespace coreactor {

// ---- ask results -----------------------------------------------------------------

/// How an ask from an actor ended: the reply, or a named error
/// (ErrAskTimeout, ErrDead, ErrUnexpectedReply). An ask still pending when
/// the system stops has no callback run: its actor is gone too.
template <class R>
class AskResult {
 public:
  /// A placeholder for the awaiter to assign once the ask completes; not a
  /// result to read (it holds neither a reply nor an error).
  AskResult() = default;
  /// The result of a completed ask: `error` if set; otherwise the reply if it
  /// holds an R, else ErrUnexpectedReply naming the type it holds.
  AskResult(Message* reply, std::error_code error) : error_(error) {
    // error_ starts as `error`: a default std::error_code would cost a call
    // (std::system_category()) on every reply.
    if (error) {
      return;
    } else if (reply != nullptr && reply->is<R>()) {
      reply_ = std::move(*reply);
    } else {
      error_ = make_error_code(Error::ErrUnexpectedReply);
      unexpected_ = reply != nullptr ? reply->typeName() : std::string_view("(nothing)");
    }
  }
  /// True when the reply is there.
  bool ok() const noexcept { return !error_; }
  /// ok().
  explicit operator bool() const noexcept { return ok(); }
  /// Why there is no reply; empty when there is one.
  std::error_code error() const noexcept { return error_; }
  /// The reply. Throws std::system_error carrying error() when there is none.
  R& value() {
    if (error_) {
      throw std::system_error(error_, unexpected_.empty()
                                          ? std::string("ask failed")
                                          : "ask answered with " + std::string(unexpected_));
    }
    return *reply_.get<R>();
  }

 private:
  Message reply_;
  std::error_code error_;
  std::string_view unexpected_;
};

}  // namespace coreactor
