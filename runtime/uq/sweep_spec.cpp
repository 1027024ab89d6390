#include "runtime/uq/sweep_spec.h"

#include <cmath>
#include <cstdlib>

namespace gs {
namespace {

bool number(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}

}  // namespace

SweepValues parse_sweep_spec(const std::string& spec, const UnitTable& units, const Dim& expected,
                             double display_scale, const std::string& display_unit, size_t max_values) {
  SweepValues r;
  const auto first = spec.find_first_not_of(' ');
  const auto space = spec.find(' ', first == std::string::npos ? 0 : first);
  const std::string body = spec.substr(first == std::string::npos ? 0 : first, space == std::string::npos ? std::string::npos : space - first);
  std::string unit_text = space == std::string::npos ? "" : spec.substr(space + 1);
  double scale = display_scale;
  r.unit = display_unit;
  if (unit_text.find_first_not_of(' ') != std::string::npos) {
    std::string err;
    auto q = units.parse(unit_text, &err);
    if (!q) return r.error = "bad unit in '" + spec + "': " + err, r;
    if (!(q->dim == expected))
      return r.error = "'" + unit_text + "' is " + units.describe(q->dim) + " but the variable is " + units.describe(expected) +
                       " (" + display_unit + ")", r;
    scale = q->scale;
    const auto a = unit_text.find_first_not_of(' '), b = unit_text.find_last_not_of(' ');
    r.unit = unit_text.substr(a, b - a + 1);
  }
  r.scale = scale;
  if (auto dots = body.find(".."); dots != std::string::npos) {
    // Range: lo..hi:n or lo..hi:log:n
    const std::string lo_s = body.substr(0, dots), rest = body.substr(dots + 2);
    const auto colon = rest.find(':');
    if (colon == std::string::npos) return r.error = "a range needs a point count: lo..hi:n", r;
    std::string hi_s = rest.substr(0, colon), count_s = rest.substr(colon + 1);
    bool log = false;
    if (count_s.rfind("log:", 0) == 0) log = true, count_s = count_s.substr(4);
    double lo, hi, n;
    if (!number(lo_s, lo) || !number(hi_s, hi) || !number(count_s, n) || n < 1 || n != std::floor(n))
      return r.error = "cannot read range '" + body + "' (expected lo..hi:n or lo..hi:log:n)", r;
    if (log && (lo <= 0 || hi <= 0)) return r.error = "a log range needs positive ends", r;
    if (n > double(max_values))
      return r.error = "a range of " + count_s + " points is more than a sweep can hold (" + std::to_string(max_values) + ")", r;
    const size_t count = size_t(n);
    for (size_t i = 0; i < count; ++i) {
      const double t = count == 1 ? 0 : double(i) / double(count - 1);
      const double v = log ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t;
      r.values.push_back(v * scale);
    }
    return r;
  }
  size_t start = 0;
  while (start <= body.size()) {
    const auto comma = body.find(',', start);
    const std::string item = body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    double v;
    if (!number(item, v)) return r.error = "cannot read '" + item + "' as a number in '" + spec + "'", r;
    r.values.push_back(v * scale);
    if (r.values.size() > max_values) return r.error = "a list of more than " + std::to_string(max_values) + " values", r;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return r;
}

}  // namespace gs
