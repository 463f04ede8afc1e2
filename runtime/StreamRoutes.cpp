// The directory of where moved actors live, and the routes of the streams
// that are no isolate. See Whereabouts.hpp and StreamRoutes.hpp.
#include "runtime/StreamRoutes.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/SystemCore.hpp"

namespace coreactor::detail {

std::uint64_t Whereabouts::nextSerial() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void Whereabouts::set(std::uint64_t own, std::uint64_t entry) {
  if (entry == own) {
    erase(own);
    return;
  }
  std::lock_guard lock(mutex_);
  const auto [it, added] = entries_.insert_or_assign(own, entry);
  if (added) {
    buckets_[bucketOf(own)].fetch_add(1, std::memory_order_release);
    moved_.fetch_add(1, std::memory_order_release);
  }
  version_.fetch_add(1, std::memory_order_release);
}

void Whereabouts::erase(std::uint64_t own) {
  std::lock_guard lock(mutex_);
  if (entries_.erase(own) == 0) return;
  buckets_[bucketOf(own)].fetch_sub(1, std::memory_order_release);
  moved_.fetch_sub(1, std::memory_order_release);
  version_.fetch_add(1, std::memory_order_release);
}

std::uint64_t Whereabouts::entryOf(std::uint64_t own) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(own);
  return it != entries_.end() ? it->second : own;
}

namespace {

// This thread's routes, per system (by the address of its table, and the
// table itself kept alive by nothing: an entry is dropped as soon as it
// keeps no route, and a table's address is checked with its serial).
struct ThreadRoutes {
  const Whereabouts* homes;
  std::uint64_t serial;
  std::unique_ptr<StreamRoutes> routes;
};
thread_local std::vector<ThreadRoutes> tRoutes;

}  // namespace

StreamRoutes* StreamRoutes::ofThisThread(const Whereabouts& homes, bool make) {
  if (tRoutes.empty() && !make) [[likely]]
    return nullptr;
  // Tables of systems this thread no longer sends to, with nothing kept.
  std::erase_if(tRoutes, [&](const ThreadRoutes& t) {
    return t.routes->empty() && (t.homes != &homes || t.serial != homes.serial());
  });
  for (ThreadRoutes& t : tRoutes) {
    if (t.homes == &homes && t.serial == homes.serial()) return t.routes.get();
  }
  // A system destroyed at this address left its routes: they name no
  // actor of this one.
  std::erase_if(tRoutes, [&](const ThreadRoutes& t) { return t.homes == &homes; });
  if (!make) return nullptr;
  tRoutes.push_back({&homes, homes.serial(), std::make_unique<StreamRoutes>()});
  return tRoutes.back().routes.get();
}

const Whereabouts& StreamRoutes::whereabouts(SystemCore& core) noexcept {
  return core.whereabouts();
}

SystemMessage StreamRoutes::request(Answer answer) {
  std::unique_ptr<MoveOrder, MoveOrderDelete> order(new MoveOrder);
  order->answer = std::move(answer);
  return SystemMessage{SystemMessage::Kind::RouteRequest, {}, nullptr, nullptr, std::move(order)};
}

SystemMessage StreamRoutes::marker(SystemCore& core, std::uint64_t hold) {
  return SystemMessage{SystemMessage::Kind::Marker, core.refOf(hold), nullptr};
}

}  // namespace coreactor::detail
