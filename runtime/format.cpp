#include "runtime/format.h"
#include "runtime/toml_file.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace gs {

// presets/display_units.toml, copied into the build by runtime/CMakeLists.txt (display_units_data.cpp.in).
extern const char* const kDisplayUnitsToml;

namespace {

std::atomic<DisplayStyle> g_style{DisplayStyle::Quoted};

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

// An SI prefix on the leading unit name of `d` when that unit takes one and the value needs it.
Displayed with_prefix(const UnitTable& units, Displayed d) {
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

// One row of the display-units table, as written in the file.
struct Row {
  std::string of;
  std::vector<std::string> ladder, keep;
};


// Parsed once; a malformed table (a build-time data error, caught by display_table_problems in the tests)
// leaves no rows, so text falls back to declared units rather than failing.
const std::vector<Row>& rows() {
  static const std::vector<Row> table = [] {
    std::vector<Row> out;
    toml::table doc;
    try {
      doc = toml::parse(std::string(kDisplayUnitsToml), std::string("presets/display_units.toml"));
    } catch (const toml::parse_error&) {
      return out;
    }
    if (const toml::array* a = doc["dimension"].as_array())
      for (const auto& node : *a)
        if (const toml::table* t = node.as_table())
          out.push_back({(*t)["of"].value_or(std::string()), toml_strings(t->get("ladder")), toml_strings(t->get("keep"))});
    return out;
  }();
  return table;
}

}  // namespace

std::vector<Rung> quoted_ladder(const UnitTable& units, const Variable& var) {
  std::vector<Rung> out;
  if (var.unit == "1") return out;
  for (const Row& row : rows()) {
    auto of = units.parse(row.of);
    if (!of || !(of->dim == var.dim)) continue;
    for (const auto& k : row.keep)
      if (k == var.unit) return out;
    for (const auto& rung : row.ladder) {
      auto q = units.parse(rung);
      if (q && q->dim == var.dim) out.push_back({rung, q->scale});
    }
    std::sort(out.begin(), out.end(), [](const Rung& a, const Rung& b) { return a.scale < b.scale; });
    return out;
  }
  return out;
}

namespace {

// The table's choice for `var`, or nothing when no row covers its dimension (or it keeps its own unit).
std::optional<Displayed> quoted(const UnitTable& units, const Variable& var, double base_value) {
  const std::vector<Rung> ladder = quoted_ladder(units, var);
  if (ladder.empty()) return std::nullopt;
  // The largest rung in which the magnitude is at least one; below the first rung, the first rung.
  for (size_t i = ladder.size(); i-- > 0;)
    if (std::fabs(base_value) >= ladder[i].scale) return Displayed{base_value / ladder[i].scale, ladder[i].unit};
  return with_prefix(units, Displayed{base_value / ladder.front().scale, ladder.front().unit});
}

}  // namespace

void set_display_style(DisplayStyle style) { g_style = style; }
DisplayStyle display_style() { return g_style; }

std::string format_number(double x) {
  if (x == 0) return "0";
  return fmt::format("{:.7g}", x);
}

Displayed display(const UnitTable& units, const Variable& var, double base_value, DisplayStyle style) {
  if (var.unit == "1") return {base_value, ""};
  if (style == DisplayStyle::Quoted && std::isfinite(base_value))
    if (auto d = quoted(units, var, base_value)) return *d;
  return with_prefix(units, Displayed{base_value / var.unit_scale, var.unit});
}

Displayed display(const UnitTable& units, const Variable& var, double base_value) {
  return display(units, var, base_value, display_style());
}

std::string format_quantity(const UnitTable& units, const Variable& var, double base_value) {
  Displayed d = display(units, var, base_value);
  std::string s = format_number(d.value);
  return d.unit.empty() ? s : s + " " + d.unit;
}

std::vector<std::string> display_table_problems(const UnitTable& units) {
  std::vector<std::string> problems;
  if (rows().empty()) problems.push_back("presets/display_units.toml has no [[dimension]] rows (or does not parse)");
  for (const Row& row : rows()) {
    std::string error;
    auto of = units.parse(row.of, &error);
    if (!of) {
      problems.push_back("row '" + row.of + "': " + error);
      continue;
    }
    if (row.ladder.empty()) problems.push_back("row '" + row.of + "' has an empty ladder");
    for (const auto& rung : row.ladder) {
      auto q = units.parse(rung, &error);
      if (!q) problems.push_back("row '" + row.of + "', unit '" + rung + "': " + error);
      else if (!(q->dim == of->dim)) problems.push_back("row '" + row.of + "', unit '" + rung + "' is of another dimension");
    }
  }
  return problems;
}

}  // namespace gs
