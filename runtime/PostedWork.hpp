// Work posted to another isolate that must not vanish if that isolate stops
// first: a heap task owning a `Work` value with run() and discard(), of
// which exactly one is called, once (SPEC X2: a message posted to a stopped
// isolate becomes a dead letter, a scheduling call completes with its
// error). A scheduling call that travels to the isolate holding its
// schedule is such a Work struct (runtime/schedule/Scheduling.cpp); messages from
// other threads go through the isolate's ForeignInbox instead.
#pragma once

#include <memory>
#include <system_error>
#include <utility>

#include "coreactor/Isolate.hpp"
#include "coreactor/Task.hpp"

namespace coreactor::detail {

/// A self-deleting task that runs `work.run()` when taken from a queue, or
/// `work.discard()` (noexcept) when a stopping isolate drops it unrun.
template <class Work>
class PostedWork final : public Task {
 public:
  explicit PostedWork(Work&& work) : Task(&run, &dispose), work_(std::move(work)) {}

 private:
  static void run(Task& t) {
    std::unique_ptr<PostedWork> self(static_cast<PostedWork*>(&t));
    self->work_.run();
  }
  static void dispose(Task& t) noexcept {
    std::unique_ptr<PostedWork> self(static_cast<PostedWork*>(&t));
    self->work_.discard();
  }
  Work work_;
};

/// Posts `work` to `isolate` as a macrotask (any thread); if the isolate has
/// stopped, discards it at once: either way exactly one of its two calls runs.
template <class Work>
void postOrDiscard(Isolate& isolate, Work&& work) {
  auto* task = new PostedWork<std::decay_t<Work>>(std::forward<Work>(work));
  try {
    isolate.post(*task);
  } catch (const std::system_error&) {
    task->discard();
  }
}

}  // namespace coreactor::detail
