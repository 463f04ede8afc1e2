// A fixture for the include-direction check: transport/ must not use runtime/.
#pragma once
#include "runtime/Anything.hpp"
