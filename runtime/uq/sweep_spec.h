// Values of one swept input, from the command line's SPEC:
//   "a,b,c"          a list
//   "lo..hi:n"       n points spaced linearly, ends included
//   "lo..hi:log:n"   n points spaced geometrically, ends included
// followed by an optional unit after a space ("0.05..0.5:10 USD/(kW*h)"). Without a unit the numbers are
// in the variable's display unit. The result is in base units.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "image/units.h"

namespace gs {

// Most values a sweep holds (points x targets; 800 MB of doubles), and so the most points one range or
// list may give. Larger requests are refused before any work or allocation.
constexpr size_t kMaxSweepValues = 100'000'000;

struct SweepValues {
  std::vector<double> values;  // base units
  std::string unit;            // the unit the numbers were written in: the one given, else the display unit
  double scale = 1;            // one `unit` in base units, to write the values back as they were given
  std::string error;           // set when parsing failed
};

// `max_values` lowers the cap (the server's per-request limit); a larger range is refused before allocation.
SweepValues parse_sweep_spec(const std::string& spec, const UnitTable& units, const Dim& expected,
                             double display_scale, const std::string& display_unit, size_t max_values = kMaxSweepValues);

}  // namespace gs
