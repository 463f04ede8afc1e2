// A move-only std::function for callbacks on hot paths: a callable of up to
// kInline bytes lives inside the object, a bigger one on the heap. Calling
// it is one indirect call; moving an inline, trivially copyable callable is
// a copy of its bytes, and destroying one does nothing. std::function keeps
// only 16 bytes inline and goes through its manager to move and to destroy.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace coreactor::detail {

template <class Signature, std::size_t kInline>
class InlineFunction;

template <class R, class... Args, std::size_t kInline>
class InlineFunction<R(Args...), kInline> {
 public:
  InlineFunction() noexcept = default;

  template <class F>
  requires(!std::is_same_v<std::decay_t<F>, InlineFunction> &&
           std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
      InlineFunction(F&& f) {  // NOLINT(google-explicit-constructor): as std::function
    using Fn = std::decay_t<F>;
    if constexpr (fitsInline<Fn>()) {
      ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
      invoke_ = [](void* s, Args... args) -> R {
        return (*std::launder(static_cast<Fn*>(s)))(std::forward<Args>(args)...);
      };
      if constexpr (!(std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>)) {
        manage_ = [](void* from, void* to) noexcept {
          Fn* source = std::launder(static_cast<Fn*>(from));
          if (to != nullptr) ::new (to) Fn(std::move(*source));
          source->~Fn();
        };
      }
    } else {
      Fn* boxed = new Fn(std::forward<F>(f));
      std::memcpy(storage_, &boxed, sizeof(boxed));
      invoke_ = [](void* s, Args... args) -> R {
        Fn* fn;
        std::memcpy(&fn, s, sizeof(fn));
        return (*fn)(std::forward<Args>(args)...);
      };
      manage_ = [](void* from, void* to) noexcept {
        if (to != nullptr) {
          std::memcpy(to, from, sizeof(Fn*));  // the box changes hands
          return;
        }
        Fn* fn;
        std::memcpy(&fn, from, sizeof(fn));
        delete fn;
      };
    }
  }

  InlineFunction(InlineFunction&& other) noexcept
      : invoke_(std::exchange(other.invoke_, nullptr)), manage_(other.manage_) {
    if (manage_ != nullptr) {
      manage_(other.storage_, storage_);
      other.manage_ = nullptr;
    } else if (invoke_ != nullptr) {
      std::memcpy(storage_, other.storage_, kInline);
    }
  }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      ::new (this) InlineFunction(std::move(other));
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  explicit operator bool() const noexcept { return invoke_ != nullptr; }
  /// Precondition: holds a callable.
  R operator()(Args... args) { return invoke_(storage_, std::forward<Args>(args)...); }

 private:
  template <class Fn>
  static constexpr bool fitsInline() {
    return sizeof(Fn) <= kInline && alignof(Fn) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<Fn>;
  }
  void reset() noexcept {
    if (manage_ != nullptr) manage_(storage_, nullptr);
    invoke_ = nullptr;
    manage_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char storage_[kInline];
  R (*invoke_)(void*, Args...) = nullptr;
  void (*manage_)(void* from, void* to) noexcept = nullptr;  // to == nullptr: destroy
};

}  // namespace coreactor::detail
