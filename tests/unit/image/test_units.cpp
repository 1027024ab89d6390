// Dimensions, rationals and the unit table, on a hand-built table (no compiler involved).
#include <doctest/doctest.h>

#include <stdexcept>

#include "image/units.h"

using namespace gs;

namespace {

UnitTable table() {
  UnitTable t;
  t.dimension_names = {"length", "mass", "time", "currency", "information"};
  t.units = {{"m", 1, Dim::base(0), "metre"},
             {"kg", 1, Dim::base(1), "kilogram"},
             {"s", 1, Dim::base(2), "second"},
             {"USD", 1, Dim::base(3), "dollar"},
             {"bit", 1, Dim::base(4), "bit"},
             {"h", 3600, Dim::base(2), "hour"},
             {"B", 8, Dim::base(4), "byte"},
             {"K", 1, Dim::base(1), "a unit named like a prefix"}};
  Dim joule = Dim::base(1) * Dim::base(0).pow({2, 1}) / Dim::base(2).pow({2, 1});
  t.units.push_back({"J", 1, joule, "joule"});
  t.units.push_back({"W", 1, joule / Dim::base(2), "watt"});
  t.prefixes = {{"k", 1e3}, {"M", 1e6}, {"K", 7}, {"Ki", 1024}, {"Gi", 1073741824}};
  t.index();
  return t;
}

}  // namespace

TEST_CASE("rationals are reduced, signed in the numerator, and refuse overflow") {
  CHECK(Rational::make(2, 4) == Rational{1, 2});
  CHECK(Rational::make(3, -6) == Rational{-1, 2});
  CHECK(Rational::make(0, 5) == Rational{0, 1});
  CHECK((Rational{1, 2} + Rational{1, 3}) == Rational{5, 6});
  CHECK((Rational{2, 3} * Rational{3, 4}) == Rational{1, 2});
  CHECK((-Rational{1, 2}) == Rational{-1, 2});
  CHECK(Rational{1, 2}.str() == "(1/2)");
  CHECK(Rational{-3, 1}.str() == "-3");
  CHECK_THROWS_AS(Rational::make(1, 0), std::domain_error);
  CHECK_THROWS_AS(Rational::make(int64_t(1) << 40, 1), std::overflow_error);
  CHECK_THROWS_AS(Rational::make(1, int64_t(1) << 32), std::overflow_error);
  // A denominator that would wrap to zero in 32 bits.
  Rational big{1, 1 << 30};
  const Rational quarter{1, 4};
  CHECK_THROWS_AS(big * quarter, std::overflow_error);
}

TEST_CASE("dimensions multiply, divide, raise, and trim trailing zeros") {
  Dim len = Dim::base(0), time = Dim::base(2);
  Dim speed = len / time;
  CHECK(speed.exps.size() == 3);
  CHECK((speed * time) == len);
  CHECK((len / len).dimensionless());
  CHECK((time / time).exps.empty());
  CHECK(len.pow({1, 2}).pow({2, 1}) == len);
  CHECK(len.pow({0, 1}).dimensionless());
  CHECK_FALSE(len == time);
}

TEST_CASE("lookup: units, prefixed units, longest prefix first") {
  UnitTable t = table();
  CHECK(t.lookup("m")->scale == 1);
  CHECK(t.lookup("km")->scale == 1e3);
  CHECK(t.lookup("kh")->scale == 3.6e6);
  CHECK(t.lookup("KiB")->scale == 8 * 1024);  // "Ki" wins over "K"
  CHECK(t.lookup("GiB")->scale == 8.0 * 1073741824);
  CHECK(t.lookup("K")->dim == Dim::base(1));   // a unit beats a prefix reading
  CHECK_FALSE(t.lookup("xm"));
  CHECK_FALSE(t.lookup("k"));
  CHECK_FALSE(t.lookup(""));
}

TEST_CASE("parse: compound expressions and their scale") {
  UnitTable t = table();
  auto q = t.parse("USD/(kW*h)");
  REQUIRE(q);
  CHECK(q->scale == doctest::Approx(1 / 3.6e6));
  CHECK(q->dim == Dim::base(3) / t.lookup("J")->dim);
  CHECK(t.parse("m^(1/2)")->dim == Dim::base(0).pow({1, 2}));
  CHECK(t.parse("m^(-1/2)")->dim == Dim::base(0).pow({-1, 2}));
  CHECK(t.parse("s^-1")->dim == Dim::base(2).pow({-1, 1}));
  CHECK(t.parse("km^2")->scale == 1e6);
  CHECK(t.parse("1")->dim.dimensionless());
  CHECK(t.parse("1/s")->dim == Dim::base(2).pow({-1, 1}));
  CHECK(t.parse(" kg * m / s ^ 2 ")->dim == t.lookup("J")->dim / Dim::base(0));
  CHECK(t.parse("kg.m")->dim == Dim::base(0) * Dim::base(1));  // '.' multiplies too
}

TEST_CASE("parse: errors with an offset into the text") {
  UnitTable t = table();
  std::string err;
  size_t off = 0;
  CHECK_FALSE(t.parse("m/(s*furlong)", &err, &off));
  CHECK(err == "unknown unit 'furlong'");
  CHECK(off == 5);
  CHECK_FALSE(t.parse("m^", &err, &off));
  CHECK(err == "expected an integer exponent");
  CHECK_FALSE(t.parse("m^(1/0)", &err, &off));
  CHECK(err == "zero denominator in exponent");
  CHECK_FALSE(t.parse("m^(1/2", &err, &off));
  CHECK(err == "expected ')' after the exponent");
  CHECK_FALSE(t.parse("m^12345678901234567890", &err, &off));
  CHECK(err == "exponent too large");
  CHECK_FALSE(t.parse("", &err, &off));
  CHECK(err == "expected a unit");
  CHECK_FALSE(t.parse(std::string(300, '(') + "m" + std::string(300, ')'), &err, &off));
  CHECK(err == "unit expression nested too deeply");
  CHECK(t.parse(std::string(200, '(') + "m" + std::string(200, ')')));
  // Exponents that overflow 32 bits are an error, not a wrapped denominator.
  CHECK_FALSE(t.parse("(m^(1/65536))^(1/65536)", &err, &off));
  CHECK(err == "dimension exponent out of range");
}

TEST_CASE("describe names base dimensions by their unit, positive exponents first") {
  UnitTable t = table();
  CHECK(t.describe(Dim{}) == "1");
  CHECK(t.describe(t.lookup("J")->dim) == "m^2·kg·s^-2");
  CHECK(t.describe(Dim::base(3) / Dim::base(2)) == "USD·s^-1");
  CHECK(t.describe(Dim::base(2).pow({-1, 1}) * Dim::base(3)) == "USD·s^-1");
  CHECK(t.describe(Dim::base(0).pow({1, 2})) == "m^(1/2)");
  CHECK(t.describe(Dim::base(7)) == "dim7");
}

TEST_CASE("split_quantity separates the number from the unit") {
  double v = 0;
  std::string unit;
  REQUIRE(split_quantity("0.36 USD/(kW*h)", v, unit));
  CHECK(v == 0.36);
  CHECK(unit == "USD/(kW*h)");
  REQUIRE(split_quantity("  989e12\tFLOP/s  ", v, unit));
  CHECK(v == 989e12);
  CHECK(unit == "FLOP/s");
  REQUIRE(split_quantity("42", v, unit));
  CHECK(unit.empty());
  CHECK_FALSE(split_quantity("USD", v, unit));
}
