// A fixture for the include-direction check: isolate/ must not use runtime/.
// The check must fail on this tree (ctest include-directions.catches).
#pragma once
#include "../runtime/Anything.hpp"
