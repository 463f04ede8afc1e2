// The balancer's decision: see Plan.hpp.
#include "runtime/balance/Plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coreactor::detail::balance {

void Memory::forgetOlderThan(std::uint64_t rounds) {
  std::erase_if(actors, [&](const auto& entry) { return round - entry.second.lastMove > rounds; });
  std::erase_if(lessons, [&](const auto& entry) {
    const std::uint64_t until =
        std::max(entry.second.gatherBarredUntil, entry.second.spreadBarredUntil);
    return until + rounds < round;
  });
}

namespace {

// The period's picture: where each sampled actor lives, what its messages
// cost (estimated: sampled time x the messages each sample stands for), whom it talks with
// (sampled messages, both ways, between actors whose isolate is known),
// which group it belongs to, and the period's throughput.
struct Picture {
  std::unordered_map<std::uint64_t, std::uint32_t> where;
  std::unordered_map<std::uint64_t, double> load;
  std::unordered_map<std::uint64_t, std::unordered_map<std::uint64_t, double>> talks;
  std::vector<double> isolateLoad;
  /// Each actor's group, named by its least actor; and each group's members.
  std::unordered_map<std::uint64_t, std::uint64_t> groupOf;
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> groups;
  /// Messages handled per period, all isolates together (estimated), and
  /// the samples that estimate rests on.
  double rate = 0;
  double samples = 0;
  /// Messages that took a way around per period, all isolates together.
  double detoured = 0;
  /// The share of the period some isolate had work (plan()).
  double working = 1;
};

Picture picture(const std::vector<Report>& reports, std::size_t isolates, double every,
                double capacity) {
  Picture p;
  p.isolateLoad.assign(isolates, 0.0);
  for (const Report& r : reports) {
    const double span = r.spanNanos > 0 ? r.spanNanos : capacity;
    p.samples += static_cast<double>(r.samples.size());
    const auto weightOf = [every](const Sample& s) {
      return s.every != 0 ? static_cast<double>(s.every) : every;
    };
    // Each sample's handler time: its own if clocked, else the mean of its
    // actor's clocked samples of the period, else the isolate's mean.
    std::unordered_map<std::uint64_t, std::pair<double, double>> clocked;  // sum, count
    double clockedSum = 0;
    double clockedCount = 0;
    for (const Sample& s : r.samples) {
      if (!s.timed) continue;
      auto& [sum, count] = clocked[s.actor];
      sum += static_cast<double>(s.nanos);
      count += 1;
      clockedSum += static_cast<double>(s.nanos);
      clockedCount += 1;
    }
    const double isolateMean = clockedCount > 0 ? clockedSum / clockedCount : 0.0;
    const auto handlerOf = [&](const Sample& s) {
      if (s.timed) return static_cast<double>(s.nanos);
      const auto it = clocked.find(s.actor);
      return it != clocked.end() ? it->second.first / it->second.second : isolateMean;
    };
    // What a message costs besides its handler: measured (the busy time
    // the handlers leave, over the messages), or reckoned. Measured, the
    // isolate's work is its busy time, shared by its actors as their
    // samples say: a handler's clock also runs through the turns it starts
    // in place (a local send to an idle actor), so the handlers' times can
    // add up to more than the isolate was busy.
    double perMessage = kMessageNanos;
    double scale = 1;
    if (r.busyNanos >= 0) {
      double handlers = 0;
      double messages = 0;
      for (const Sample& s : r.samples) {
        handlers += handlerOf(s) * weightOf(s);
        messages += weightOf(s);
      }
      perMessage = messages > 0 ? std::max(0.0, r.busyNanos - handlers) / messages : 0.0;
      const double total = handlers + perMessage * messages;
      scale = total > 0 ? r.busyNanos / total : 0.0;
    }
    p.detoured += r.detoured * capacity / span;
    for (const Sample& s : r.samples) {
      const double weight = weightOf(s);
      p.rate += weight * capacity / span;
      p.where[s.actor] = r.isolate;
      const double cost = (handlerOf(s) + perMessage) * weight * scale;
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
  // Groups: the connected parts of the talk graph, each named by its least
  // actor (a name that stays from one period to the next).
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint64_t> ids;
  ids.reserve(p.where.size());
  for (const auto& [actor, at] : p.where) ids.push_back(actor);
  std::sort(ids.begin(), ids.end());
  std::vector<std::uint64_t> stack;
  for (const std::uint64_t first : ids) {
    if (!seen.insert(first).second) continue;
    std::vector<std::uint64_t>& members = p.groups[first];
    stack.assign(1, first);
    while (!stack.empty()) {
      const std::uint64_t a = stack.back();
      stack.pop_back();
      members.push_back(a);
      p.groupOf[a] = first;
      if (const auto peers = p.talks.find(a); peers != p.talks.end()) {
        for (const auto& [peer, weight] : peers->second) {
          if (seen.insert(peer).second) stack.push_back(peer);
        }
      }
    }
  }
  return p;
}

class Planner {
 public:
  Planner(Picture& p, std::size_t isolates, double capacity, const BalancerOptions& options,
          Memory& memory)
      : p_(p), isolates_(isolates), capacity_(capacity), options_(options), memory_(memory) {}

  // 1. Every group spread over several isolates, whole onto one.
  bool gather(Memory::Trial& trial) {
    std::vector<std::pair<double, std::uint64_t>> spread;  // (load, group)
    for (const auto& [group, members] : p_.groups) {
      if (members.size() < 2 || barred(group, Memory::Trial::Kind::Gather)) continue;
      const std::uint32_t first = p_.where[members.front()];
      bool several = false;
      double load = 0;
      for (const std::uint64_t a : members) {
        several = several || p_.where[a] != first;
        load += p_.load[a];
      }
      if (several) spread.emplace_back(load, group);
    }
    // The heaviest first, each where it keeps the isolates most even.
    std::sort(spread.begin(), spread.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<double> share(isolates_);
    for (const auto& [load, group] : spread) {
      const std::vector<std::uint64_t>& members = p_.groups[group];
      // Members that cannot move now fix the isolate (all on one, or no gathering).
      std::optional<std::uint32_t> fixed;
      bool stuck = false;
      std::fill(share.begin(), share.end(), 0.0);
      for (const std::uint64_t a : members) {
        share[p_.where[a]] += p_.load[a];
        if (mayMove(a)) continue;
        if (fixed && *fixed != p_.where[a]) stuck = true;
        fixed = p_.where[a];
      }
      if (stuck) continue;
      std::uint32_t to = fixed.value_or(0);
      if (!fixed) {
        double best = std::numeric_limits<double>::infinity();
        // Work figures within this of each other are even: the loads are
        // sums of many samples' nanoseconds, and the same sum taken in
        // another order differs in its last bits.
        const double tie = 1e-6 * capacity_;
        for (std::uint32_t k = 0; k < isolates_; ++k) {
          // The isolate's work without this group's, plus all of it; ties
          // go where most of it already is (the fewest moves).
          const double after = p_.isolateLoad[k] - share[k] + load;
          if (after < best - tie || (after <= best + tie && share[k] > share[to])) {
            best = after;
            to = k;
          }
        }
      }
      std::size_t movers = 0;
      for (const std::uint64_t a : members) movers += p_.where[a] != to ? 1 : 0;
      if (moves_.size() + movers > options_.maxMovesPerPeriod) continue;
      for (const std::uint64_t a : members) {
        if (p_.where[a] != to) order(a, to, trial);
      }
      trial.groups.push_back(group);
    }
    return !moves_.empty();
  }

  // 2. From the busiest isolate to the idlest, while they are uneven.
  bool spread(Memory::Trial& trial) {
    // A group some of whose members moved within their cooldown (a
    // gathering just brought it together) is not spread yet: its other
    // members alone could only be cut from it in pieces.
    for (const auto& [group, members] : p_.groups) {
      for (const std::uint64_t a : members) {
        const auto it = memory_.actors.find(a);
        if (it != memory_.actors.end() && cooling(it->second)) {
          cooling_.insert(group);
          break;
        }
      }
    }
    std::vector<std::uint64_t> unit;
    std::vector<std::uint64_t> best;
    std::unordered_set<std::uint64_t> touched;
    // The isolates this step gave units to: none of them gives any back in
    // the same step (the estimates of a closed loop's actors differ by
    // where they run, and would swap units back and forth).
    std::vector<bool> receiver(isolates_, false);
    while (moves_.size() < options_.maxMovesPerPeriod) {
      const auto hi = static_cast<std::uint32_t>(
          std::max_element(p_.isolateLoad.begin(), p_.isolateLoad.end()) - p_.isolateLoad.begin());
      const auto lo = static_cast<std::uint32_t>(
          std::min_element(p_.isolateLoad.begin(), p_.isolateLoad.end()) - p_.isolateLoad.begin());
      const double gap = p_.isolateLoad[hi] - p_.isolateLoad[lo];
      if (p_.isolateLoad[hi] < kActive * capacity_ || gap <= kImbalance * p_.isolateLoad[hi] ||
          receiver[hi]) {
        break;
      }
      double bestCost = std::numeric_limits<double>::infinity();
      std::uint64_t bestFirst = 0;
      for (const auto& [actor, at] : p_.where) {
        if (at != hi || !movable(actor)) continue;
        unit.assign(1, actor);
        bool whole = true;  // every peer that talks mostly with it may move too
        if (const auto peers = p_.talks.find(actor); peers != p_.talks.end()) {
          for (const auto& [peer, weight] : peers->second) {
            if (p_.where[peer] != hi) continue;
            double total = 0;
            for (const auto& [other, w] : p_.talks[peer]) total += w;
            if (weight < 0.5 * total) continue;
            if (!movable(peer)) {
              whole = false;  // moving the actor alone would split a pair, say
              break;
            }
            unit.push_back(peer);
          }
        }
        if (!whole) continue;
        double load = 0;
        double cut = 0;  // conversations the move cuts, less those it joins
        for (const std::uint64_t member : unit) {
          load += p_.load[member];
          const auto peers = p_.talks.find(member);
          if (peers == p_.talks.end()) continue;
          for (const auto& [peer, weight] : peers->second) {
            if (std::find(unit.begin(), unit.end(), peer) != unit.end()) continue;
            const std::uint32_t other = p_.where[peer];
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
      receiver[lo] = true;
      for (const std::uint64_t member : best) {
        order(member, lo, trial);
        if (touched.insert(p_.groupOf[member]).second) trial.groups.push_back(p_.groupOf[member]);
      }
    }
    return !moves_.empty();
  }

  std::vector<Move> take() { return std::move(moves_); }

 private:
  bool barred(std::uint64_t group, Memory::Trial::Kind kind) const {
    const auto it = memory_.lessons.find(group);
    if (it == memory_.lessons.end()) return false;
    const std::uint64_t until = kind == Memory::Trial::Kind::Gather ? it->second.gatherBarredUntil
                                                                    : it->second.spreadBarredUntil;
    return memory_.round < until;
  }
  bool mayMove(std::uint64_t actor) const {
    if (movedNow_.contains(actor) || memory_.unmovable.contains(actor)) return false;
    const auto it = memory_.actors.find(actor);
    if (it == memory_.actors.end()) return true;
    return it->second.moves < options_.maxMovesPerActor && !cooling(it->second);
  }
  // Moved by a kept step within its cooldown.
  bool cooling(const Memory::Actor& m) const {
    return m.moves != 0 && memory_.round - m.lastMove <= options_.cooldownPeriods;
  }
  // May move, and its group may be spread.
  bool movable(std::uint64_t actor) const {
    const std::uint64_t group = p_.groupOf.at(actor);
    return mayMove(actor) && !cooling_.contains(group) &&
           !barred(group, Memory::Trial::Kind::Spread);
  }
  void order(std::uint64_t actor, std::uint32_t to, Memory::Trial& trial) {
    const std::uint32_t from = p_.where[actor];
    const double load = p_.load[actor];
    p_.isolateLoad[from] -= load;
    p_.isolateLoad[to] += load;
    p_.where[actor] = to;
    movedNow_.insert(actor);
    Memory::Actor& m = memory_.actors[actor];
    m.lastMove = memory_.round;
    ++m.moves;
    moves_.push_back(Move{actor, to});
    trial.undo.push_back(Move{actor, from});
  }

  Picture& p_;
  std::size_t isolates_;
  double capacity_;
  const BalancerOptions& options_;
  Memory& memory_;
  std::vector<Move> moves_;
  std::unordered_set<std::uint64_t> movedNow_;
  std::unordered_set<std::uint64_t> cooling_;  // groups with members cooling (spread())
};

// Bars a group from gathering (or spreading), for longer each time.
void bar(const Memory& memory, Memory::Lesson& lesson, bool gather) {
  std::uint32_t& failures = gather ? lesson.gatherFailures : lesson.spreadFailures;
  std::uint64_t& until = gather ? lesson.gatherBarredUntil : lesson.spreadBarredUntil;
  until = std::max(until, memory.round + (kRetryPeriods << std::min(failures, kMaxBackoff)));
  ++failures;
}

// Bars the trial's groups from its kind of step.
void learn(Memory& memory, const Memory::Trial& trial) {
  for (const std::uint64_t group : trial.groups) {
    bar(memory, memory.lessons[group], trial.kind == Memory::Trial::Kind::Gather);
  }
}

}  // namespace

std::vector<Move> plan(const std::vector<Report>& reports, std::size_t isolates,
                       double capacityNanos, const BalancerOptions& options, Memory& memory,
                       std::vector<double>* busy, double pausedNanos) {
  ++memory.round;
  std::vector<Move> moves;
  if (isolates < 2) return moves;
  Picture p = picture(reports, isolates, static_cast<double>(options.sampleEvery), capacityNanos);
  // Per working time: a period in which the program paused (every isolate
  // asleep) handled fewer messages for no fault of the placement.
  p.working = std::clamp(1.0 - pausedNanos / capacityNanos, kLeastWorking, 1.0);
  p.rate /= p.working;
  p.detoured /= p.working;
  if (busy != nullptr) {
    busy->assign(isolates, 0.0);
    for (std::size_t i = 0; i < isolates; ++i) {
      (*busy)[i] = std::min(1.0, p.isolateLoad[i] / capacityNanos);
    }
  }
  using Kind = Memory::Trial::Kind;
  if (memory.trial) {
    Memory::Trial& trial = *memory.trial;
    // Its moves land in the period after the one that ordered them; the
    // first kJudgePeriods after that with the routes settled are the ones
    // it is judged on.
    if (memory.round <= trial.ordered + 1) return moves;
    if (p.detoured > kSettled * p.rate && memory.round <= trial.ordered + 1 + kMostSettlePeriods) {
      return moves;
    }
    if (trial.kind != Kind::Undo) {
      trial.judgedRate += p.rate;
      trial.judgedSamples += p.samples;
      if (++trial.judged < kJudgePeriods) return moves;
      const double rate = trial.judgedRate / trial.judged;
      // A gathering may cost a little within the noise (it saves crossings,
      // which frees the isolates for other work); a spreading must not
      // lose, or a run of slightly worse ones would add up.
      const double noise =
          trial.kind == Kind::Gather
              ? std::max(kWorse,
                         2.0 / std::sqrt(std::max(
                                   std::min(trial.baselineSamples, trial.judgedSamples), 1.0)))
              : 0.0;
      if (rate < trial.baseline * (1.0 - noise)) {
        // Worse: everyone back, and not again soon. Undoing is free: it
        // counts neither as a move of the actor nor against its cooldown.
        learn(memory, trial);
        ++memory.undone;
        for (const Move& m : trial.undo) {
          if (!memory.unmovable.contains(m.actor)) moves.push_back(m);
        }
        memory.trial = Memory::Trial{Kind::Undo, memory.round, 0, 0, {}, {}};
        return moves;
      }
      ++memory.kept;
      // Spread, and better for it: gathering it again is barred as an
      // undone gathering would be (a kept gathering does not clear that:
      // gathered and spread, such a group would swing between the two).
      if (trial.kind == Kind::Spread) {
        for (const std::uint64_t group : trial.groups) {
          Memory::Lesson& lesson = memory.lessons[group];
          lesson.spreadFailures = 0;
          bar(memory, lesson, /*gather=*/true);
        }
      }
    }
    memory.trial.reset();
  }
  // The first period holds the system's start (spawns, first messages): no
  // figure to judge a step against.
  if (p.samples == 0 || memory.round < 2) return moves;
  // The baseline: this period, and the quiet ones just before it.
  Memory::Trial trial;
  trial.ordered = memory.round;
  trial.baseline = p.rate;
  trial.baselineSamples = p.samples;
  if (memory.quietRound + 1 == memory.round && kJudgePeriods > 1) {
    trial.baseline = (p.rate + memory.quietRate) / 2;
    trial.baselineSamples = std::min(p.samples, memory.quietSamples);
  }
  memory.quietRound = memory.round;
  memory.quietRate = p.rate;
  memory.quietSamples = p.samples;
  // One step: a gathering if there is one to try, else a spreading.
  const auto tryStep = [&](Kind kind, bool (Planner::*step)(Memory::Trial&)) {
    Planner planner(p, isolates, capacityNanos, options, memory);
    trial.kind = kind;
    if (!(planner.*step)(trial)) return false;
    moves = planner.take();
    memory.trial = std::move(trial);
    return true;
  };
  if (!tryStep(Kind::Gather, &Planner::gather)) tryStep(Kind::Spread, &Planner::spread);
  return moves;
}

}  // namespace coreactor::detail::balance
