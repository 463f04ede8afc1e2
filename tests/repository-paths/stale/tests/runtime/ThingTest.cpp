// The test of runtime/Thing.hpp (tests/CMakeLists.txt lists it).
