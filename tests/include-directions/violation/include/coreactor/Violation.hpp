// A fixture for the include-direction check: an installed header must not use
// a room's internals.
#pragma once
#include "../../isolate/Anything.hpp"
