// The routes one stream of sends that is no isolate keeps to the actors that
// moved: a plain thread's (one per thread and system), a Feeder's, the
// cluster link's. Such a stream sends to the entry an actor's reference
// names; once the actor lives elsewhere (Whereabouts), that entry forwards,
// one crossing more per message. The stream gets an entry of its own, as an
// isolate does (runtime/Move.hpp, "No lasting extra hop"):
//   - it asks the actor for one (a RouteRequest carrying an answer slot);
//     the actor's isolate opens a Hold there and writes its id in the slot;
//   - at its next send to the actor, the stream sees the id, sends a Marker
//     the way it sent so far, and sends to the Hold from then on;
//   - the Hold keeps what comes until the Marker arrives behind everything
//     the stream sent the old way, then hands it over in order and leads
//     to the actor.
// A request that ends without an answer (the actor stopped, or its isolate)
// leaves the stream on its way; it asks again only once the table changes.
// Used by one thread at a time (its stream's).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "SystemMessage.hpp"
#include "Whereabouts.hpp"

namespace coreactor::detail {

class SystemCore;

class StreamRoutes {
 public:
  /// An answer slot's value for a request that ended unanswered.
  static constexpr std::uint64_t kRefused = ~std::uint64_t{0};
  using Answer = std::shared_ptr<std::atomic<std::uint64_t>>;

  /// The routes of this thread to the actors of the system whose table is
  /// `homes`: null while it keeps none, unless `make`.
  static StreamRoutes* ofThisThread(const Whereabouts& homes, bool make);

  /// The entry this stream sends `target`'s messages to now: `target`
  /// itself until the actor lives elsewhere and its entry there is open.
  /// `signal(to, message)` sends a signal to the entry `to` the way this
  /// stream's messages to `to` go: the request, and the Marker.
  template <class Signal>
  std::uint64_t entryFor(SystemCore& core, std::uint64_t target, Signal&& signal) {
    const Whereabouts& homes = whereabouts(core);
    if (routes_.empty() && !homes.mayHaveMoved(target)) [[likely]]
      return target;
    auto it = routes_.find(target);
    if (it == routes_.end()) {
      if (!homes.mayHaveMoved(target)) return target;
      it = routes_.emplace(target, Route{target, target, target, kUnseen, kUnseen, nullptr}).first;
    }
    Route& r = it->second;
    if (const std::uint64_t version = homes.version(); r.seen != version) {
      r.home = homes.mayHaveMoved(target) ? homes.entryOf(target) : target;
      r.seen = version;
    }
    if (r.answer != nullptr) {
      const std::uint64_t given = r.answer->load(std::memory_order_acquire);
      if (given == kRefused) {
        r.answer.reset();
        r.refusedAt = r.seen;
      } else if (given != 0) {
        // Behind everything sent the old way; from now on, straight there.
        signal(r.via, marker(core, given));
        r.via = given;
        r.answer.reset();
      }
    }
    if (r.answer == nullptr && r.home != r.standsFor && r.refusedAt != r.seen) {
      Answer answer = std::make_shared<std::atomic<std::uint64_t>>(0);
      signal(r.home, request(answer));
      r.answer = std::move(answer);
      r.standsFor = r.home;
    }
    const std::uint64_t via = r.via;
    if (r.answer == nullptr && (via == target || r.refusedAt == r.seen) &&
        !homes.mayHaveMoved(target)) {
      routes_.erase(it);  // at home, or stopped: nothing to keep
    }
    return via;
  }

  bool empty() const noexcept { return routes_.empty(); }

 private:
  static constexpr std::uint64_t kUnseen = ~std::uint64_t{0};
  static const Whereabouts& whereabouts(SystemCore& core) noexcept;
  /// The RouteRequest that asks the actor for an entry of this stream's.
  static SystemMessage request(Answer answer);
  /// The Marker that closes the Hold `hold`.
  static SystemMessage marker(SystemCore& core, std::uint64_t hold);

  struct Route {
    std::uint64_t via;        // where this stream sends now
    std::uint64_t standsFor;  // the actor's entry `via` was asked for (its own id at first)
    std::uint64_t home;       // the actor's entry, as last read
    std::uint64_t seen;       // the table's version then
    std::uint64_t refusedAt;  // the version at which a request went unanswered
    Answer answer;            // set: a request is out
  };
  std::unordered_map<std::uint64_t, Route> routes_;
};

}  // namespace coreactor::detail
