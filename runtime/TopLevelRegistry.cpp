// The registry of top-level actors: their names and the count a graceful
// shutdown waits for (TopLevelRegistry.hpp).
#include "TopLevelRegistry.hpp"

namespace coreactor::detail {

void TopLevelRegistry::uncount() {
  // What waits (shutdown) waits for none left: only the last one notifies.
  // It takes the lock to do so, so a waiter between its check and its
  // sleep cannot miss the call.
  if (live_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopLoopsWhenEmpty_ && live_.load(std::memory_order_relaxed) == 0) {
    stopLoops_();  // a shutdown from an actor
  }
  changed_.notify_all();
}

bool TopLevelRegistry::reserve(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  return byName_.emplace(name, 0).second;
}

void TopLevelRegistry::bind(const std::string& name, std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  byName_[name] = id;
  names_.emplace(id, name);
  named_.fetch_add(1, std::memory_order_release);
}

void TopLevelRegistry::unreserve(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto held = byName_.find(name); held != byName_.end()) {
    if (names_.erase(held->second) != 0) named_.fetch_sub(1, std::memory_order_relaxed);
    byName_.erase(held);
  }
}

std::optional<std::uint64_t> TopLevelRegistry::named(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = byName_.find(name);
  // 0 while the spawn that reserved the name is under way.
  if (it == byName_.end() || it->second == 0) return std::nullopt;
  return it->second;
}

void TopLevelRegistry::terminated(std::uint64_t id) {
  // Only a named actor takes the lock for its name.
  if (named_.load(std::memory_order_acquire) != 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto named = names_.find(id);
    if (named != names_.end()) {
      byName_.erase(named->second);
      names_.erase(named);
      named_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  uncount();
}

void TopLevelRegistry::stopLoopsWhenEmpty() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopLoopsWhenEmpty_ = true;
}

void TopLevelRegistry::stopLoopsIfEmpty() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (live_.load(std::memory_order_relaxed) == 0) stopLoops_();
}

bool TopLevelRegistry::waitUntilEmpty(std::chrono::nanoseconds bound,
                                      const std::function<bool()>& stopped) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, bound,
                           [&] { return live_.load(std::memory_order_relaxed) == 0 || stopped(); });
}

void TopLevelRegistry::wakeWaiters() noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
  } catch (...) {
    // A mutex that cannot be locked wakes the waiters anyway.
  }
  changed_.notify_all();
}

}  // namespace coreactor::detail
