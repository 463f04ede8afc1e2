/// @file
/// `coreactor/detail/CpuRelax.hpp` — the pause of a spin loop.
#pragma once

namespace coreactor::detail {

/// Tells the CPU this is a spin: a sibling hyperthread gets the core
/// meanwhile, and leaving the spin costs no memory-order machine clear.
inline void cpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace coreactor::detail
