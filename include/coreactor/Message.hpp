/// @file
/// `coreactor/Message.hpp` — a message of any type, held without a heap
/// allocation when it is small.
//
// A Message owns one value of any move-constructible type. Values of up to
// Message::kInlineSize bytes (pointer alignment at most) whose move constructor does
// not throw are stored inline: building, moving and destroying one allocates
// nothing. Larger values go to the heap, one allocation each. Move-only types
// (std::unique_ptr, ...) are fine.
//
// Matching is by exact type: `get<T>()` is a pointer compare against T's
// descriptor, no RTTI, no string compare.
//
// Thread-safety: a value type; one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace coreactor {
namespace detail {

/// The readable name of T, computed at compile time from the compiler's
/// function signature ("coreactor::Ping", not a mangled name).
template <class T>
constexpr std::string_view typeNameOf() noexcept {
  constexpr std::string_view signature = __PRETTY_FUNCTION__;
  constexpr std::string_view marker = "T = ";
  constexpr std::size_t start = signature.find(marker) + marker.size();
  constexpr std::size_t end = signature.find_first_of(";]", start);
  return signature.substr(start, end - start);
}

/// What Message needs to know about one type. One constant per type; its
/// address is the type's identity.
struct MessageType {
  std::string_view name;
  bool inlineStored;
  /// Inline and trivially copyable: moved by copying the bytes, no call.
  bool trivial;
  /// Trivial and at most 8 bytes: the whole value is the buffer's first word.
  bool word;
  /// The actor cell acts on it before (or instead of) the handler
  /// (kHandledByCell): one test per message finds the ones that are not.
  bool handledByCell;
  /// A router acts on it instead of routing it to one routee
  /// (kRoutedSpecially: PoisonPill, Broadcast, ...; coreactor/Router.hpp).
  bool routedSpecially;
  void (*relocate)(void* from, void* to) noexcept;  // move-construct `to`, destroy `from`
  void (*destroy)(void* at) noexcept;
  /// Copy-constructs `to` from `from`; nullptr for a type without a copy
  /// constructor (a repeating schedule needs one: it sends a copy per tick).
  void (*copy)(const void* from, void* to);
};

/// True for the few types the actor cell itself acts on when one reaches
/// the head of a mailbox (PoisonPill, the runtime's strict schedule tick).
/// Specialized right after each such type, before any use.
template <class T>
inline constexpr bool kHandledByCell = false;

/// True for the few types a router acts on itself (coreactor/Router.hpp).
/// Specialized right after each such type, before any use.
template <class T>
inline constexpr bool kRoutedSpecially = false;

template <class T, bool Inline>
struct MessageTypeOf {
  static void relocate(void* from, void* to) noexcept {
    if constexpr (Inline) {
      T* src = std::launder(static_cast<T*>(from));
      ::new (to) T(std::move(*src));
      src->~T();
    } else {
      *static_cast<T**>(to) = *static_cast<T**>(from);
    }
  }
  static void destroy(void* at) noexcept {
    if constexpr (Inline) {
      std::launder(static_cast<T*>(at))->~T();
    } else {
      delete *static_cast<T**>(at);
    }
  }
  static void copy(const void* from, void* to) {
    if constexpr (Inline) {
      ::new (to) T(*std::launder(static_cast<const T*>(from)));
    } else {
      *static_cast<T**>(to) = new T(**static_cast<T* const*>(from));
    }
  }
  static constexpr void (*copyOrNull())(const void*, void*) {
    if constexpr (std::is_copy_constructible_v<T>) {
      return &copy;
    } else {
      return nullptr;
    }
  }
  static constexpr MessageType kType{
      typeNameOf<T>(),
      Inline,
      Inline&& std::is_trivially_copyable_v<T>&& std::is_trivially_destructible_v<T>,
      Inline && sizeof(T) <= 8 &&
          std::is_trivially_copyable_v<T>&& std::is_trivially_destructible_v<T>,
      kHandledByCell<T>,
      kRoutedSpecially<T>,
      &relocate,
      &destroy,
      copyOrNull()};
};

struct MessageAccess;

}  // namespace detail

/// One value of any move-constructible type, held inline (no allocation)
/// when it is small: what tell() sends and a handler reads. Move-only.
class Message {
 public:
  /// The largest value, in bytes, held inline.
  static constexpr std::size_t kInlineSize = 40;
  /// The strictest alignment a value held inline may need.
  static constexpr std::size_t kInlineAlign = alignof(void*);

  /// True when a T is held inline: it fits, is aligned at most as a pointer,
  /// and its move constructor does not throw.
  template <class T>
  static constexpr bool storedInline =
      sizeof(T) <= kInlineSize &&
      alignof(T) <= kInlineAlign&& std::is_nothrow_move_constructible_v<T>;

  Message() noexcept = default;

  /// Holds `value`, moved or copied in: inline when storedInline, else on
  /// the heap (one allocation).
  template <class T, class V = std::decay_t<T>>
  requires(!std::is_same_v<V, Message>) explicit Message(T&& value)
      : type_(&detail::MessageTypeOf<V, storedInline<V>>::kType) {
    if constexpr (kWordStored<V>) {
      storeWord(value);
    } else if constexpr (storedInline<V>) {
      ::new (static_cast<void*>(storage_)) V(std::forward<T>(value));
    } else {
      *reinterpret_cast<V**>(storage_) = new V(std::forward<T>(value));
    }
  }

  /// Takes `other`'s value; `other` is left empty.
  [[gnu::always_inline]] Message(Message&& other) noexcept : type_(other.type_) { take(other); }
  /// Destroys the value held, then takes `other`'s; `other` is left empty.
  Message& operator=(Message&& other) noexcept {
    if (this != &other) {
      reset();
      type_ = other.type_;
      take(other);
    }
    return *this;
  }
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;
  ~Message() { reset(); }

  /// True when the message holds no value.
  bool empty() const noexcept { return type_ == nullptr; }

  /// True if the message holds exactly a T.
  template <class T>
  bool is() const noexcept {
    using V = std::remove_cvref_t<T>;
    return type_ == &detail::MessageTypeOf<V, storedInline<V>>::kType;
  }

  /// The held T, or nullptr when the message holds another type.
  template <class T>
  T* get() noexcept {
    if (!is<T>()) return nullptr;
    return address<std::remove_cvref_t<T>>();
  }
  /// The held T, or nullptr: get() on a const message.
  template <class T>
  const T* get() const noexcept {
    return const_cast<Message*>(this)->get<T>();
  }

  /// True when the held value can be copied (clone()); an empty message can.
  bool copyable() const noexcept { return type_ == nullptr || type_->copy != nullptr; }
  /// A copy of this message. Requires copyable(): the value's copy
  /// constructor runs (and may throw); a copy of a large value allocates.
  Message clone() const {
    Message out;
    if (type_ == nullptr) return out;
    if (type_->trivial) {
      std::memcpy(out.storage_, storage_, kInlineSize);
    } else {
      type_->copy(storage_, out.storage_);
    }
    out.type_ = type_;
    return out;
  }

  /// The held type's name, e.g. "Ping"; "(empty)" for an empty message.
  std::string_view typeName() const noexcept {
    return type_ != nullptr ? type_->name : std::string_view("(empty)");
  }

  /// Destroys the value held; the message is empty afterwards.
  void reset() noexcept {
    if (type_ != nullptr) {
      if (!type_->trivial) type_->destroy(storage_);
      type_ = nullptr;
    }
  }

 private:
  // The runtime's one way in: a word message as its type and word, the type
  // a message holds (detail::MessageAccess, below).
  friend struct detail::MessageAccess;

  // A word: a value of up to 8 bytes that is trivially copyable (an int, a
  // pointer, an enum, a small struct), held inline. Such a message is its
  // type and one 64-bit word, and travels as those two on the fast path of
  // tell, with no Message built on the sender's side.
  template <class V>
  static constexpr bool kWord =
      storedInline<V> &&
      sizeof(V) <= 8 && std::is_trivially_copyable_v<V>&& std::is_trivially_destructible_v<V>;
  template <class V>
  static const detail::MessageType* typeOf() noexcept {
    return &detail::MessageTypeOf<V, storedInline<V>>::kType;
  }
  template <class V>
  static std::uint64_t wordOf(const V& value) noexcept {
    std::uint64_t word = 0;
    std::memcpy(&word, &value, sizeof(V));
    return word;
  }
  // The word message of `type` (a type whose `word` flag is set) holding `word`.
  Message(const detail::MessageType* type, std::uint64_t word) noexcept : type_(type) {
    storeWord(word);
  }

  // Moves other's value into this (type_ already copied). The common small,
  // trivially copyable message moves as plain bytes (bench "actor/tell").
  [[gnu::always_inline]] void take(Message& other) noexcept {
    if (type_ == nullptr) return;
    if (type_->trivial) {
      std::memcpy(storage_, other.storage_, kInlineSize);
    } else {
      type_->relocate(other.storage_, storage_);
    }
    other.type_ = nullptr;
  }

  // A trivially copyable value of up to 8 bytes (an int, a pointer, an
  // enum) is written as the first 16 bytes of the buffer in one store,
  // zero-extended: the move that follows at once (into a mailbox) reads
  // those bytes with one 16-byte load, and a load is forwarded from the
  // store buffer only if one store covers it. Written the plain way, the
  // 4 bytes of an int stalled that load for a dozen cycles, a fifth of a
  // tell's cost (bench actor/tell, perf annotate).
  template <class V>
  static constexpr bool kWordStored =
#if defined(__SSE2__)
      kWord<V>;
#else
      false;
#endif
  template <class V>
  void storeWord(const V& value) noexcept {
    storeWord(wordOf(value));
  }
  /// The value of a word message (its type's `word` flag set), as storeWord() wrote it.
  std::uint64_t storedWord() const noexcept {
    std::uint64_t word;
    std::memcpy(&word, storage_, sizeof word);
    return word;
  }
  void storeWord(std::uint64_t word) noexcept {
#if defined(__SSE2__)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(storage_),
                     _mm_cvtsi64_si128(static_cast<long long>(word)));
#else
    std::memcpy(storage_, &word, sizeof word);
#endif
  }

  template <class V>
  V* address() noexcept {
    if constexpr (storedInline<V>) {
      return std::launder(reinterpret_cast<V*>(storage_));
    } else {
      return *reinterpret_cast<V**>(storage_);
    }
  }

  const detail::MessageType* type_ = nullptr;
  alignas(kInlineAlign) unsigned char storage_[kInlineSize];
};

namespace detail {

/// The runtime's access to a Message's inside, in one place: the word form
/// of a word-sized message (its type and its 64-bit value), and the type a
/// message holds. Not for users: the public contract is Message's own.
struct MessageAccess {
  /// True for a value that travels as a word (trivially copyable, at most
  /// 8 bytes, held inline).
  template <class V>
  static constexpr bool kWord = Message::kWord<V>;
  /// The type constant of V.
  template <class V>
  static const MessageType* typeOf() noexcept {
    return Message::typeOf<V>();
  }
  /// The 64 bits of a word-sized `value`.
  template <class V>
  static std::uint64_t wordOf(const V& value) noexcept {
    return Message::wordOf<V>(value);
  }
  /// The word message of `type` (its `word` flag set) holding `word`.
  static Message make(const MessageType* type, std::uint64_t word) noexcept {
    return Message(type, word);
  }
  /// The type `message` holds, or null for an empty one.
  static const MessageType* type(const Message& message) noexcept { return message.type_; }
  /// Sets the type of `message` without touching its bytes: null forgets a
  /// word-sized value (which has nothing to destroy); a type of the same
  /// layout relabels it.
  static void setType(Message& message, const MessageType* type) noexcept { message.type_ = type; }
  /// The value of a word message, as it was stored.
  static std::uint64_t storedWord(const Message& message) noexcept { return message.storedWord(); }
  /// The inline bytes of an empty `message`, for a value built in place
  /// (a ring's run of words) whose type setType() then names.
  static void* storage(Message& message) noexcept { return message.storage_; }
};

/// The send path carries a message in one of two forms: a Message, or a
/// Word, which is a word message (Message::kWord) as its type and its
/// 64-bit value. tell() picks the form. Every step of the path is written
/// once for both. Only the places that store a message tell them apart:
/// the mailbox keeps a Word in a 32-byte cell and a Message in an
/// envelope, and the ring batches words. A Word is passed by value, in two
/// registers.
struct Word {
  const MessageType* type;
  std::uint64_t value;
  /// The Message a path builds where it needs one (a bounded mailbox, a
  /// reply, a dead letter).
  Message message() const noexcept { return MessageAccess::make(type, value); }
  /// True when `message` holds a word-sized value (a Message of a word
  /// type): the mailbox and the ring store it as a Word too.
  static bool in(const Message& message) noexcept {
    const MessageType* type = MessageAccess::type(message);
    return type != nullptr && type->word;
  }
  /// The Word that `message` holds. Precondition: in(message).
  static Word of(const Message& message) noexcept {
    return Word{MessageAccess::type(message), MessageAccess::storedWord(message)};
  }
};

/// How a function that is not inlined takes a payload: a Word by value, a
/// Message by rvalue reference.
template <class P>
using PayloadArg = std::conditional_t<std::is_same_v<P, Word>, Word, P&&>;

/// The payload as a Message: built from a Word, moved from a Message.
inline Message asMessage(Word word) noexcept {
  return word.message();
}
inline Message&& asMessage(Message& message) noexcept {
  return std::move(message);
}

}  // namespace detail

}  // namespace coreactor
