// bench/caf/Messages.hpp — the CAF arm's messages: small structs, as our
// arm's, each allowed to stay unserialisable (CAF 0.17 wants a type to be
// serialisable unless told it never leaves the process).
#pragma once

#include <caf/all.hpp>

#include <cstdint>

#include "caf/Arm.hpp"

namespace coreactor::bench::cafarm {

// The actor rows' (actor/*, isolates/ask/*).
struct Go {
  Round* round;
};
struct Count {
  int value;
};
struct Flush {
  Round* round;
};
struct Ping {
  int n;
};
struct Pong {
  int n;
};
struct Request {
  int n;
};
struct Response {
  int n;
};
struct AllStarted {};
struct StopAll {
  Round* round;
};

// The parallel rows' (parallel/*), as our arm's (bench/parallel/).
struct Serve {};
struct Fork {};
struct Item {
  std::uint64_t value;
};
struct Answer {
  std::uint64_t value;
};
struct Token {
  std::uint32_t id;
  std::uint32_t travelled;
};
struct Begin {};
struct PeerRequest {
  std::uint64_t n;
};
struct PeerReply {
  std::uint64_t n;
};
struct Feed {};
struct Flow {
  std::uint64_t value;
};

// pool/cpu/<n>'s (ours: bench/parallel/Pool.cpp); its jobs are Items.
struct EndOfJobs {};

}  // namespace coreactor::bench::cafarm

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Go)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Count)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Flush)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Ping)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Pong)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Response)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::AllStarted)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::StopAll)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Serve)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Fork)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Item)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Answer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Token)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Begin)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::PeerRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::PeerReply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Feed)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::Flow)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(coreactor::bench::cafarm::EndOfJobs)
