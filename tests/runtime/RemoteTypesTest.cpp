// Remote types and their frames (coreactor/Remote.hpp): what crosses
// between processes for one message. No MPI here: the frames are bytes.
#include <gtest/gtest.h>

#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/Cluster.hpp"
#include "coreactor/Remote.hpp"

namespace coreactor {
namespace {

struct RtCount {
  std::int64_t n;
  double weight;
};

struct RtLine {
  std::string text;
  std::vector<int> numbers;
  template <class Archive>
  void serialize(Archive& archive) {
    archive(text, numbers);
  }
};

struct RtUnregistered {
  int n;
};

struct RtOther {
  int n;
};

struct RtLate {
  std::int64_t n;
};

class RemoteTypes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    registerRemoteType<RtCount>("test.RtCount");
    registerRemoteType<RtLine>("test.RtLine");
    registerRemoteType<RtOther>("test.RtOther");
  }
};

TEST_F(RemoteTypes, AnIdIsTheHashOfTheNameWhateverTheOrderOfRegistration) {
  // A type's id is stable across processes: FNV-1a-64 of the name.
  EXPECT_EQ(registerRemoteType<RtCount>("test.RtCount"), wire::idOf("test.RtCount"));
  EXPECT_EQ(wire::idOf("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_NE(wire::idOf("test.RtCount"), wire::idOf("test.RtLine"));
  EXPECT_EQ(wire::nameOf(wire::idOf("test.RtLine")), "test.RtLine");
  EXPECT_EQ(wire::nameOf(wire::idOf("test.nothing")), "");
}

TEST_F(RemoteTypes, ATriviallyCopyableTypeCrossesAsItsOwnBytes) {
  std::string frame;
  wire::encode(Message(RtCount{42, 2.5}), frame);
  ASSERT_EQ(frame.size(), wire::kHeaderSize + sizeof(RtCount));
  std::size_t used = 0;
  Message back = wire::decode(frame, used);
  EXPECT_EQ(used, frame.size());
  ASSERT_TRUE(back.is<RtCount>());
  EXPECT_EQ(back.get<RtCount>()->n, 42);
  EXPECT_EQ(back.get<RtCount>()->weight, 2.5);
}

TEST_F(RemoteTypes, AnyOtherTypeCrossesThroughCereal) {
  std::string frame;
  wire::encode(Message(RtLine{std::string(1000, 'x') + "end", {1, 2, 3}}), frame);
  std::size_t used = 0;
  Message back = wire::decode(frame, used);
  EXPECT_EQ(used, frame.size());
  ASSERT_TRUE(back.is<RtLine>());
  EXPECT_EQ(back.get<RtLine>()->text, std::string(1000, 'x') + "end");
  EXPECT_EQ(back.get<RtLine>()->numbers, (std::vector<int>{1, 2, 3}));
}

TEST_F(RemoteTypes, FramesFollowOneAnotherInOneBuffer) {
  std::string frames;
  for (int i = 0; i < 100; ++i) {
    if (i % 2 == 0) {
      wire::encode(Message(RtCount{i, 0}), frames);
    } else {
      wire::encode(Message(RtLine{std::to_string(i), {i}}), frames);
    }
  }
  std::string_view rest = frames;
  int i = 0;
  while (!rest.empty()) {
    std::size_t used = 0;
    Message m = wire::decode(rest, used);
    if (i % 2 == 0) {
      ASSERT_TRUE(m.is<RtCount>()) << i;
      EXPECT_EQ(m.get<RtCount>()->n, i);
    } else {
      ASSERT_TRUE(m.is<RtLine>()) << i;
      EXPECT_EQ(m.get<RtLine>()->text, std::to_string(i));
    }
    rest.remove_prefix(used);
    ++i;
  }
  EXPECT_EQ(i, 100);
}

TEST_F(RemoteTypes, AnUnregisteredTypeIsErrNotSerializableAtTheSendAndWritesNothing) {
  std::string frame = "kept";
  EXPECT_EQ(test::errorOf([&] { wire::encode(Message(RtUnregistered{1}), frame); }),
            Error::ErrNotSerializable);
  EXPECT_EQ(test::errorOf([&] { wire::encode(Message(), frame); }), Error::ErrNotSerializable);
  EXPECT_EQ(frame, "kept");
  EXPECT_FALSE(wire::isRegistered(Message(RtUnregistered{1})));
  EXPECT_TRUE(wire::isRegistered(Message(RtCount{1, 0})));
}

TEST_F(RemoteTypes, AFrameOfAnIdNotRegisteredHereIsErrUnknownRemoteType) {
  // Another process registered RtLate; this one has not (yet).
  std::string frame(wire::kHeaderSize + sizeof(RtLate), '\0');
  const RemoteTypeId id = wire::idOf("test.RtLate.elsewhere");
  const std::uint32_t length = sizeof(RtLate);
  std::memcpy(frame.data(), &id, sizeof(id));
  std::memcpy(frame.data() + sizeof(id), &length, sizeof(length));
  std::size_t used = 0;
  EXPECT_EQ(test::errorOf([&] { wire::decode(frame, used); }), Error::ErrUnknownRemoteType);
  registerRemoteType<RtLate>("test.RtLate.elsewhere");
  Message m = wire::decode(frame, used);
  EXPECT_TRUE(m.is<RtLate>());
}

TEST_F(RemoteTypes, AFrameCutShortOrOfTheWrongSizeIsErrMalformedFrame) {
  std::string frame;
  wire::encode(Message(RtCount{7, 1}), frame);
  std::size_t used = 0;
  EXPECT_EQ(test::errorOf([&] { wire::decode(std::string_view(frame).substr(0, 5), used); }),
            Error::ErrMalformedFrame);
  EXPECT_EQ(test::errorOf(
                [&] { wire::decode(std::string_view(frame).substr(0, frame.size() - 1), used); }),
            Error::ErrMalformedFrame);
  // The header says 4 bytes: a trivially copyable type of another size.
  std::string shortFrame = frame.substr(0, wire::kHeaderSize) + "abcd";
  const std::uint32_t four = 4;
  std::memcpy(shortFrame.data() + sizeof(RemoteTypeId), &four, sizeof(four));
  EXPECT_EQ(test::errorOf([&] { wire::decode(shortFrame, used); }), Error::ErrMalformedFrame);
  // Cereal bytes that end too early.
  std::string line;
  wire::encode(Message(RtLine{"hello", {1, 2}}), line);
  std::string cut = line.substr(0, line.size() - 3);
  const auto cutLength = static_cast<std::uint32_t>(cut.size() - wire::kHeaderSize);
  std::memcpy(cut.data() + sizeof(RemoteTypeId), &cutLength, sizeof(cutLength));
  EXPECT_EQ(test::errorOf([&] { wire::decode(cut, used); }), Error::ErrMalformedFrame);
}

TEST_F(RemoteTypes, ANameTakenByAnotherTypeOrATypeUnderASecondNameIsErrRemoteTypeClash) {
  EXPECT_EQ(test::errorOf([] { registerRemoteType<RtOther>("test.RtCount"); }),
            Error::ErrRemoteTypeClash);
  EXPECT_EQ(test::errorOf([] { registerRemoteType<RtCount>("test.RtCount.again"); }),
            Error::ErrRemoteTypeClash);
  EXPECT_EQ(test::errorOf([] { registerRemoteType<RtOther>(""); }), Error::ErrInvalidOption);
  // Nothing changed: the names still decode to their own types.
  std::string frame;
  wire::encode(Message(RtOther{5}), frame);
  std::size_t used = 0;
  EXPECT_TRUE(wire::decode(frame, used).is<RtOther>());
  EXPECT_EQ(wire::nameOf(wire::idOf("test.RtCount.again")), "");
}

TEST(MpiOptions, SharedMemoryIsOnByDefaultAndARingSizeOutsideItsRangeIsErrInvalidOption) {
  const MpiOptions defaults = MpiOptions::create();
  EXPECT_TRUE(defaults.sharedMemory());
  EXPECT_EQ(defaults.sharedRingBytes(), MpiOptions::kDefaultSharedRingBytes);
  EXPECT_FALSE(defaults.withSharedMemory(false).sharedMemory());
  // A ring is a power of two of bytes: a size between two is rounded up.
  EXPECT_EQ(defaults.withSharedRingBytes(5000).sharedRingBytes(), 8192u);
  EXPECT_EQ(defaults.withSharedRingBytes(MpiOptions::kMinSharedRingBytes).sharedRingBytes(),
            MpiOptions::kMinSharedRingBytes);
  EXPECT_EQ(test::errorOf(
                [&] { (void)defaults.withSharedRingBytes(MpiOptions::kMinSharedRingBytes - 1); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(test::errorOf(
                [&] { (void)defaults.withSharedRingBytes(MpiOptions::kMaxSharedRingBytes + 1); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(defaults.sharedRingBytes(), MpiOptions::kDefaultSharedRingBytes);  // unchanged
}

}  // namespace
}  // namespace coreactor
