#include <doctest/doctest.h>

#include "runtime/format.h"
#include "runtime_support.h"

using namespace gs;
using gs::testing::id;
using gs::testing::mini;

TEST_CASE("format: numbers keep seven significant digits and drop trailing zeros") {
  CHECK(format_number(5.2) == "5.2");
  CHECK(format_number(3.000078e-06) == "3.000078e-06");
  CHECK(format_number(6666666.666666667) == "6666667");
  CHECK(format_number(0) == "0");
  CHECK(format_number(-0.00078) == "-0.00078");
}

TEST_CASE("format: SI prefixes only where the display unit conventionally takes them") {
  const Registry& reg = mini();
  auto show = [&](const char* var, double si) { return format_quantity(reg.units(), reg.var(id(var)), si); };
  CHECK(show("econ.job.dc_power", 5200) == "5.2 kW");
  CHECK(show("econ.job.dc_power", 500) == "500 W");
  CHECK(show("cluster.rack.peak_flops", 1.08e18) == "1.08 EFLOP/s");
  CHECK(show("training.t_step", 0.15) == "150 ms");
  CHECK(show("training.wallclock", 5400) == "5400 s");  // seconds never scale up
  CHECK(show("econ.cost.per_token", 3.000078e-06) == "3.000078e-06 USD/token");
  CHECK(show("training.tokens_per_sec", 6666666.666666667) == "6666667 token/s");
  CHECK(show("econ.power.price_kwh", 1e-7) == "0.36 USD/(kW*h)");  // base USD/J shown per kWh
  CHECK(show("training.overhead_fraction", 0.25) == "0.25");        // dimensionless: no unit
  CHECK(show("thermal.facility.floor_area", 2e6) == "2000000 m^2");  // a powered unit is not prefixed
  Displayed d = display(reg.units(), reg.var(id("econ.job.dc_power")), 5200);
  CHECK(d.value == doctest::Approx(5.2));
  CHECK(d.unit == "kW");
}
