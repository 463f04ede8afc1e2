// The system-wide reference namespace of the scheduler (SPEC S2): the
// ScheduleNames table (ScheduleNames.hpp) behind the SpinLock that guards
// it, one per system. A schedule made with ScheduleOptions::reference binds
// its name here, and releases it when it ends; the calls that take a
// reference find its handle here.
//
// Thread-safety: every call may come from any thread; each holds the spin
// lock for one table operation (a rehash when the table grows or shrinks:
// O(size), amortised O(1)).
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>

#include "coreactor/Schedule.hpp"
#include "runtime/schedule/ScheduleNames.hpp"
#include "runtime/schedule/SpinLock.hpp"

namespace coreactor::detail {

class ScheduleNamespace {
 public:
  /// Binds `reference` to `handle` and sets `hash` (what forget() takes);
  /// false when the reference is held. Allocates as ScheduleNames::insert does.
  bool bind(std::string_view reference, ScheduleHandle handle, std::uint64_t& hash) {
    hash = ScheduleNames::hashOf(reference);
    std::lock_guard<SpinLock> lock(lock_);
    return names_.insert(reference, hash, handle);
  }
  /// Releases the name of hash `hash` bound to `handle`, if it still is.
  void forget(std::uint64_t hash, ScheduleHandle handle) noexcept {
    std::lock_guard<SpinLock> lock(lock_);
    names_.erase(hash, handle);
  }
  /// The handle bound to `reference`, or an invalid one. `forgetIf(handle)`
  /// runs under the lock with the handle found; if it returns true the name
  /// is released there and then (a cancel on the isolate that holds the
  /// schedule: one lock taken, not two). It must not call back in here.
  template <class ForgetIf>
  ScheduleHandle find(std::string_view reference, ForgetIf&& forgetIf) {
    const std::uint64_t hash = ScheduleNames::hashOf(reference);
    std::lock_guard<SpinLock> lock(lock_);
    const ScheduleHandle* bound = names_.find(reference, hash);
    if (bound == nullptr) return ScheduleHandle();
    const ScheduleHandle handle = *bound;
    if (forgetIf(handle)) names_.erase(hash, handle);
    return handle;
  }

 private:
  SpinLock lock_;
  ScheduleNames names_;  // guarded by lock_
};

}  // namespace coreactor::detail
