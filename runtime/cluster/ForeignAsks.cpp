// See ForeignAsks.hpp.
#include "runtime/cluster/ForeignAsks.hpp"

#include <cstdio>
#include <utility>
#include <vector>

#include "coreactor/Error.hpp"

namespace coreactor::detail {

namespace {
// A reference's generation has 28 bits; 0 is never handed out.
constexpr std::uint32_t kLargestId = 0xFFFFFFF;
}  // namespace

ForeignAsks::~ForeignAsks() {
  close(make_error_code(Error::ErrActorSystemNotStarted));
}

std::uint32_t ForeignAsks::open(AskCompletion& completion, std::chrono::nanoseconds timeout) {
  const Steady::time_point now = Steady::now();
  // A timeout past the clock's range never expires.
  const auto left =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::time_point::max() - now);
  const Steady::time_point deadline =
      timeout >= left ? Steady::time_point::max()
                      : now + std::chrono::duration_cast<Steady::duration>(timeout);
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed_) return 0;
  std::uint32_t id = next_;
  while (open_.contains(id)) id = id == kLargestId ? 1 : id + 1;  // one ask that outlived 268M
  next_ = id == kLargestId ? 1 : id + 1;
  const auto at = deadlines_.emplace(deadline, id);
  const bool earliest = at == deadlines_.begin();
  open_.emplace(id, Entry{std::move(completion), at});
  if (!timer_.joinable()) {
    timer_ = std::thread([this] { timeLoop(); });
  } else if (earliest) {
    changed_.notify_one();
  }
  return id;
}

bool ForeignAsks::complete(std::uint32_t id, Message* reply, std::error_code error) noexcept {
  AskCompletion completion;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = open_.find(id);
    if (it == open_.end()) return false;
    completion = std::move(it->second.completion);
    deadlines_.erase(it->second.deadline);
    open_.erase(it);
  }
  finish(completion, reply, error);
  return true;
}

void ForeignAsks::dismiss(std::uint32_t id) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = open_.find(id);
  if (it == open_.end()) return;
  deadlines_.erase(it->second.deadline);
  open_.erase(it);
}

void ForeignAsks::close(std::error_code error) noexcept {
  std::vector<AskCompletion> left;
  std::thread timer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_ && !timer_.joinable() && open_.empty()) return;
    closed_ = true;
    for (auto& [id, entry] : open_) left.push_back(std::move(entry.completion));
    open_.clear();
    deadlines_.clear();
    timer = std::move(timer_);
  }
  changed_.notify_all();
  if (timer.joinable()) timer.join();
  for (AskCompletion& completion : left) finish(completion, nullptr, error);
}

std::size_t ForeignAsks::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_.size();
}

void ForeignAsks::timeLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!closed_) {
    if (deadlines_.empty() || deadlines_.begin()->first == Steady::time_point::max()) {
      changed_.wait(lock);
      continue;
    }
    const Steady::time_point next = deadlines_.begin()->first;
    if (Steady::now() < next) {
      changed_.wait_until(lock, next);
      continue;
    }
    // Every slot due now, completed outside the lock.
    std::vector<AskCompletion> due;
    const Steady::time_point now = Steady::now();
    while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
      const auto it = open_.find(deadlines_.begin()->second);
      due.push_back(std::move(it->second.completion));
      open_.erase(it);
      deadlines_.erase(deadlines_.begin());
    }
    lock.unlock();
    for (AskCompletion& completion : due) {
      finish(completion, nullptr, make_error_code(Error::ErrAskTimeout));
    }
    lock.lock();
  }
}

void ForeignAsks::finish(AskCompletion& completion, Message* reply,
                         std::error_code error) noexcept {
  try {
    completion(reply, error);
  } catch (...) {
    std::fprintf(stderr, "[coreactor] an ask's completion threw: %s\n",
                 describe(std::current_exception()).c_str());
  }
}

}  // namespace coreactor::detail
