// The balancer's decision: see Plan.hpp.
#include "runtime/balance/Plan.hpp"

#include <algorithm>
#include <limits>

namespace coreactor::detail::balance {

void Memory::forgetOlderThan(std::uint64_t rounds) {
  std::erase_if(actors, [&](const auto& entry) { return round - entry.second.lastMove > rounds; });
}

namespace {

// The period's picture: where each sampled actor lives, what its messages
// cost (estimated: sampled time x sampleEvery), and whom it talks with
// (sampled messages, both ways, between actors whose isolate is known).
struct Picture {
  std::unordered_map<std::uint64_t, std::uint32_t> where;
  std::unordered_map<std::uint64_t, double> load;
  std::unordered_map<std::uint64_t, std::unordered_map<std::uint64_t, double>> talks;
  std::vector<double> isolateLoad;
};

Picture picture(const std::vector<Report>& reports, std::size_t isolates, double every) {
  Picture p;
  p.isolateLoad.assign(isolates, 0.0);
  for (const Report& r : reports) {
    for (const Sample& s : r.samples) {
      p.where[s.actor] = r.isolate;
      const double cost = (static_cast<double>(s.nanos) + kMessageNanos) * every;
      p.load[s.actor] += cost;
      if (r.isolate < isolates) p.isolateLoad[r.isolate] += cost;
    }
  }
  for (const Report& r : reports) {
    for (const Sample& s : r.samples) {
      if (s.sender == Sample::kNobody || s.sender == s.actor || !p.where.contains(s.sender)) {
        continue;  // a plain thread, an ask, itself, or an actor not seen
      }
      p.talks[s.actor][s.sender] += 1.0;
      p.talks[s.sender][s.actor] += 1.0;
    }
  }
  return p;
}

// Its conversations by the isolate of the other side.
std::vector<double> talksByIsolate(const Picture& p, std::uint64_t actor, std::size_t isolates) {
  std::vector<double> by(isolates, 0.0);
  const auto it = p.talks.find(actor);
  if (it == p.talks.end()) return by;
  for (const auto& [peer, weight] : it->second) {
    const auto at = p.where.find(peer);
    if (at != p.where.end() && at->second < isolates) by[at->second] += weight;
  }
  return by;
}

}  // namespace

std::vector<Move> plan(const std::vector<Report>& reports, std::size_t isolates,
                       double capacityNanos, const BalancerOptions& options, Memory& memory,
                       std::vector<double>* busy) {
  ++memory.round;
  std::vector<Move> moves;
  if (isolates < 2) return moves;
  Picture p = picture(reports, isolates, static_cast<double>(options.sampleEvery));
  if (busy != nullptr) {
    busy->assign(isolates, 0.0);
    for (std::size_t i = 0; i < isolates; ++i) {
      (*busy)[i] = std::min(1.0, p.isolateLoad[i] / capacityNanos);
    }
  }
  const double capacity = capacityNanos;
  std::unordered_set<std::uint64_t> movedNow;
  auto mayMove = [&](std::uint64_t actor) {
    if (movedNow.contains(actor) || memory.unmovable.contains(actor)) return false;
    const auto it = memory.actors.find(actor);
    if (it == memory.actors.end()) return true;
    return it->second.moves < options.maxMovesPerActor &&
           (it->second.moves == 0 || memory.round - it->second.lastMove > options.cooldownPeriods);
  };
  auto order = [&](std::uint64_t actor, std::uint32_t to) {
    const std::uint32_t from = p.where[actor];
    const double load = p.load[actor];
    p.isolateLoad[from] -= load;
    p.isolateLoad[to] += load;
    p.where[actor] = to;
    movedNow.insert(actor);
    Memory::Actor& m = memory.actors[actor];
    m.lastMove = memory.round;
    ++m.moves;
    moves.push_back(Move{actor, to});
  };

  // 1. Together: the actors that talk most first.
  std::vector<std::pair<double, std::uint64_t>> talkers;
  talkers.reserve(p.talks.size());
  for (const auto& [actor, peers] : p.talks) {
    double total = 0;
    for (const auto& [peer, weight] : peers) total += weight;
    talkers.emplace_back(total, actor);
  }
  std::sort(talkers.begin(), talkers.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  double systemLoad = 0;
  for (const double l : p.isolateLoad) systemLoad += l;
  const bool light = systemLoad < kLight * capacity;
  for (const auto& [total, actor] : talkers) {
    if (moves.size() >= options.maxMovesPerPeriod) break;
    if (!mayMove(actor)) continue;
    const std::uint32_t here = p.where[actor];
    const std::vector<double> by = talksByIsolate(p, actor, isolates);
    std::uint32_t best = here;
    for (std::uint32_t k = 0; k < isolates; ++k) {
      if (by[k] > by[best]) best = k;
    }
    if (best == here || by[best] - by[here] < std::max(kMargin * total, 2.0)) {
      // No clear pull. While the work is light, an even one will do: the
      // lowest isolate it talks with about as much as with its own (the
      // samples make an exact tie rare).
      best = here;
      if (light) {
        for (std::uint32_t k = 0; k < here; ++k) {
          if (by[k] > 0 && by[k] >= 0.5 * by[here]) {
            best = k;
            break;
          }
        }
      }
      if (best == here) continue;
    }
    const double load = p.load[actor];
    // Room: the isolate stays under kBusy, or the two end no further apart
    // than the spread pass tolerates (so it will not move it back).
    const bool room =
        p.isolateLoad[best] + load <= kBusy * capacity ||
        (p.isolateLoad[best] + load) - (p.isolateLoad[here] - load) <= kImbalance * capacity;
    if (room) order(actor, best);
  }

  // 2. Spread: from the busiest to the idlest, the unit whose move cuts the
  // fewest conversations per unit of work. A unit is an actor and those of
  // its peers on the busiest that talk mostly with it (a ping-pong partner,
  // a ring's neighbours): they go together, so a pair stays a pair and a
  // chain is cut in one place, not everywhere.
  std::vector<std::uint64_t> unit;
  std::vector<std::uint64_t> best;
  while (moves.size() < options.maxMovesPerPeriod) {
    const auto hi = static_cast<std::uint32_t>(
        std::max_element(p.isolateLoad.begin(), p.isolateLoad.end()) - p.isolateLoad.begin());
    const auto lo = static_cast<std::uint32_t>(
        std::min_element(p.isolateLoad.begin(), p.isolateLoad.end()) - p.isolateLoad.begin());
    const double gap = p.isolateLoad[hi] - p.isolateLoad[lo];
    if (p.isolateLoad[hi] < kSpreadAbove * capacity || gap <= kImbalance * capacity) break;
    double bestCost = std::numeric_limits<double>::infinity();
    std::uint64_t bestFirst = 0;
    for (const auto& [actor, at] : p.where) {
      if (at != hi || !mayMove(actor)) continue;
      unit.assign(1, actor);
      if (const auto peers = p.talks.find(actor); peers != p.talks.end()) {
        for (const auto& [peer, weight] : peers->second) {
          const auto where = p.where.find(peer);
          if (where == p.where.end() || where->second != hi || !mayMove(peer)) continue;
          double total = 0;
          for (const auto& [other, w] : p.talks[peer]) total += w;
          if (weight >= 0.5 * total) unit.push_back(peer);
        }
      }
      double load = 0;
      double cut = 0;  // conversations the move cuts, less those it joins
      for (const std::uint64_t member : unit) {
        load += p.load[member];
        const auto peers = p.talks.find(member);
        if (peers == p.talks.end()) continue;
        for (const auto& [peer, weight] : peers->second) {
          if (std::find(unit.begin(), unit.end(), peer) != unit.end()) continue;
          const std::uint32_t other = p.where[peer];
          cut += other == hi ? weight : (other == lo ? -weight : 0.0);
        }
      }
      // A move that would overshoot (the idlest ends busier than the
      // busiest was) does not help.
      if (load <= 0 || load >= gap) continue;
      const double cost = (std::max(cut, 0.0) + 1.0) / load;
      if (cost < bestCost || (cost == bestCost && actor < bestFirst)) {
        bestCost = cost;
        bestFirst = actor;
        best = unit;
      }
    }
    if (bestCost == std::numeric_limits<double>::infinity()) break;
    for (const std::uint64_t member : best) order(member, lo);
  }
  return moves;
}

}  // namespace coreactor::detail::balance
