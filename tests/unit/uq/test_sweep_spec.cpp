#include <doctest/doctest.h>

#include "runtime/uq/sweep_spec.h"
#include "tests/unit/support/model_fixture.h"

namespace {

struct Units {
  gs::Image img = gs::testing::compile_with_units("system t\n");
  const gs::UnitTable& table = img.units;
};

}  // namespace

TEST_CASE("sweep specs: lists, linear and log ranges, units") {
  Units u;
  const gs::Dim price = u.table.parse("USD/(kW*h)")->dim;
  const double kwh = 3.6e6;
  auto list = gs::parse_sweep_spec("0.05,0.1,0.2", u.table, price, 1 / kwh, "USD/(kW*h)");
  REQUIRE(list.error.empty());
  REQUIRE(list.values.size() == 3);
  CHECK(list.values[1] == doctest::Approx(0.1 / kwh).epsilon(1e-15));

  auto lin = gs::parse_sweep_spec("1..2:5", u.table, price, 1 / kwh, "USD/(kW*h)");
  REQUIRE(lin.values.size() == 5);
  CHECK(lin.values[1] == doctest::Approx(1.25 / kwh).epsilon(1e-15));
  CHECK(lin.values[4] == doctest::Approx(2 / kwh).epsilon(1e-15));

  auto lg = gs::parse_sweep_spec("1..100:log:3", u.table, price, 1 / kwh, "USD/(kW*h)");
  REQUIRE(lg.values.size() == 3);
  CHECK(lg.values[1] == doctest::Approx(10 / kwh).epsilon(1e-14));

  // An explicit unit overrides the display unit: 100 USD/(MW*h) is 0.1 USD/(kW*h).
  auto mwh = gs::parse_sweep_spec("100 USD/(MW*h)", u.table, price, 1 / kwh, "USD/(kW*h)");
  REQUIRE(mwh.error.empty());
  CHECK(mwh.values[0] == doctest::Approx(0.1 / kwh).epsilon(1e-14));
}

TEST_CASE("sweep specs: errors name the problem") {
  Units u;
  const gs::Dim price = u.table.parse("USD/(kW*h)")->dim;
  CHECK(gs::parse_sweep_spec("1..2", u.table, price, 1, "x").error.find("point count") != std::string::npos);
  CHECK(gs::parse_sweep_spec("0..2:log:3", u.table, price, 1, "x").error.find("positive") != std::string::npos);
  CHECK(gs::parse_sweep_spec("1,a", u.table, price, 1, "x").error.find("'a'") != std::string::npos);
  auto wrong = gs::parse_sweep_spec("5 kW", u.table, price, 1, "USD/(kW*h)");
  CHECK(wrong.error.find("USD/(kW*h)") != std::string::npos);
}
