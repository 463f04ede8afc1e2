// coreactor/coreactor.hpp — everything a user of coreactor includes.
#pragma once

#include "coreactor/Clock.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Dispatchers.hpp"
#include "coreactor/Error.hpp"
#include "coreactor/HybridDispatcher.hpp"
#include "coreactor/ImmediateDispatcher.hpp"
#include "coreactor/Isolate.hpp"
#include "coreactor/MicrotaskDispatcher.hpp"
#include "coreactor/Task.hpp"
#include "coreactor/ThroughputDispatcher.hpp"
