// An immutable string in 16 bytes: up to 15 characters inline, longer ones
// in one heap block. What an actor cell keeps its path in: a std::string
// takes 32 bytes, and a cell is most of an idle actor's memory (bench
// actor/memory).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace coreactor::detail {

class CompactString {
 public:
  static constexpr std::size_t kInline = 15;

  CompactString() noexcept { bytes_[kTagAt] = 0; }
  explicit CompactString(std::string_view text) {
    if (text.size() <= kInline) {
      std::memcpy(bytes_, text.data(), text.size());
      bytes_[kTagAt] = static_cast<char>(text.size());
      return;
    }
    if (text.size() > UINT32_MAX) throw std::length_error("CompactString: longer than 4 GiB");
    char* heap = new char[text.size()];
    std::memcpy(heap, text.data(), text.size());
    const auto size = static_cast<std::uint32_t>(text.size());
    std::memcpy(bytes_, &heap, sizeof heap);
    std::memcpy(bytes_ + sizeof heap, &size, sizeof size);
    bytes_[kTagAt] = kHeap;
  }
  CompactString(CompactString&& other) noexcept {
    std::memcpy(bytes_, other.bytes_, sizeof bytes_);
    other.bytes_[kTagAt] = 0;
  }
  CompactString& operator=(CompactString&& other) noexcept {
    if (this != &other) {
      release();
      std::memcpy(bytes_, other.bytes_, sizeof bytes_);
      other.bytes_[kTagAt] = 0;
    }
    return *this;
  }
  CompactString(const CompactString&) = delete;
  CompactString& operator=(const CompactString&) = delete;
  ~CompactString() { release(); }

  std::string_view view() const noexcept {
    if (bytes_[kTagAt] != kHeap) return {bytes_, static_cast<std::size_t>(bytes_[kTagAt])};
    return {heap(), size()};
  }

 private:
  static constexpr std::size_t kTagAt = 15;
  static constexpr char kHeap = -1;  // the tag of a heap string; else the inline length
  const char* heap() const noexcept {
    char* p;
    std::memcpy(&p, bytes_, sizeof p);
    return p;
  }
  std::size_t size() const noexcept {
    std::uint32_t n;
    std::memcpy(&n, bytes_ + sizeof(char*), sizeof n);
    return n;
  }
  void release() noexcept {
    if (bytes_[kTagAt] == kHeap) delete[] heap();
  }

  char bytes_[16];
};
static_assert(sizeof(CompactString) == 16);

}  // namespace coreactor::detail
