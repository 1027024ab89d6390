// The unit checker, through whole compiles against the model's real units prelude.
#include <doctest/doctest.h>

#include <cmath>

#include "helpers.h"

using namespace gs;
using namespace gs::testing;

namespace {

// Dimension of a declared variable's unit.
Dim dim_of(const std::string& unit) {
  std::string err;
  auto q = prelude_units().parse(unit, &err);
  INFO(err);
  REQUIRE(q);
  return q->dim;
}

double scale_of(const std::string& unit) {
  std::string err;
  auto q = prelude_units().parse(unit, &err);
  INFO(err);
  REQUIRE(q);
  return q->scale;
}

// models/units.gstack: quantity literals and display units (the file holds the model text, so this one
// holds none).
const Image& units_model() {
  static const Image img = compile_ok(read_text(GSTACK_SOURCE_DIR "/tests/unit/compiler/models/units.gstack"));
  return img;
}

// The value the literal of relation `t.NAME` lowers to (in base units).
double literal(const std::string& name) {
  const Relation& r = rel(units_model(), "t." + name);
  REQUIRE(r.rhs.nodes.size() == 1);
  CHECK(r.rhs.nodes[0].op == Op::Num);
  return r.rhs.nodes[0].value;
}

}  // namespace

TEST_CASE("UnitTable::parse on compound units") {
  CHECK(scale_of("USD/(kW*h)") == doctest::Approx(1 / 3.6e6).epsilon(1e-12));
  CHECK(dim_of("USD/(kW*h)") == dim_of("USD/J"));
  CHECK(scale_of("kW") == 1000);
  CHECK(scale_of("MWh") == doctest::Approx(3.6e9));
  CHECK(scale_of("GiB") == doctest::Approx(std::pow(2.0, 30) * 8));
  CHECK(scale_of("GB") == doctest::Approx(8e9));
  CHECK(scale_of("TFLOP/s") == 1e12);
  CHECK(dim_of("TFLOP/s") == dim_of("FLOPS"));
  CHECK(dim_of("J") == dim_of("kg*m^2/s^2"));
  CHECK(dim_of("W*s") == dim_of("J"));
  CHECK(dim_of("s^-1") == dim_of("Hz"));
  CHECK(dim_of("1") == Dim{});
  CHECK(dim_of("GPU") == Dim{});
  CHECK(scale_of("percent") == doctest::Approx(0.01));
  CHECK(scale_of("h") == 3600);  // a unit named like a prefix is the unit
  CHECK(scale_of("mm") == doctest::Approx(1e-3));
  CHECK(scale_of("ms") == doctest::Approx(1e-3));
  CHECK(scale_of("min") == 60);  // not milli-inch
}

TEST_CASE("rational exponents in units") {
  Dim half = dim_of("m^(1/2)");
  REQUIRE(half.exps.size() >= 1);
  CHECK(half.exps[0] == Rational{1, 2});
  CHECK(half.pow(Rational{2, 1}) == dim_of("m"));
  CHECK(dim_of("m^(-3/2)") == dim_of("m^(1/2)").pow(Rational{-3, 1}));
  CHECK(dim_of("(m^2)^(1/2)") == dim_of("m"));
  CHECK(dim_of("s^(2/4)") == dim_of("s^(1/2)"));  // reduced
  CHECK(prelude_units().describe(dim_of("m^(1/2)*s^-1")) == "m^(1/2)·s^-1");
}

TEST_CASE("unit errors carry a position and a message") {
  std::string err;
  size_t off = 99;
  CHECK_FALSE(prelude_units().parse("USD/(kWx*h)", &err, &off));
  CHECK(err == "unknown unit 'kWx'");
  CHECK(off == 5);
  CHECK_FALSE(prelude_units().parse("m^(1/0)", &err, &off));
  CHECK(err == "zero denominator in exponent");
  CHECK_FALSE(prelude_units().parse("m^99999999999999999999", &err, &off));
  CHECK(err == "exponent too large");
  CHECK_FALSE(prelude_units().parse("(m", &err, &off));
  CHECK(err == "expected ')'");
  CHECK_FALSE(prelude_units().parse("m s", &err, &off));
  CHECK(err == "unexpected 's'");
  CHECK_FALSE(prelude_units().parse(std::string(1000, '(') + "m" + std::string(1000, ')'), &err, &off));
  CHECK(err == "unit expression nested too deeply");
}

TEST_CASE("prefixes and scale factors in quantity literals") {
  CHECK(literal("kw_in_w") == 1000);
  CHECK(literal("kw_in_kw") == 2500);
  CHECK(literal("kwh_in_j") == doctest::Approx(3.6e6));
  CHECK(literal("mwh_in_j") == doctest::Approx(3.6e9));
  CHECK(literal("gib_in_bit") == doctest::Approx(8589934592.0));
  CHECK(literal("byte_in_bit") == 8);
  CHECK(literal("s_in_h") == 3600);
  CHECK(literal("h_in_s") == 3600);
  CHECK(literal("tflops_in_flops") == doctest::Approx(9.89e14));
  CHECK(literal("percent_in_1") == doctest::Approx(0.05));
  CHECK(literal("usd_per_kwh_in_usd_per_j") == doctest::Approx(1e-7));
}

TEST_CASE("a variable keeps its display unit and its scale to base units") {
  const Variable& price = var(units_model(), "t.price");
  CHECK(price.unit == "USD/(kW*h)");
  CHECK(price.unit_scale == doctest::Approx(1 / 3.6e6));
  CHECK(price.dim == dim_of("USD/J"));
  const Variable& mem = var(units_model(), "t.mem");
  CHECK(mem.unit_scale == doctest::Approx(8589934592.0));
  CHECK(mem.assume.has_range);
  CHECK(mem.assume.lo == doctest::Approx(8589934592.0));  // ranges are stored in base units
  CHECK(mem.assume.hi == doctest::Approx(80 * 8589934592.0));
}

// Whole-model unit errors (sums, exponents, function arguments, piecewise branches, constraints, iterate,
// ode and stochastic relations) are cases with inline expectations in tests/diagnostics/79_* to 89_*.
TEST_CASE("money, information, work and tokens are distinct dimensions") {
  const std::vector<std::string> units = {"USD", "FLOP", "token", "bit", "J", "s"};
  for (size_t i = 0; i < units.size(); ++i)
    for (size_t j = 0; j < units.size(); ++j) {
      CAPTURE(units[i]);
      CAPTURE(units[j]);
      CHECK((dim_of(units[i]) == dim_of(units[j])) == (i == j));
    }
}
