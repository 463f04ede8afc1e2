/// @file
/// `coreactor/ActorSystemOptions.hpp` — how a whole system runs
/// (ActorSystemOptions): its isolates and their placement, the default
/// dispatcher and throughput, the clock, logging, the paths between
/// isolates, the cluster.
//
// An immutable value built fluently, as in the reference documents:
//   ActorSystemOptions::create().withDispatcher(Dispatchers::Hybrid(1000))
// Each with...() validates its argument at once and throws a named error
// (ErrInvalidOption, ...) rather than failing later.
//
// Thread-safety: a value; build it anywhere.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coreactor/Clock.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Placement.hpp"

namespace spdlog::sinks {
class sink;
}  // namespace spdlog::sinks

namespace coreactor {

class Cluster;

/// The balancer's settings (ActorSystemOptions::withBalancer;
/// docs/isolates.md, "The balancer").
struct BalancerOptions {
  /// How often it decides. Each isolate measures over the same period.
  std::chrono::nanoseconds period = std::chrono::milliseconds(100);
  /// One message in this many is sampled at first (who sent it, to whom,
  /// its cost: two clock reads); then each isolate's gap follows its
  /// traffic, for about a thousand samples a period (docs/isolates.md).
  std::uint32_t sampleEvery = 64;
  /// Moves it orders at most per period, over the whole system.
  std::uint32_t maxMovesPerPeriod = 64;
  /// Periods an actor it moved stays where it went before it may move again.
  std::uint32_t cooldownPeriods = 3;
  /// Moves of one actor by the balancer, at most, over the actor's life: an
  /// actor that keeps being pulled two ways stays where it is. Undoing a
  /// step that made things worse is not counted.
  std::uint32_t maxMovesPerActor = 8;
};

/// How much the system logs (spdlog's levels).
enum class LogLevel {
  Trace,     ///< everything
  Debug,     ///< detail and above (where an unpinned isolate runs, passivations)
  Info,      ///< the default: notes and above (an isolate pinned)
  Warn,      ///< warnings and above (a pinning the machine refused)
  Error,     ///< errors and above (a hook that threw)
  Critical,  ///< critical errors only
  Off,       ///< nothing
};

/// How a whole system runs: its isolates and their placement, the default
/// dispatcher and throughput, the clock, logging and the paths between
/// isolates. An immutable value: each with...() returns a changed copy.
class ActorSystemOptions {
 public:
  /// Makes one dispatcher instance; called once per isolate.
  using DispatcherFactory = std::function<std::unique_ptr<Dispatcher>()>;
  /// Messages an actor handles per turn unless told otherwise (requirement D7).
  static constexpr std::size_t kDefaultThroughput = 16;

  /// The defaults: a HybridDispatcher per isolate, one isolate per CPU,
  /// unpinned, threads of their own, SteadyClock, Info to stderr.
  static ActorSystemOptions create() { return ActorSystemOptions(); }

  /// The system-wide default dispatcher. With N isolates the system uses one
  /// instance per isolate (requirement D8): this one on isolate 0 and clones of it
  /// elsewhere (ErrDispatcherNotClonable at create() if it has no clone()).
  ActorSystemOptions withDispatcher(std::shared_ptr<Dispatcher> prototype) const;
  /// Or: a factory called once per isolate.
  ActorSystemOptions withDispatcherFactory(DispatcherFactory factory) const;
  /// Default messages per turn for every actor (requirement D7). ErrInvalidThroughput for 0.
  ActorSystemOptions withThroughput(std::size_t messagesPerTurn) const;
  /// How many isolates (loops, threads) the system runs. Default: one per
  /// CPU this process may use (hwloc, honouring its cpuset; with
  /// withNumaNode, that node's CPUs), and one with withManualRun.
  /// ErrInvalidOption for 0 or more than 4096.
  ActorSystemOptions withIsolates(std::size_t count) const;
  /// Binds isolate threads to CPUs. Checked at create: ErrInvalidOption for
  /// more isolates than CPUs. A machine that cannot pin runs unpinned and
  /// says why (ActorSystem::placement, and the log); so does a topology
  /// hwloc did not read from this machine (HWLOC_SYNTHETIC, or HWLOC_XMLFILE
  /// without HWLOC_THISSYSTEM=1), which is never reported pinned.
  ActorSystemOptions withPinning(Pinning pinning) const;
  /// Keeps the system on one NUMA node: its isolate threads are bound to
  /// that node's CPUs, with or without a pinning mode (each to all of them,
  /// or one each with Pinning::PerCore). Memory is not bound. Checked at
  /// create: ErrInvalidOption for a node without a CPU this process may use
  /// (what() lists the nodes that have one), and, as for pinning, for more
  /// isolates than the node has such CPUs.
  ActorSystemOptions withNumaNode(int node) const;
  /// The caller drives the loops (ActorSystem::runUntilIdle) instead of
  /// threads of their own: deterministic tests (TestKit).
  ActorSystemOptions withManualRun(bool manual = true) const;
  /// The clock of the isolates' timers (a ManualClock in tests).
  ActorSystemOptions withClock(const Clock* clock) const;
  /// Where the system logger writes (spdlog sinks; stderr by default). Each
  /// record made through ReceiveContext::log() carries the actor's path, its
  /// isolate and the message type (requirement A9).
  ActorSystemOptions withLogSink(std::shared_ptr<spdlog::sinks::sink> sink) const;
  /// The lowest level the system logger writes (default: Info).
  ActorSystemOptions withLogLevel(LogLevel level) const;
  /// The path between two isolates (requirement X1, X3): a ring of `ringSlots`
  /// 64-byte slots per ordered pair (rounded up to a power of two, at least
  /// 2), each holding a message, or two words (trivially copyable messages
  /// of at most 8 bytes),
  /// and in front of it, when it is full, an overflow list of at most
  /// `overflowLimit` messages on the sender's side; past that, a message is
  /// a dead letter ("backpressure"), counted. Defaults: 1024 and 1M.
  /// ErrInvalidOption for fewer than 2 or more than 1M slots.
  ActorSystemOptions withCrossIsolateBuffer(std::size_t ringSlots, std::size_t overflowLimit) const;
  /// How far the ring of a pair grows while its sender floods it (requirement
  /// X3): once the overflow list in front of a ring holds half a ring, the
  /// ring is replaced by one four times larger, up to `maxRingSlots` slots
  /// (rounded up to a power of two), so that a burst crosses once through
  /// the ring instead of through the list and then the ring. The messages
  /// keep their order; a grown ring goes back to ringSlots after a second
  /// without a flood. Default: 16 x ringSlots (1 MiB per ordered pair that
  /// floods, with the default ring). `maxRingSlots`
  /// at or below ringSlots: rings keep their size. ErrInvalidOption for 0
  /// or more than 1M slots.
  ActorSystemOptions withCrossIsolateBufferGrowth(std::size_t maxRingSlots) const;
  /// Backpressure on foreign threads (requirement X3): a tell from such
  /// a thread to an isolate whose inbox holds `limit` messages waits until
  /// the isolate has taken some (counted in ActorSystem::transportStats).
  /// Only threads that run no loop wait; an isolate of another system never does.
  /// Default 1M. ErrInvalidOption for 0.
  ActorSystemOptions withForeignInboxLimit(std::size_t limit) const;
  /// How long an isolate with nothing to do keeps looking for work (its
  /// rings, its inbox, its timers) before it sleeps (IsolateOptions::idlePoll):
  /// a message that comes within the window costs no wake-up, two system
  /// calls and ~10 us per side on a VM. Default: kDefaultIdlePoll when the
  /// system has no more isolates than the CPUs it may run on, zero (sleep at
  /// once) when it has more, since a spinning isolate would then take a CPU
  /// another one needs. A manual-run system never spins. Zero turns it off.
  /// ErrInvalidOption for a negative window or one longer than kMaxIdlePoll.
  ActorSystemOptions withIdlePoll(std::chrono::nanoseconds window) const;
  /// Serves the system's metrics (coreactor/Metrics.hpp) in the Prometheus
  /// text format at http://address:port/metrics, from isolate 0's loop, while
  /// the system runs. Port 0 takes a free port (ActorSystem::metricsEndpoint
  /// says which). Off by default. A port that cannot be bound is an error
  /// of ActorSystem::create (std::system_error from the socket); an address
  /// that is no IP address is ErrInvalidOption here. A manual-run system
  /// serves it while its loops are driven.
  ActorSystemOptions withMetricsEndpoint(std::uint16_t port,
                                         std::string address = "127.0.0.1") const;
  /// How top-level actors without a placement (and withRoundRobin() spawns)
  /// spread over the isolates: `run` at a time, in spawn order. The first
  /// `run` land on isolate 0, the next `run` on isolate 1, and so on round.
  /// 1 is plain round-robin; a longer run keeps actors spawned one after
  /// another (a ping and its pong, a ring's neighbours, a pipeline's stages)
  /// on one loop, where their messages are pushes and not crossings, while
  /// many actors still spread. Default: kDefaultPlacementRun, chosen on the
  /// parallel workloads of coreactor-bench (docs/isolates.md, "Placing actors").
  /// ErrInvalidOption for 0.
  ActorSystemOptions withPlacementRun(std::size_t run) const;
  /// Placement that learns (docs/isolates.md, "The balancer"): each isolate
  /// samples which actors send to which and what their messages cost, and
  /// every period the balancer tries one step (ActorSystem::move): groups
  /// that talk gathered on one isolate, or busy work spread over all of
  /// them; a step after which the system handles fewer messages is undone
  /// and not tried again for a while. Off by default. ErrInvalidOption for a period that is
  /// not positive, a sampleEvery or a maxMovesPerActor of 0.
  ActorSystemOptions withBalancer(BalancerOptions options = {}) const;
  /// The settings of withBalancer(); empty: no balancer.
  const std::optional<BalancerOptions>& balancer() const noexcept { return balancer_; }
  /// Makes the system one of a cluster's (coreactor/Cluster.hpp): references
  /// to the actors of the other ranks work as local ones. Creating the
  /// system is then collective (every rank creates its system with the
  /// cluster), and so is its shutdown. A message for another rank that
  /// encodes to more than `messageLimit` bytes is ErrMessageTooLarge at the
  /// send. ErrInvalidOption for a null cluster or a limit of 0; at create,
  /// for a cluster that serves another system, or whose ranks hold more
  /// than 4096 isolates together.
  ActorSystemOptions withCluster(std::shared_ptr<Cluster> cluster,
                                 std::size_t messageLimit = kDefaultRemoteMessageLimit) const;
  /// The default limit of withCluster(): 64 MiB.
  static constexpr std::size_t kDefaultRemoteMessageLimit = std::size_t{64} << 20;
  /// The idle poll window of a system that does not choose one: about two
  /// wake-ups' worth on this machine kind, so an isolate that spins in vain
  /// wastes at most what one wake-up round trip would have cost.
  static constexpr std::chrono::nanoseconds kDefaultIdlePoll = std::chrono::microseconds(20);
  /// The placement run of a system that does not choose one (withPlacementRun).
  static constexpr std::size_t kDefaultPlacementRun = 4;
  /// The longest idle poll window withIdlePoll() takes.
  static constexpr std::chrono::nanoseconds kMaxIdlePoll = std::chrono::milliseconds(100);

  /// The prototype of withDispatcher(), or nullptr.
  const std::shared_ptr<Dispatcher>& dispatcher() const noexcept { return dispatcher_; }
  /// The factory of withDispatcherFactory(), or empty.
  const DispatcherFactory& dispatcherFactory() const noexcept { return factory_; }
  /// Default messages per turn for every actor.
  std::size_t throughput() const noexcept { return throughput_; }
  /// The isolate count asked for; 0: the default (see withIsolates).
  std::size_t isolates() const noexcept { return isolates_; }
  /// How isolate threads are bound to CPUs.
  Pinning pinning() const noexcept { return pinning_; }
  /// The NUMA node of withNumaNode(), if any.
  const std::optional<int>& numaNode() const noexcept { return numaNode_; }
  /// True when the caller drives the loops.
  bool manualRun() const noexcept { return manualRun_; }
  /// The timers' clock; nullptr: SteadyClock.
  const Clock* clock() const noexcept { return clock_; }
  /// The sinks of withLogSink(), in order; none: stderr.
  const std::vector<std::shared_ptr<spdlog::sinks::sink>>& logSinks() const noexcept {
    return logSinks_;
  }
  /// The lowest level logged.
  LogLevel logLevel() const noexcept { return logLevel_; }
  /// Slots of each ring between two isolates, as asked (before rounding up).
  std::size_t ringSlots() const noexcept { return ringSlots_; }
  /// Slots a ring may grow to while flooded (withCrossIsolateBufferGrowth).
  std::size_t maxRingSlots() const noexcept {
    return maxRingSlots_ != 0 ? maxRingSlots_
                              : std::min(kDefaultRingGrowth * ringSlots_, std::size_t{1} << 20);
  }
  /// Messages an overflow list in front of a full ring may hold.
  std::size_t overflowLimit() const noexcept { return overflowLimit_; }
  /// Messages an isolate's inbox holds before a tell from a foreign thread waits.
  std::size_t foreignInboxLimit() const noexcept { return foreignInboxLimit_; }
  /// The window of withIdlePoll(); empty: the default (see withIdlePoll).
  const std::optional<std::chrono::nanoseconds>& idlePoll() const noexcept { return idlePoll_; }
  /// Top-level actors placed on one isolate before the next (withPlacementRun).
  std::size_t placementRun() const noexcept { return placementRun_; }
  /// The port of withMetricsEndpoint(); empty: no endpoint.
  const std::optional<std::uint16_t>& metricsPort() const noexcept { return metricsPort_; }
  /// The address of withMetricsEndpoint().
  const std::string& metricsAddress() const noexcept { return metricsAddress_; }
  /// The cluster of withCluster(), or nullptr.
  const std::shared_ptr<Cluster>& cluster() const noexcept { return cluster_; }
  /// The message limit of withCluster().
  std::size_t remoteMessageLimit() const noexcept { return remoteMessageLimit_; }

 private:
  std::shared_ptr<Dispatcher> dispatcher_;
  DispatcherFactory factory_;
  std::size_t throughput_ = kDefaultThroughput;
  std::size_t isolates_ = 0;
  Pinning pinning_ = Pinning::None;
  std::optional<int> numaNode_;
  bool manualRun_ = false;
  const Clock* clock_ = nullptr;
  std::vector<std::shared_ptr<spdlog::sinks::sink>> logSinks_;
  LogLevel logLevel_ = LogLevel::Info;
  static constexpr std::size_t kDefaultRingGrowth = 16;
  std::size_t ringSlots_ = 1024;
  std::size_t maxRingSlots_ = 0;  // 0: kDefaultRingGrowth x ringSlots_
  std::size_t overflowLimit_ = std::size_t{1} << 20;
  std::size_t foreignInboxLimit_ = std::size_t{1} << 20;
  std::optional<std::chrono::nanoseconds> idlePoll_;
  std::size_t placementRun_ = kDefaultPlacementRun;
  std::optional<std::uint16_t> metricsPort_;
  std::string metricsAddress_;
  std::shared_ptr<Cluster> cluster_;
  std::size_t remoteMessageLimit_ = kDefaultRemoteMessageLimit;
  std::optional<BalancerOptions> balancer_;
};

}  // namespace coreactor
