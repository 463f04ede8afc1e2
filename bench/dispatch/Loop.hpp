// bench/dispatch/Loop.hpp — what every dispatch row runs on: the four
// built-in dispatchers, by name, and a fresh isolate with one of them bound
// to it. Each row builds its own, so no row inherits another's queues or
// counters.
#pragma once

#include <cstdlib>
#include <memory>
#include <string_view>

#include "coreactor/Dispatchers.hpp"
#include "coreactor/Isolate.hpp"

namespace coreactor::bench::dispatch {

using DispatcherFactory = std::unique_ptr<Dispatcher> (*)();

struct DispatcherKind {
  const char* name;
  DispatcherFactory make;
};

// The public factories, with the settings the targets are stated for.
inline constexpr DispatcherKind kDispatchers[] = {
    {"microtask", [] { return Dispatchers::Microtask(); }},
    {"immediate", [] { return Dispatchers::Immediate(); }},
    {"hybrid", [] { return Dispatchers::Hybrid(64); }},
    {"throughput", [] { return Dispatchers::Throughput(16); }},
};

inline const DispatcherKind& kindNamed(std::string_view name) {
  for (const DispatcherKind& kind : kDispatchers) {
    if (name == kind.name) return kind;
  }
  std::abort();  // a typo in a registration
}

/// A fresh isolate and a dispatcher bound to it. The dispatcher is declared
/// second so that it goes first: it may hand leftovers back to its isolate.
struct Loop {
  explicit Loop(DispatcherFactory make, const char* name)
      : isolate(optionsNamed(name)), dispatcher(make()) {
    dispatcher->bind(isolate);
  }
  static IsolateOptions optionsNamed(const char* name) {
    IsolateOptions options;
    options.name = name;
    return options;
  }

  Isolate isolate;
  std::unique_ptr<Dispatcher> dispatcher;
};

}  // namespace coreactor::bench::dispatch
