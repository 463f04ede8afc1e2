/// @file
/// `coreactor/Asio.hpp` — include this instead of <boost/asio.hpp>.
//
// Debian 12's Boost 1.74 Asio uses std::exchange in asio/awaitable.hpp without
// including <utility>, which g++ 12 rejects under -std=c++20. Including
// <utility> first is the whole fix.
#pragma once

#include <utility>

#include <boost/asio.hpp>
