// The fixture's one public header (runtime/Thing.hpp cites it).
#pragma once
