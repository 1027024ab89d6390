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

// The value a quantity literal lowers to (in base units).
double literal(const std::string& quantity, const std::string& var_unit) {
  Image img = compile_ok("system t\nvar t.x : " + var_unit + " \"x\"\neq e: t.x = " + quantity + "\n");
  const Relation& r = rel(img, "t.e");
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
  CHECK(literal("1 [kW]", "W") == 1000);
  CHECK(literal("2.5 [kW]", "kW") == 2500);
  CHECK(literal("1 [kW*h]", "J") == doctest::Approx(3.6e6));
  CHECK(literal("1 [MWh]", "J") == doctest::Approx(3.6e9));
  CHECK(literal("1 [GiB]", "bit") == doctest::Approx(8589934592.0));
  CHECK(literal("1 [byte]", "bit") == 8);
  CHECK(literal("3600 [s]", "h") == 3600);
  CHECK(literal("1 [h]", "s") == 3600);
  CHECK(literal("989 [TFLOP/s]", "FLOP/s") == doctest::Approx(9.89e14));
  CHECK(literal("5 [percent]", "1") == doctest::Approx(0.05));
  CHECK(literal("0.36 [USD/(kW*h)]", "USD/J") == doctest::Approx(1e-7));
}

TEST_CASE("a variable keeps its display unit and its scale to base units") {
  Image img = compile_ok(
      "system t\n"
      "var t.price : USD/(kW*h) \"p\"\n"
      "var t.mem : GiB \"m\" assume range(1, 80)\n");
  const Variable& price = var(img, "t.price");
  CHECK(price.unit == "USD/(kW*h)");
  CHECK(price.unit_scale == doctest::Approx(1 / 3.6e6));
  CHECK(price.dim == dim_of("USD/J"));
  const Variable& mem = var(img, "t.mem");
  CHECK(mem.unit_scale == doctest::Approx(8589934592.0));
  CHECK(mem.assume.has_range);
  CHECK(mem.assume.lo == doctest::Approx(8589934592.0));  // ranges are stored in base units
  CHECK(mem.assume.hi == doctest::Approx(80 * 8589934592.0));
}

TEST_CASE("money, information, work and tokens are distinct dimensions") {
  const std::vector<std::string> units = {"USD", "FLOP", "token", "bit", "J", "s"};
  for (size_t i = 0; i < units.size(); ++i)
    for (size_t j = 0; j < units.size(); ++j) {
      CAPTURE(units[i]);
      CAPTURE(units[j]);
      CHECK((dim_of(units[i]) == dim_of(units[j])) == (i == j));
    }
  auto d = first_error(
      "system t\n"
      "var t.flops : FLOP/s \"f\"\n"
      "var t.tps : token/s \"t\"\n"
      "eq e: t.tps = t.flops\n");
  CHECK(d.code == "E-UNIT-MISMATCH");
  CHECK(d.message == "the two sides of 'e' have different dimensions: left is token·s^-1, right is FLOP·s^-1");
  CHECK(d.line == 4);
  CHECK(d.column == 15);
  auto bytes = first_error(
      "system t\n"
      "var t.bw : byte/s \"b\"\n"
      "var t.rate : FLOP/s \"r\"\n"
      "constraint c: t.bw <= t.rate\n");
  CHECK(bytes.code == "E-UNIT-MISMATCH");
  CHECK(bytes.message == "the two sides of 'c' have different dimensions: left is bit·s^-1, right is FLOP·s^-1");
}

TEST_CASE("powers and roots") {
  compile_ok(
      "system t\n"
      "var t.area : m^2 \"a\"\n"
      "var t.side : m \"s\"\n"
      "var t.root : m^(1/2) \"r\"\n"
      "var t.n : 1 \"n\"\n"
      "var t.y : 1 \"y\"\n"
      "var t.z : 1 \"z\"\n"
      "var t.area2 : m^2 \"a2\"\n"
      "var t.side2 : m \"s2\"\n"
      "eq side: t.side = sqrt(t.area)\n"
      "eq root: t.root = sqrt(t.side)\n"
      "eq back: t.area2 = t.root^4\n"
      "eq frac: t.y = (t.side / 1 [m])^t.n\n"
      "eq halves: t.z = (t.area^(1/2) / t.side2)^3\n");
  // A variable exponent needs a dimensionless base.
  auto d = first_error(
      "system t\n"
      "var t.side : m \"s\"\n"
      "var t.n : 1 \"n\"\n"
      "var t.v : m \"v\"\n"
      "eq e: t.v = t.side^t.n\n");
  CHECK(d.code == "E-UNIT-EXPONENT");
  CHECK(d.message == "the base has dimension m, so its exponent must be a constant rational number");
  CHECK(d.column == 20);
  auto e = first_error(
      "system t\n"
      "var t.side : m \"s\"\n"
      "var t.v : 1 \"v\"\n"
      "eq e: t.v = 2^t.side\n");
  CHECK(e.code == "E-UNIT-EXPONENT");
  CHECK(e.message == "an exponent must be dimensionless, but this one is m");
  // sqrt halves every exponent.
  auto f = first_error(
      "system t\n"
      "var t.area : m^2 \"a\"\n"
      "var t.v : m^2 \"v\"\n"
      "eq e: t.v = sqrt(t.area)\n");
  CHECK(f.message == "the two sides of 'e' have different dimensions: left is m^2, right is m");
  // Roots of roots eventually need more than 32 bits: a diagnostic, not a crash.
  std::string deep = "system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\neq e: t.y = ";
  for (int i = 0; i < 40; ++i) deep += "sqrt(";
  deep += "t.x";
  for (int i = 0; i < 40; ++i) deep += ")";
  auto g = first_error(deep + "\n");
  CHECK(g.code == "E-UNIT-EXPONENT");
}

TEST_CASE("functions that need dimensionless arguments") {
  compile_ok(
      "system t\n"
      "var t.x : m \"x\"\n"
      "var t.y : 1 \"y\"\n"
      "var t.z : m \"z\"\n"
      "var t.w : 1 \"w\"\n"
      "eq a: t.w = exp(t.x / 1 [m]) + log(t.x / 1 [km]) + ln(2) + log2(8) + log10(t.y) + sin(t.y) + tanh(t.y) "
      "+ atan(t.y) + floor(t.y) + ceil(t.y) + cos(t.y) + tan(t.y)\n"
      "eq b: t.z = abs(t.x) + min(t.x, 1 [m]) + max(t.x, t.x, 2 [cm])\n");
  for (const std::string f : {"exp", "log", "ln", "sin", "cos", "tan", "log2", "log10", "floor", "ceil", "atan", "tanh"}) {
    CAPTURE(f);
    auto d = first_error("system t\nvar t.x : m \"x\"\nvar t.y : 1 \"y\"\neq e: t.y = " + f + "(t.x)\n");
    CHECK(d.code == "E-UNIT-ARGUMENT");
    CHECK(d.message == "the argument of '" + f + "' must be dimensionless, but it is m");
    CHECK(d.column == int(14 + f.size()));
  }
  auto mixed = first_error("system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\neq e: t.y = min(t.x, 1 [s])\n");
  CHECK(mixed.code == "E-UNIT-ARGUMENT");
  CHECK(mixed.message == "the arguments of 'min' have different dimensions: m and s");
}

TEST_CASE("sums, comparisons and piecewise branches must agree") {
  auto sum = first_error("system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\neq e: t.y = t.x + 1 [s]\n");
  CHECK(sum.code == "E-UNIT-SUM");
  CHECK(sum.message == "the terms of this sum have different dimensions: left is m, right is s");
  CHECK(sum.column == 17);
  auto diff = first_error("system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\neq e: t.y = t.x - 1\n");
  CHECK(diff.message == "the terms of this difference have different dimensions: left is m, right is 1");
  auto cmp = first_error("system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\napprox e when t.x < 1 [s]: t.y = t.x\n");
  CHECK(cmp.code == "E-UNIT-COMPARE");
  auto branch = first_error(
      "system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\n"
      "eq e: t.y = piecewise { t.x if t.x > 1 [m]; 1 [s] otherwise }\n");
  CHECK(branch.code == "E-UNIT-BRANCH");
  CHECK(branch.message == "this piecewise branch is s, but the first branch is m");
  auto cond = first_error(
      "system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\n"
      "eq e: t.y = piecewise { t.x if t.x; 1 [m] otherwise }\n");
  CHECK(cond.code == "E-CONDITION");
  CHECK(cond.message == "expected a condition here, but this is a number");
  compile_ok(
      "system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\n"
      "eq e: t.y = piecewise { t.x if t.x > 1 [m] and t.x != 2 [m]; 0 [m] if not t.x >= 0 [m]; 1 [mm] otherwise }\n");
}

TEST_CASE("validity conditions and constraints are unit-checked") {
  compile_ok(
      "system t\nvar t.x : kW \"x\"\nvar t.y : W \"y\"\n"
      "approx a when t.x <= 2 [MW]: t.y = t.x\n"
      "constraint c: t.y >= 1 [W]\n");
  auto v = first_error("system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\napprox a when t.x: t.y = t.x\n");
  CHECK(v.code == "E-VALIDITY");
  CHECK(v.message == "the validity of 'a' is not a condition");
  auto c = first_error("system t\nvar t.x : m \"x\"\nconstraint c: t.x <= 1 [s]\n");
  CHECK(c.code == "E-UNIT-MISMATCH");
  auto not_ineq = first_error("system t\nvar t.x : m \"x\"\nconstraint c: t.x == 1 [m]\n");
  CHECK(not_ineq.code == "E-RELATION-FORM");
}

TEST_CASE("iterate, ode and stochastic relations are unit-checked") {
  compile_ok(
      "system t\n"
      "var t.root : m \"r\"\n"
      "var t.k : m^2 \"k\"\n"
      "var t.temp : K \"T\"\n"
      "var t.time : s \"t\"\n"
      "var t.heat : W \"q\"\n"
      "var t.cap : J/K \"C\"\n"
      "var t.pos : m \"x\"\n"
      "var t.acc : m/s^2 \"a\"\n"
      "var t.ttf : h \"ttf\"\n"
      "var t.rate : 1/h \"rate\"\n"
      "iterate it: t.root = (x + t.k/x)/2 over x from 1 [m] times 6\n"
      "ode od: derivative(t.temp, t.time) = t.heat / t.cap\n"
      "ode od2: derivative(t.pos, t.time, 2) = t.acc\n"
      "stochastic st: t.ttf ~ exponential(t.rate) mean 1 / t.rate\n");
  auto init = first_error("system t\nvar t.r : m \"r\"\niterate it: t.r = x/2 over x from 1 [s] times 6\n");
  CHECK(init.code == "E-UNIT-MISMATCH");
  CHECK(init.message == "the initial value of 'it' has the wrong dimension: left is m, right is s");
  auto count = first_error("system t\nvar t.r : m \"r\"\niterate it: t.r = x/2 over x from 1 [m] times 6 [s]\n");
  CHECK(count.message == "the iteration count of 'it' must be dimensionless");
  auto ode = first_error(
      "system t\nvar t.pos : m \"x\"\nvar t.time : s \"t\"\nvar t.v : m/s \"v\"\n"
      "ode od: derivative(t.pos, t.time, 2) = t.v\n");
  CHECK(ode.code == "E-UNIT-MISMATCH");
  CHECK(ode.message == "the two sides of 'od' have different dimensions: left is m·s^-2, right is m·s^-1");
  auto mean = first_error(
      "system t\nvar t.ttf : h \"ttf\"\nvar t.rate : 1/h \"rate\"\n"
      "stochastic st: t.ttf ~ exponential(t.rate) mean t.rate\n");
  CHECK(mean.message == "the mean of 'st' has the wrong dimension: left is s, right is s^-1");
}
