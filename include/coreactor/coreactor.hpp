/// @file
/// `coreactor/coreactor.hpp` — everything a user of coreactor includes (the
/// TestKit, for tests, is `coreactor/testkit/TestKit.hpp`).

/// @namespace coreactor
/// Everything of coreactor's contract: the actor system and its actors, the
/// loop of each isolate and its dispatchers, the scheduler, the named errors.

/// @mainpage coreactor
///
/// The reference of coreactor's public headers, `include/coreactor/`: the whole
/// contract a user needs. Each file's page says what its header is for and
/// shows the header as written, whose top comment tells which thread may call
/// what, and at what cost.
///
/// - Actors: ActorSystem, Actor and its ReceiveContext, ActorRef, ActorOptions
///   and ActorSystemOptions; AsyncActor for handlers that are coroutines.
/// - Messages later or every interval: ScheduleOptions, ScheduleResult.
/// - The loop: Isolate, Task, and the dispatchers (HybridDispatcher is the default).
/// - Errors: Error, errorCategory(). Tests: testkit::TestKit, testkit::TestProbe.
///
/// The guides are in the repository's `docs/`: start with docs/actors.md.
/// `cmake --install` installs them too: a header's `docs/<name>.md` is
/// `share/doc/coreactor/<name>.md` under the install prefix.
/// "Requirement A5" and the like name the entries of docs/requirements.md,
/// the list of what the runtime promises.

#pragma once

#include "coreactor/Actor.hpp"
#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/ActorSystemOptions.hpp"
#include "coreactor/AskResult.hpp"
#include "coreactor/Async.hpp"
#include "coreactor/Backoff.hpp"
#include "coreactor/Clock.hpp"
#include "coreactor/Cron.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Dispatchers.hpp"
#include "coreactor/Error.hpp"
#include "coreactor/EventStream.hpp"
#include "coreactor/Feeder.hpp"
#include "coreactor/HybridDispatcher.hpp"
#include "coreactor/ImmediateDispatcher.hpp"
#include "coreactor/Isolate.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/MicrotaskDispatcher.hpp"
#include "coreactor/ReceiveContext.hpp"
#include "coreactor/Schedule.hpp"
#include "coreactor/SupervisorStrategy.hpp"
#include "coreactor/Task.hpp"
#include "coreactor/ThroughputDispatcher.hpp"
