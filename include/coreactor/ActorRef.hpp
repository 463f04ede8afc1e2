/// @file
/// `coreactor/ActorRef.hpp` — the address of an actor (alias: PID).
//
// An ActorRef is 16 bytes, trivially copyable, and never owns anything: copy
// it, store it, send it in messages, compare it, hash it. It names one
// incarnation of one actor: the isolate it lives on, a slot in that isolate's
// actor table, and the slot's generation. After the actor has stopped, the
// reference stays valid to hold and to use; what is sent to it becomes a dead
// letter (requirement A7). A restart keeps the reference (requirement A6).
//
// tell() works the same from the actor's own isolate, from another isolate and
// from a foreign thread (requirement A2). Messages from one sender to one
// receiver keep their order.
//
// Thread-safety: callable from any thread. A reference must not be used after
// its ActorSystem is destroyed.
// Cost of tell on the receiver's own isolate: no allocation for a message of
// up to Message::kInlineSize bytes, no lock, no clock read (bench "tell").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "coreactor/Message.hpp"

namespace coreactor {

class ActorSystem;
namespace detail {
class SystemCore;
class Mailbox;
class ActorCell;
struct Endpoint;
struct IsolateRuntime;
}  // namespace detail

/// The address of one incarnation of an actor: a 16-byte value to copy,
/// store, send in messages, compare and hash. tell() works from any thread.
class ActorRef {
 public:
  /// The empty reference: "no sender". Sending to it is a dead letter.
  constexpr ActorRef() noexcept = default;

  /// Sends `message` (any move-constructible value, or a Message) to this
  /// actor, with `sender` as what the receiver's ctx.sender() gives.
  ///
  /// Threads: any thread. Order: what one sender (an actor, or a foreign
  /// thread) tells one actor arrives in the order told, that sender's
  /// system messages and asks included (an actor's ctx.ask; a thread's
  /// ActorSystem::ask) (docs/isolates.md).
  /// Never blocks, except on a foreign thread while the target isolate's
  /// inbox from foreign threads is full (it waits for room:
  /// ActorSystemOptions::withForeignInboxLimit).
  /// A message that cannot be delivered (a stopped actor, a full Drop*
  /// mailbox, backpressure between isolates, a system stopping or shutting
  /// down for a foreign thread) is a dead letter, not an error.
  /// Throws: ErrMailboxFull when this call queues into a full bounded
  /// mailbox with the Fail policy (a sender on the receiver's isolate, or a
  /// manual system's driving thread); ErrNotSerializable or
  /// ErrMessageTooLarge for an actor of another rank and a message that
  /// cannot cross (nothing is sent); ErrDead for the empty reference with
  /// no sender (no system to report the dead letter to).
  /// Cost on the receiver's own isolate: no allocation for a message of up
  /// to Message::kInlineSize bytes, no lock, no clock read.
  template <class M>
  void tell(M&& message, ActorRef sender = ActorRef()) const {
    using V = std::decay_t<M>;
    using Access = detail::MessageAccess;
    if constexpr (Access::kWord<V>) {
      send<detail::Word>(detail::Word{Access::typeOf<V>(), Access::wordOf<V>(message)}, sender);
    } else {
      send<Message>(Message(std::forward<M>(message)), sender);
    }
  }
  /// tell() for an already built Message.
  void deliver(Message&& message, ActorRef sender) const {
    send<Message>(std::move(message), sender);
  }

  /// True for the empty reference.
  bool isNone() const noexcept { return system_ == nullptr; }
  /// True unless this is the empty reference.
  explicit operator bool() const noexcept { return system_ != nullptr; }

  /// The index of the isolate the actor lives on.
  std::uint32_t isolateIndex() const noexcept { return static_cast<std::uint32_t>(id_ >> 52); }
  /// Its slot in that isolate's actor table.
  std::uint32_t slot() const noexcept { return static_cast<std::uint32_t>((id_ >> 28) & 0xFFFFFF); }
  /// The slot's generation: which incarnation in that slot this reference names.
  std::uint32_t generation() const noexcept { return static_cast<std::uint32_t>(id_ & 0xFFFFFFF); }
  /// Isolate, slot and generation packed in one number: unique within a system.
  std::uint64_t id() const noexcept { return id_; }

  /// "/user/parent/child" while the actor lives, read on its own isolate (or
  /// from the driving thread of a manual system); elsewhere, and once it is
  /// gone, the bare id ("#isolate:slot.generation"). Builds a string: for logs.
  std::string path() const;

  /// Equal when both name the same incarnation in the same system.
  friend bool operator==(const ActorRef& a, const ActorRef& b) noexcept {
    return a.system_ == b.system_ && a.id_ == b.id_;
  }

 private:
  friend class detail::SystemCore;
  friend class detail::Mailbox;  // keeps a sender of its own system as an id
  friend struct std::hash<ActorRef>;
  ActorRef(detail::SystemCore* system, std::uint64_t id) noexcept : system_(system), id_(id) {}
  ActorRef(detail::SystemCore* system, std::uint32_t isolate, std::uint32_t slot,
           std::uint32_t generation) noexcept
      : system_(system),
        id_((std::uint64_t{isolate} << 52) | (std::uint64_t{slot & 0xFFFFFF} << 28) |
            (generation & 0xFFFFFFF)) {}

  // The send path, one for both forms a payload takes (detail::Word or
  // Message; runtime/Send.cpp). The common case, a message to an actor of
  // this thread's isolate whose unbounded mailbox has room in place, makes
  // no call but its tail (the turn, for an idle actor): it saves no
  // registers. Each step below takes the cases the one before it does not.
  template <class P>
  void send(detail::PayloadArg<P> payload, ActorRef sender) const;
  // To an actor of this thread's isolate that took no message in place: a
  // new segment, a mailbox that is not unbounded, an actor that is stopping.
  template <class P>
  void sendToCell(detail::ActorCell* cell, detail::PayloadArg<P> payload, ActorRef sender) const;
  // On this thread's isolate, what is no cell: the reply slot of an ask,
  // or the entry an actor that moved left behind.
  template <class P>
  void sendToEndpoint(detail::Endpoint* endpoint, detail::PayloadArg<P> payload,
                      ActorRef sender) const;
  // Not on this thread's isolate: from one of the system's isolates to
  // another straight into that pair's ring, a flood's every message.
  template <class P>
  void sendAcross(detail::PayloadArg<P> payload, ActorRef sender) const;
  // Everything else: the system's general path (SystemCore::send).
  template <class P>
  void sendElsewhere(detail::PayloadArg<P> payload, ActorRef sender) const;
  // To a router (coreactor/Router.hpp): its routee picked on this thread,
  // one of the system's isolates (`here`).
  template <class P>
  void sendRouted(detail::PayloadArg<P> payload, ActorRef sender,
                  detail::IsolateRuntime* here) const;

  detail::SystemCore* system_ = nullptr;
  std::uint64_t id_ = 0;
};

/// The seeds' name for an ActorRef.
using PID = ActorRef;

}  // namespace coreactor

/// Hashes an ActorRef by its system and its id(), as operator== compares
/// them, so that references key unordered containers.
template <>
struct std::hash<coreactor::ActorRef> {
  /// The hash of `ref`.
  std::size_t operator()(const coreactor::ActorRef& ref) const noexcept {
    // The system's address, spread by a multiply, mixed into the id: the
    // same id in two systems hashes apart.
    const auto system = reinterpret_cast<std::uintptr_t>(ref.system_);
    return std::hash<std::uint64_t>()(ref.id_ ^ (system * 0x9E3779B97F4A7C15ull));
  }
};
