#include "coreactor/Dispatcher.hpp"

#include <cstdio>
#include <string>

#include "coreactor/Error.hpp"

namespace coreactor {

bool Dispatcher::adoptErrorSink(const ErrorSink& sink) {
  if (onError_) return false;
  onError_ = sink;
  return true;
}

void Dispatcher::reportError(std::exception_ptr error) noexcept {
  const std::string name(id());
  if (!onError_) {
    std::fprintf(stderr, "[coreactor] dispatcher '%s': a unit of work threw: %s\n", name.c_str(),
                 describe(error).c_str());
    return;
  }
  try {
    onError_(error, id());
  } catch (...) {
    std::fprintf(stderr,
                 "[coreactor] dispatcher '%s': a unit of work threw: %s; "
                 "its error sink threw too: %s\n",
                 name.c_str(), describe(error).c_str(), describe(std::current_exception()).c_str());
  }
}

std::unique_ptr<Dispatcher> instanceFor(const Dispatcher& prototype) {
  std::unique_ptr<Dispatcher> copy = prototype.clone();
  if (copy == nullptr) {
    throwError(Error::ErrDispatcherNotClonable,
               "dispatcher '" + std::string(prototype.id()) +
                   "' has no clone(); give the system a factory to make one per isolate");
  }
  return copy;
}

void BoundDispatcher::bind(Isolate& isolate) {
  if (loop_ == &isolate) return;
  if (loop_ != nullptr) {
    throwError(Error::ErrDispatcherBoundElsewhere,
               "dispatcher '" + std::string(id()) + "' serves isolate '" + loop_->name() +
                   "' and cannot also serve '" + isolate.name() + "'; make one per isolate");
  }
  loop_ = &isolate;
}

void BoundDispatcher::bindToCurrent() {
  Isolate* here = Isolate::current();
  if (here == nullptr) {
    throwError(Error::ErrNotOnIsolate, "dispatcher '" + std::string(id()) +
                                           "' is not bound and was used outside any isolate");
  }
  loop_ = here;
}

void BoundDispatcher::checkOnLoop() const {
  Isolate* here = Isolate::current();
  if (here != loop_ && !loop_->isLoopThread()) {
    throwError(Error::ErrDispatcherBoundElsewhere,
               "dispatcher '" + std::string(id()) + "' serves isolate '" + loop_->name() +
                   "' and was used from " +
                   (here != nullptr ? "isolate '" + here->name() + "'" : "another thread"));
  }
}

void BoundDispatcher::discardUnit(Task& task) noexcept {
  if (loop_ != nullptr) {
    detail::IsolateHooks::discard(*loop_, task);
  } else {
    task.discard();
  }
}

}  // namespace coreactor
