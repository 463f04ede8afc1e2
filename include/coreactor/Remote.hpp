/// @file
/// `coreactor/Remote.hpp` — the message types that may cross between
/// processes, and their bytes.
//
// A message sent to an actor of another process (another MPI rank) crosses
// as bytes: its type's id, its length and its value's bytes (a frame). Each
// type that may cross is registered once per process, before the first
// send, under a name that every process uses for it:
//
//   struct Count { std::int64_t n; };                       // trivially copyable: its bytes
//   struct Line { std::string text;                         // anything else: cereal
//                 template <class A> void serialize(A& a) { a(text); } };
//   registerRemoteType<Count>("demo.Count");
//   registerRemoteType<Line>("demo.Line");
//
// The id is the 64-bit FNV-1a hash of the name, so it is the same in every
// process that registers the name, whatever the order of registration.
// A type with a cereal `serialize` (or `save`/`load`) crosses through
// cereal's binary archive (Debian's libcereal-dev, header-only); any other
// trivially copyable type as its own bytes. An ActorRef, alone or inside a
// message with a `serialize`, crosses as (rank, id) and names the same
// actor on the other side. All processes are assumed
// to be the same build on the same architecture (byte order, padding), as
// `mpirun` of one program gives. A trivially copyable type that holds a
// pointer crosses as that pointer's bytes, meaningless in the other process:
// give such a type a cereal `serialize` and register it as non-trivial.
//
// Errors, each named (coreactor/Error.hpp):
// - ErrRemoteTypeClash: a name (or its id) registered again for another type,
//   or a type registered again under another name. Registering the same
//   type under the same name again is allowed and returns the same id.
// - ErrNotSerializable: wire::encode of a message whose type is not
//   registered: the sender learns it at the send, the receiver never sees it.
// - ErrUnknownRemoteType: wire::decode of a frame whose id this process has
//   not registered.
// - ErrMalformedFrame: a frame cut short, or whose bytes do not decode as
//   its type (a trivially copyable type of another size, cereal failing).
//
// Thread-safety: registration and the wire calls may be made from any thread;
// the registry is guarded by a lock (a remote send costs a microsecond or
// more; the lock is not what it waits for).
#pragma once

#include <cereal/archives/binary.hpp>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Error.hpp"
#include "coreactor/Message.hpp"

namespace coreactor {

/// The stable id of a remote type: FNV-1a-64 of its registered name.
using RemoteTypeId = std::uint64_t;

namespace detail {

/// A reference as it crosses between processes: the rank of the actor's
/// system and the id the actor has there (ActorRef::id on that rank).
struct WireRef {
  std::uint32_t rank = 0xFFFFFFFF;  ///< 0xFFFFFFFF: the empty reference
  std::uint64_t id = 0;
};
/// `ref` as the wire carries it, on a thread that encodes a message for
/// another rank (ErrNotSerializable anywhere else, or for a reference of
/// another system).
WireRef refToWire(const ActorRef& ref);
/// The reference here of `ref`, on a thread that decodes a message from
/// another rank (ErrMalformedFrame for a rank or isolate the cluster does
/// not have).
ActorRef refFromWire(const WireRef& ref);

/// What the registry knows of one remote type.
struct RemoteType {
  std::string_view name;  // points into the registry's own copy
  RemoteTypeId id = 0;
  const MessageType* type = nullptr;
  bool trivial = false;  ///< crosses as its own bytes
  /// Appends the value's bytes (not the frame's header).
  void (*encode)(const Message& message, std::string& out) = nullptr;
  /// The value back from its bytes; throws ErrMalformedFrame.
  Message (*decode)(std::string_view bytes) = nullptr;
};

/// Adds `entry` (its name copied); returns the registered id. Throws
/// ErrRemoteTypeClash.
RemoteTypeId registerRemote(std::string_view name, RemoteType entry);

template <class T>
struct RemoteCodec {
  /// A type cereal can write (it has a serialize or save/load, or is one
  /// cereal knows) goes through cereal, even if trivially copyable: an
  /// ActorRef, or a struct holding one, must be translated, not copied.
  static constexpr bool kCereal =
      cereal::traits::is_output_serializable<T, cereal::BinaryOutputArchive>::value &&
      !std::is_arithmetic_v<T> && !std::is_enum_v<T>;
  static constexpr bool kTrivial = !kCereal && std::is_trivially_copyable_v<T>;
  static_assert(kCereal || kTrivial,
                "a remote type that is not trivially copyable needs a cereal serialize "
                "(or save/load)");

  static void encode(const Message& message, std::string& out) {
    const T& value = *message.get<T>();
    if constexpr (kTrivial) {
      const std::size_t at = out.size();
      out.resize(at + sizeof(T));
      std::memcpy(out.data() + at, &value, sizeof(T));
    } else {
      std::ostringstream stream(std::ios::binary);
      {
        cereal::BinaryOutputArchive archive(stream);
        archive(value);
      }
      out += stream.str();
    }
  }

  static Message decode(std::string_view bytes) {
    if constexpr (kTrivial) {
      static_assert(std::is_default_constructible_v<T>,
                    "a trivially copyable remote type needs a default constructor");
      if (bytes.size() != sizeof(T)) {
        throwError(Error::ErrMalformedFrame,
                   std::string("a frame of ") + std::string(typeNameOf<T>()) + " holds " +
                       std::to_string(bytes.size()) + " bytes, not " + std::to_string(sizeof(T)));
      }
      T value;
      std::memcpy(static_cast<void*>(&value), bytes.data(), sizeof(T));
      return Message(std::move(value));
    } else {
      static_assert(std::is_default_constructible_v<T>,
                    "a remote type decoded by cereal needs a default constructor");
      T value;
      try {
        std::istringstream stream(std::string(bytes), std::ios::binary);
        cereal::BinaryInputArchive archive(stream);
        archive(value);
      } catch (const std::exception& e) {
        throwError(Error::ErrMalformedFrame, std::string("a frame of ") +
                                                 std::string(typeNameOf<T>()) +
                                                 " does not decode: " + e.what());
      }
      return Message(std::move(value));
    }
  }
};

}  // namespace detail

/// cereal's way to write an ActorRef inside a message for another rank:
/// (rank, id), translated on both sides.
template <class Archive>
void save(Archive& archive, const ActorRef& ref) {
  const detail::WireRef wire = detail::refToWire(ref);
  archive(wire.rank, wire.id);
}
/// cereal's way to read an ActorRef written by save().
template <class Archive>
void load(Archive& archive, ActorRef& ref) {
  detail::WireRef wire;
  archive(wire.rank, wire.id);
  ref = detail::refFromWire(wire);
}

/// Registers T as a type that may cross between processes under `name`
/// (the same name in every process). Returns its id. Throws
/// ErrRemoteTypeClash (see the file's comment) and ErrInvalidOption for an
/// empty name.
template <class T>
RemoteTypeId registerRemoteType(std::string_view name) {
  static_assert(std::is_move_constructible_v<T>, "a message type is move-constructible");
  using Codec = detail::RemoteCodec<T>;
  detail::RemoteType entry;
  entry.type = detail::MessageAccess::typeOf<T>();
  entry.trivial = Codec::kTrivial;
  entry.encode = &Codec::encode;
  entry.decode = &Codec::decode;
  return detail::registerRemote(name, entry);
}

/// Frames: what crosses between processes for one message.
namespace wire {

/// A frame's header: the type's id (8 bytes) and the value's length (4 bytes),
/// in the byte order of the machine.
inline constexpr std::size_t kHeaderSize = 12;

/// The id of `name`: FNV-1a-64 of its bytes.
RemoteTypeId idOf(std::string_view name) noexcept;

/// True if `message`'s type is registered (an empty message is not).
bool isRegistered(const Message& message);

/// The registered name of `id`, or empty.
std::string_view nameOf(RemoteTypeId id);

/// Appends `message`'s frame to `out`. Throws ErrNotSerializable for a type
/// that is not registered (or an empty message); `out` is then unchanged.
void encode(const Message& message, std::string& out);

/// Decodes the frame at the start of `bytes` and sets `used` to its size.
/// Throws ErrMalformedFrame (cut short, or its bytes do not decode) or
/// ErrUnknownRemoteType.
Message decode(std::string_view bytes, std::size_t& used);

}  // namespace wire
}  // namespace coreactor
