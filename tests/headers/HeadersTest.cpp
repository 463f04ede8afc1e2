// Every public header compiles on its own: tests/CMakeLists.txt builds one
// translation unit per header in include/coreactor that includes it first and
// alone, and links them into this binary. This test checks the set is complete.
#include <gtest/gtest.h>

#include <filesystem>

extern const char* const kCoreactorPublicHeaders[];
extern const int kCoreactorPublicHeaderCount;

TEST(PublicHeaders, EachCompilesOnItsOwn) {
  namespace fs = std::filesystem;
  int onDisk = 0;
  for (const auto& entry : fs::recursive_directory_iterator(COREACTOR_INCLUDE_DIR "/coreactor")) {
    if (entry.path().extension() == ".hpp") ++onDisk;
  }
  EXPECT_GT(kCoreactorPublicHeaderCount, 5);
  EXPECT_EQ(kCoreactorPublicHeaderCount, onDisk)
      << "a header was added without re-running cmake; its stand-alone check is missing";
  for (int i = 0; i < kCoreactorPublicHeaderCount; ++i) {
    SCOPED_TRACE(kCoreactorPublicHeaders[i]);
    EXPECT_TRUE(fs::exists(fs::path(COREACTOR_INCLUDE_DIR) / kCoreactorPublicHeaders[i]));
  }
}
