// The per-CPU count of awake loops (CpuShare.hpp).
#include "CpuShare.hpp"

#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <memory>

namespace coreactor::detail {
namespace {

struct alignas(64) Slot {
  std::atomic<int> loops{0};
};

struct Table {
  std::size_t size = 0;
  std::unique_ptr<Slot[]> slots;
  Table() {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    size = cpus > 0 ? static_cast<std::size_t>(cpus) : 0;
    if (size != 0) slots = std::make_unique<Slot[]>(size);
  }
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

int CpuShare::move(int counted, int cpu) noexcept {
  Table& t = table();
  const int here = cpu >= 0 && static_cast<std::size_t>(cpu) < t.size ? cpu : kNone;
  if (here == counted) return counted;
  leave(counted);
  if (here != kNone)
    t.slots[static_cast<std::size_t>(here)].loops.fetch_add(1, std::memory_order_relaxed);
  return here;
}

int CpuShare::leave(int counted) noexcept {
  if (counted != kNone) {
    table().slots[static_cast<std::size_t>(counted)].loops.fetch_sub(1, std::memory_order_relaxed);
  }
  return kNone;
}

bool CpuShare::crowded(int cpu) noexcept {
  return cpu != kNone &&
         table().slots[static_cast<std::size_t>(cpu)].loops.load(std::memory_order_relaxed) > 1;
}

}  // namespace coreactor::detail
