#pragma once
// Simulated time is whole nanoseconds in int64. Every conversion from seconds goes through here so a
// huge or non-finite draw (a vanishing failure rate, a fuzzed horizon) saturates instead of hitting the
// undefined double-to-integer cast.
#include <cmath>
#include <cstdint>
#include <limits>

namespace gs::sim {

// Far enough past any horizon to mean "never", small enough that adding a few of them cannot overflow.
inline constexpr int64_t kNeverNs = std::numeric_limits<int64_t>::max() / 4;

// ceil(seconds * 1e9), clamped to [at_least, kNeverNs]; NaN counts as never.
inline int64_t ns_from_seconds(double seconds, int64_t at_least = 0) {
  const double ns = std::ceil(seconds * 1e9);
  if (!(ns < static_cast<double>(kNeverNs))) return kNeverNs;
  if (ns <= static_cast<double>(at_least)) return at_least;
  return static_cast<int64_t>(ns);
}

}  // namespace gs::sim
