/// @file
/// `coreactor/SupervisorStrategy.hpp` — how a supervisor answers a child's
/// failure (requirement A6): the Directive for the cause, which children it
/// applies to, and how many restarts a child may have. A value, asked for on
/// each failure (Actor::supervisorStrategy); docs/supervision.md.
#pragma once

#include <chrono>
#include <exception>
#include <functional>

namespace coreactor {

// ---- supervision ---------------------------------------------------------------

/// What a supervisor does with a child that failed (requirement A6).
enum class Directive {
  Resume,    ///< keep the child's state and go on; the failed message is skipped
  Restart,   ///< a new instance in place of the old: same reference, same mailbox
  Stop,      ///< stop the child (its children first)
  Escalate,  ///< fail the supervisor itself with the same cause: its parent decides
             ///< (under the user guardian, at the top, this stops the child)
};

/// How a supervisor answers a child's failure: the directive for the cause,
/// which children it applies to, and how many restarts a child may have
/// before it is stopped instead. A value, asked for on each failure
/// (Actor::supervisorStrategy).
class SupervisorStrategy {
 public:
  /// Picks the directive from the failure's cause. A decider that throws escalates.
  using Decider = std::function<Directive(const std::exception_ptr& cause)>;
  /// Which children a directive applies to.
  enum class Kind {
    OneForOne,  ///< the failed child only
    AllForOne,  ///< every child of the supervisor (Resume resumes the failed one only)
  };

  /// Applies the decision to the failed child only. A child restarted more
  /// than `maxRestarts` times within `window` is stopped instead (a negative
  /// maxRestarts means no limit).
  static SupervisorStrategy oneForOne(Decider decider = restartAlways, int maxRestarts = -1,
                                      std::chrono::milliseconds window = std::chrono::minutes(1));
  /// Applies the decision to all children of the supervisor.
  static SupervisorStrategy allForOne(Decider decider = restartAlways, int maxRestarts = -1,
                                      std::chrono::milliseconds window = std::chrono::minutes(1));
  /// The default: one-for-one, restart, no limit.
  static SupervisorStrategy defaultStrategy() { return oneForOne(); }

  /// The default decider: Restart, whatever the cause.
  static Directive restartAlways(const std::exception_ptr&) { return Directive::Restart; }

  /// One-for-one or all-for-one.
  Kind kind() const noexcept { return kind_; }
  /// The directive for `cause`: the decider's, or Restart without one.
  Directive decide(const std::exception_ptr& cause) const {
    return decider_ ? decider_(cause) : Directive::Restart;
  }
  /// Restarts a child may have within window(); negative: no limit.
  int maxRestarts() const noexcept { return maxRestarts_; }
  /// The time over which maxRestarts() is counted.
  std::chrono::milliseconds window() const noexcept { return window_; }

 private:
  Kind kind_ = Kind::OneForOne;
  Decider decider_;
  int maxRestarts_ = -1;
  std::chrono::milliseconds window_{60000};
};

}  // namespace coreactor
