// Feeding actors in batches from a foreign thread. See
// include/coreactor/Feeder.hpp, transport/ForeignInbox.hpp and runtime/ForeignReceiver.hpp.
#include "coreactor/Feeder.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "SystemCore.hpp"
#include "coreactor/ActorSystem.hpp"

namespace coreactor::detail {

/// What a Feeder keeps: per isolate of its system, the parcel of letters
/// being gathered and the producer token it queues parcels with (made at its
/// first batch).
class FeederState {
 public:
  FeederState(SystemCore& core, std::size_t batch) : core_(core), batch_(batch) {
    isolates_.resize(core.isolateCount());
  }

  void put(const ActorRef& to, Message&& message, ActorRef sender) {
    // Another system's actor, none, or a sender on one of the system's own
    // loops: the plain tell, at once. Once a graceful shutdown has begun,
    // the plain tell too: it refuses the message as a dead letter.
    if (!core_.isOurs(to) || core_.onOwnIsolate() || !core_.running()) {
      to.deliver(std::move(message), sender);
      return;
    }
    PerIsolate& mine = isolates_[to.isolateIndex()];
    if (mine.parcel == nullptr)
      mine.parcel = core_.runtime(to.isolateIndex()).foreign->spareParcel();
    if (mine.parcel == nullptr) {
      mine.parcel = std::make_unique<ForeignInbox::Parcel>();
      mine.parcel->reserve(std::min(batch_, kReserveAtMost));
    }
    mine.parcel->push_back(ForeignInbox::Letter{to.id(), Envelope{std::move(message), sender}, {}});
    ++pending_;
    if (mine.parcel->size() >= batch_) flush(to.isolateIndex());
  }

  void flush() {
    for (std::size_t i = 0; i < isolates_.size(); ++i) {
      if (isolates_[i].parcel != nullptr && !isolates_[i].parcel->empty()) flush(i);
    }
  }

  std::size_t pending() const noexcept { return pending_; }

 private:
  // A parcel's room is reserved up to this many letters at once; a larger
  // batch grows it as it fills.
  static constexpr std::size_t kReserveAtMost = 4096;

  struct PerIsolate {
    std::unique_ptr<ForeignInbox::Parcel> parcel;  // made at the first letter of each batch
    std::unique_ptr<moodycamel::ProducerToken> token;
  };

  void flush(std::size_t index) {
    PerIsolate& mine = isolates_[index];
    IsolateRuntime& rt = core_.runtime(index);
    const std::size_t n = mine.parcel->size();
    core_.delivery().waitForForeignRoom(rt, n);
    if (mine.token == nullptr) {
      mine.token = std::make_unique<moodycamel::ProducerToken>(rt.foreign->makeParcelToken());
    }
    if (!rt.foreign->putParcel(*mine.token, mine.parcel)) {
      // The isolate has stopped: what was gathered for it is dead letters.
      for (ForeignInbox::Letter& letter : *mine.parcel) rt.foreign->drop(letter);
      mine.parcel.reset();
    }
    pending_ -= n;
  }

  SystemCore& core_;
  std::size_t batch_;
  std::size_t pending_ = 0;
  std::vector<PerIsolate> isolates_;
};

}  // namespace coreactor::detail

namespace coreactor {

Feeder::Feeder(ActorSystem& system, std::size_t batch) {
  if (batch == 0) throwError(Error::ErrInvalidOption, "Feeder with a batch of 0");
  state_ = std::make_unique<detail::FeederState>(detail::coreOf(system), batch);
}

Feeder::~Feeder() {
  if (state_ == nullptr) return;
  try {
    state_->flush();
  } catch (...) {
    // Out of memory while moving the last batch in: a destructor cannot
    // throw; what could not be queued is lost with the Feeder, and said so.
    std::fprintf(stderr, "[coreactor] a Feeder lost %zu messages it could not queue: %s\n",
                 state_->pending(), describe(std::current_exception()).c_str());
  }
}

Feeder::Feeder(Feeder&&) noexcept = default;
Feeder& Feeder::operator=(Feeder&& other) noexcept {
  if (this != &other) {
    if (state_ != nullptr) {
      try {
        state_->flush();
      } catch (...) {
        std::fprintf(stderr, "[coreactor] a Feeder lost %zu messages it could not queue: %s\n",
                     state_->pending(), describe(std::current_exception()).c_str());
      }
    }
    state_ = std::move(other.state_);
  }
  return *this;
}

void Feeder::put(const ActorRef& to, Message&& message, ActorRef sender) {
  state_->put(to, std::move(message), sender);
}

void Feeder::flush() {
  state_->flush();
}

std::size_t Feeder::pending() const noexcept {
  return state_ != nullptr ? state_->pending() : 0;
}

}  // namespace coreactor
