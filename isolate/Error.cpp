#include "coreactor/Error.hpp"

namespace coreactor {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "coreactor"; }

  std::string message(int code) const override {
    switch (static_cast<Error>(code)) {
      case Error::ErrActorSystemNotStarted:
        return "ErrActorSystemNotStarted: the actor system is not running";
      case Error::ErrInvalidInterval:
        return "ErrInvalidInterval: a delay or interval must be a positive duration";
      case Error::ErrScheduleAlreadyExists:
        return "ErrScheduleAlreadyExists: a schedule already holds this reference";
      case Error::ErrScheduleNotFound:
        return "ErrScheduleNotFound: no schedule holds this reference";
      case Error::ErrDead:
        return "ErrDead: the target has already stopped";
      case Error::ErrInvalidDelay:
        return "ErrInvalidDelay: a timer delay must not be negative";
      case Error::ErrInvalidYieldEvery:
        return "ErrInvalidYieldEvery: a hybrid dispatcher needs a yield budget of at least 1";
      case Error::ErrInvalidThroughput:
        return "ErrInvalidThroughput: a throughput must be at least 1";
      case Error::ErrIsolateStopped:
        return "ErrIsolateStopped: the isolate has stopped and takes no more work";
      case Error::ErrIsolateRunning:
        return "ErrIsolateRunning: the isolate's loop is already running";
      case Error::ErrNotOnIsolate:
        return "ErrNotOnIsolate: this call is isolate-local and was made from another thread";
      case Error::ErrDispatcherBoundElsewhere:
        return "ErrDispatcherBoundElsewhere: a dispatcher instance serves exactly one isolate";
      case Error::ErrDispatcherNotClonable:
        return "ErrDispatcherNotClonable: the dispatcher cannot be copied for another isolate";
      case Error::ErrAskTimeout:
        return "ErrAskTimeout: no reply arrived within the ask's timeout";
      case Error::ErrInvalidTimeout:
        return "ErrInvalidTimeout: a timeout must be a positive duration";
      case Error::ErrDuplicateName:
        return "ErrDuplicateName: an actor with this name already exists under the same parent";
      case Error::ErrMailboxFull:
        return "ErrMailboxFull: the bounded mailbox is full";
      case Error::ErrInvalidCapacity:
        return "ErrInvalidCapacity: a bounded mailbox needs a capacity of at least 1";
      case Error::ErrIsolateOutOfRange:
        return "ErrIsolateOutOfRange: the system has no isolate with this index";
      case Error::ErrInvalidOption:
        return "ErrInvalidOption: an option is out of its range";
      case Error::ErrUnexpectedReply:
        return "ErrUnexpectedReply: the reply to an ask has another type than the one asked for";
      case Error::ErrNotManual:
        return "ErrNotManual: the system runs its isolates on threads; it is not driven by hand";
      case Error::ErrWouldDeadlock:
        return "ErrWouldDeadlock: the wait would block the only thread that can complete it";
      case Error::ErrInvalidCron:
        return "ErrInvalidCron: a cron expression that does not parse or can never fire";
      case Error::ErrNotSerializable:
        return "ErrNotSerializable: the message's type is not registered to cross between "
               "processes";
      case Error::ErrUnknownRemoteType:
        return "ErrUnknownRemoteType: the bytes name a remote type this process has not "
               "registered";
      case Error::ErrRemoteTypeClash:
        return "ErrRemoteTypeClash: a remote type's name or id is already registered for "
               "another type";
      case Error::ErrMalformedFrame:
        return "ErrMalformedFrame: bytes from another process that do not decode";
      case Error::ErrMessageTooLarge:
        return "ErrMessageTooLarge: a message for another process is larger than the limit";
      case Error::ErrUnknownTimeZone:
        return "ErrUnknownTimeZone: the system's time-zone database has no zone of that name";
      case Error::ErrNotMovable:
        return "ErrNotMovable: the actor is pinned to its isolate, or bound to it (its own "
               "dispatcher, or it used its isolate directly)";
      case Error::ErrInvalidPoolSize:
        return "ErrInvalidPoolSize: a router pool of size 0, or larger than the system allows";
      case Error::ErrNoRouteKey:
        return "ErrNoRouteKey: a message to a consistent-hash router gives no key";
      case Error::ErrStashFull:
        return "ErrStashFull: the actor's stash is at its capacity";
      case Error::ErrInvalidBackoff:
        return "ErrInvalidBackoff: backoff delays must be positive with the least no larger "
               "than the most, and the jitter within [0, 1]";
      case Error::ErrInvalidResizer:
        return "ErrInvalidResizer: resizer bounds that cross, or a resizer setting out of range";
    }
    return "unknown coreactor error " + std::to_string(code);
  }
};

}  // namespace

const std::error_category& errorCategory() noexcept {
  static const Category category;
  return category;
}

void throwError(Error e, const std::string& what) {
  throw std::system_error(make_error_code(e), what);
}

}  // namespace coreactor
