#include "runtime/format.h"

#include <array>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace gs {

namespace {

// Units that engineers write with SI prefixes (kW, GB, TFLOP/s, ms). Money, tokens and counts are not
// among them: "3 µUSD/token" or "6.7 Mtoken/s" would surprise a reader more than a plain number.
bool takes_prefixes(const std::string& unit) {
  static const std::array<const char*, 23> names = {"W", "J", "Wh", "FLOP", "FLOPS", "B", "byte", "bit", "Hz", "V", "A", "ohm",
                                                    "F", "H", "C", "Pa", "N", "m", "g", "S", "Wb", "eV", "s"};
  for (const char* n : names)
    if (unit == n) return true;
  return false;
}

struct Prefix {
  const char* name;
  int exponent;
};
constexpr std::array<Prefix, 16> kPrefixes = {{{"Q", 30}, {"R", 27}, {"Y", 24}, {"Z", 21}, {"E", 18}, {"P", 15}, {"T", 12},
                                               {"G", 9}, {"M", 6}, {"k", 3}, {"m", -3}, {"u", -6}, {"n", -9}, {"p", -12},
                                               {"f", -15}, {"a", -18}}};

}  // namespace

std::string format_number(double x) {
  if (x == 0) return "0";
  return fmt::format("{:.7g}", x);
}

Displayed display(const UnitTable& units, const Variable& var, double base_value) {
  Displayed d{base_value / var.unit_scale, var.unit == "1" ? "" : var.unit};
  // The leading unit name is the one a prefix attaches to; it must not carry a power (km^2 != k(m^2)).
  size_t end = 0;
  while (end < d.unit.size() && (std::isalpha(static_cast<unsigned char>(d.unit[end])) || d.unit[end] == '_')) ++end;
  const std::string lead = d.unit.substr(0, end);
  const std::string rest = d.unit.substr(end);
  if (d.value == 0 || !std::isfinite(d.value) || !takes_prefixes(lead) || (!rest.empty() && rest[0] == '^')) return d;
  int exponent = int(std::floor(std::log10(std::fabs(d.value)) / 3)) * 3;
  // Seconds only scale down: 150 ms reads well, 2 ks does not.
  if (exponent == 0 || (lead == "s" && exponent > 0)) return d;
  for (const auto& p : kPrefixes) {
    if (p.exponent != exponent || !units.lookup(std::string(p.name) + lead)) continue;
    d.value /= std::pow(10.0, p.exponent);
    d.unit = p.name + d.unit;
    break;
  }
  return d;
}

std::string format_quantity(const UnitTable& units, const Variable& var, double base_value) {
  Displayed d = display(units, var, base_value);
  std::string s = format_number(d.value);
  return d.unit.empty() ? s : s + " " + d.unit;
}

}  // namespace gs
