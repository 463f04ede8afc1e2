/// @file
/// `coreactor/Error.hpp` — the named errors of coreactor.
//
// Every failure coreactor reports is a std::error_code of one category,
// `coreactor::errorCategory()`, whose enumerators are the sentinels the
// reference documents name (ErrScheduleNotFound, ...) plus the ones the C++
// runtime adds (ErrIsolateStopped, ...). Calls that fail synchronously throw
// `std::system_error` carrying the code; futures fail with the same exception.
//
// Thread-safety: everything here is stateless and callable from anywhere.
// docs/errors.md lists every code: when it arises and what the caller sees.
#pragma once

#include <exception>
#include <string>
#include <system_error>
#include <type_traits>

namespace coreactor {

/// The named errors: the values of every std::error_code coreactor reports,
/// in errorCategory(). docs/errors.md says when each arises.
enum class Error : int {
  // Scheduler sentinels (requirement S12).
  ErrActorSystemNotStarted = 1,  ///< The system is stopping or stopped.
  ErrInvalidInterval,            ///< A schedule's delay or interval that is not positive.
  ErrScheduleAlreadyExists,      ///< A schedule reference that a live schedule holds.
  ErrScheduleNotFound,           ///< No live schedule holds the reference (or handle).
  ErrDead,                       ///< The target has stopped, never existed, or is none.
  // Loop and dispatcher errors.
  ErrInvalidDelay,              ///< A timer delay below zero.
  ErrInvalidYieldEvery,         ///< HybridDispatcher(0).
  ErrInvalidThroughput,         ///< A throughput of 0 (dispatcher or actor).
  ErrIsolateStopped,            ///< Work posted to an isolate that has stopped.
  ErrIsolateRunning,            ///< run()/start() on an isolate whose loop already runs.
  ErrNotOnIsolate,              ///< An isolate-local call made from another thread.
  ErrDispatcherBoundElsewhere,  ///< One dispatcher instance handed to a second isolate.
  ErrDispatcherNotClonable,     ///< A dispatcher that must become one instance per isolate cannot.
  // Actor runtime errors.
  ErrAskTimeout,         ///< No reply to an ask within its timeout.
  ErrInvalidTimeout,     ///< An ask timeout that is not a positive duration.
  ErrDuplicateName,      ///< A second child (or top-level actor) with the same name.
  ErrMailboxFull,        ///< A bounded mailbox with the Fail policy refused a message.
  ErrInvalidCapacity,    ///< A bounded mailbox of capacity 0.
  ErrIsolateOutOfRange,  ///< An isolate index the system does not have.
  ErrInvalidOption,      ///< Any other option out of its range (named in the message).
  ErrUnexpectedReply,    ///< An ask answered with a message of another type than asked for.
  ErrNotManual,          ///< runUntilIdle() on a system whose isolates run on threads.
  ErrWouldDeadlock,      ///< A blocking wait for work only the waiting thread could do.
  ErrInvalidCron,        ///< A cron expression that does not parse or can never fire.
  ErrNotSerializable,    ///< A message of a type not registered to cross between processes.
  ErrUnknownRemoteType,  ///< Bytes naming a remote type id this process has not registered.
  ErrRemoteTypeClash,    ///< A remote type name or id registered twice for different types.
  ErrMalformedFrame,     ///< Bytes from another process that do not decode.
  ErrMessageTooLarge,    ///< A message for another process larger than the configured limit.
  ErrUnknownTimeZone,    ///< A time-zone name the system's tz database does not have.
  ErrNotMovable,         ///< A move of a pinned actor, or of one bound to its isolate.
  // Routers and behaviour tools.
  ErrInvalidPoolSize,  ///< A router pool of size 0, or larger than the system allows.
  ErrNoRouteKey,       ///< A message to a consistent-hash router that gives no key.
  ErrStashFull,        ///< A stash past the actor's stash capacity.
  ErrInvalidBackoff,   ///< Backoff delays that are not positive or that cross, or a bad jitter.
  ErrInvalidResizer,   ///< Resizer bounds that cross, or a resizer setting out of its range.
};

/// The category of every coreactor error code; its name is "coreactor".
const std::error_category& errorCategory() noexcept;

/// `e` as a std::error_code of errorCategory(). Found by argument-dependent
/// lookup: this is what lets an Error convert to std::error_code.
inline std::error_code make_error_code(Error e) noexcept {  // NOLINT: ADL hook name
  return {static_cast<int>(e), errorCategory()};
}

/// Throws std::system_error carrying `e`, with `what` naming the offending input.
[[noreturn]] void throwError(Error e, const std::string& what);

/// One line describing a caught exception: its what(), or "unknown exception"
/// ("no exception" for none). Header-only, so that a program that does not
/// link coreactor (the benchmark's CAF arm) describes throws the same way.
inline std::string describe(const std::exception_ptr& error) {
  if (!error) return "no exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace coreactor

/// Makes coreactor::Error an error code enum (see make_error_code).
template <>
struct std::is_error_code_enum<coreactor::Error> : std::true_type {};
