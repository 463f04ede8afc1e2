// A header of the fixture (RepositoryPaths.cmake reads it; nothing
// compiles it). Its guide is docs/guide.md; it cites a public header that
// was renamed, include/coreactor/Gone.hpp (4), also written as
// <coreactor/Gone.hpp> (5), next to one that is there, <coreactor/Thing.hpp>.
#pragma once
