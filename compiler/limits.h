// Input size limits of the front end. The shipped model is about 0.5 MB in 30 files of at most 80 KB,
// with about 1,500 variables and 1,100 relations; the limits leave two orders of magnitude of room while
// keeping a hostile or mistaken input (a log file, /dev/zero, a generated monster) from exhausting
// memory or time. Each limit is reported with a clear message rather than a crash.
#pragma once

#include <cstddef>

namespace gs::compiler {

constexpr size_t kMaxSourceBytes = size_t(8) << 20;     // one .gstack file
constexpr size_t kMaxTotalSourceBytes = size_t(64) << 20;  // all files of one compile
constexpr size_t kMaxTokensPerFile = 1'000'000;
constexpr size_t kMaxDeclarations = 200'000;             // variables, constants and relations together

}  // namespace gs::compiler
