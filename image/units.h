// Physical dimensions and units shared by the compiler and the runtime.
//
// A dimension is a vector of rational exponents over the base dimensions that the model declares in
// model/units.gstack (nothing is hard-coded here). A unit is a scale factor to the coherent SI-like base
// plus a dimension. Values are stored in base units everywhere; a declared unit only matters when a number
// enters (preset, literal) or leaves (display).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gs {

struct Rational {
  int32_t num = 0;
  int32_t den = 1;
  static Rational make(int64_t n, int64_t d);
  bool is_zero() const { return num == 0; }
  bool operator==(const Rational&) const = default;
  Rational operator+(Rational o) const { return make(int64_t(num) * o.den + int64_t(o.num) * den, int64_t(den) * o.den); }
  Rational operator*(Rational o) const { return make(int64_t(num) * o.num, int64_t(den) * o.den); }
  Rational operator-() const { return {-num, den}; }
  std::string str() const;
};

// Exponents over the model's base dimensions; trailing zeros are trimmed so vectors compare directly.
struct Dim {
  std::vector<Rational> exps;
  static Dim base(size_t index);
  bool dimensionless() const { return exps.empty(); }
  Dim operator*(const Dim& o) const;
  Dim operator/(const Dim& o) const;
  Dim pow(Rational r) const;
  bool operator==(const Dim& o) const { return exps == o.exps; }
  void trim();
};

struct UnitDef {
  std::string name;
  double scale = 1;  // value of one of this unit in base units
  Dim dim;
  std::string description;
};

struct PrefixDef {
  std::string name;
  double factor = 1;
};

struct Quantity {
  double scale = 1;
  Dim dim;
};

// Looks units up by name, with prefixes, and parses unit expressions such as "USD/(kW*h)".
class UnitTable {
 public:
  std::vector<std::string> dimension_names;  // base dimensions, in declaration order
  std::vector<UnitDef> units;
  std::vector<PrefixDef> prefixes;

  void index();  // rebuild lookup maps after the vectors change
  std::optional<Quantity> lookup(const std::string& name) const;
  // Parses a unit expression; on failure returns nullopt and sets `error` (with a 0-based offset).
  std::optional<Quantity> parse(const std::string& text, std::string* error = nullptr,
                                size_t* error_offset = nullptr) const;
  // "kg·m^2·s^-2"-style rendering over the declared base dimension names (their first declared unit).
  std::string describe(const Dim& d) const;
  std::vector<std::string> all_names() const;

 private:
  std::map<std::string, size_t> by_name_;
  std::map<std::string, size_t> prefix_by_name_;
};

// Splits "0.36 USD/(kW*h)" into the number and the unit text; returns false when no number leads.
bool split_quantity(const std::string& text, double& value, std::string& unit_text);

}  // namespace gs
