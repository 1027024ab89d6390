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

// Formats in one style without touching the process-wide choice.
std::string shown(const Registry& reg, const char* var, double si, DisplayStyle style) {
  Displayed d = display(reg.units(), reg.var(id(reg, var)), si, style);
  return d.unit.empty() ? format_number(d.value) : format_number(d.value) + " " + d.unit;
}

TEST_CASE("format: --si style keeps the declared unit, with SI prefixes only where it conventionally takes them") {
  const Registry& reg = mini();
  auto show = [&](const char* var, double si) { return shown(reg, var, si, DisplayStyle::Declared); };
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
  Displayed d = display(reg.units(), reg.var(id("econ.job.dc_power")), 5200, DisplayStyle::Declared);
  CHECK(d.value == doctest::Approx(5.2));
  CHECK(d.unit == "kW");
}

TEST_CASE("format: the display-units table picks the largest ladder unit in which the magnitude is at least one") {
  const Registry& reg = mini();
  auto show = [&](const char* var, double si) { return shown(reg, var, si, DisplayStyle::Quoted); };
  CHECK(show("econ.cost.per_token", 3.000078e-06) == "3.000078 USD/Mtoken");     // one rung: always per million
  CHECK(show("econ.cost.per_token", 6.476139840576505e-07) == "0.647614 USD/Mtoken");
  CHECK(show("training.tokens_per_sec", 6666666.666666667) == "6666667 tokens/s");
  CHECK(show("econ.job.dc_power", 2352488.753853533) == "2.352489 MW");
  CHECK(show("econ.job.dc_power", 5200) == "5.2 kW");
  CHECK(show("econ.job.dc_power", 0.04) == "40 mW");                               // below W: SI prefix on W
  CHECK(show("training.wallclock", 8704205.620419974) == "100.7431 day");
  CHECK(show("training.wallclock", 5400) == "1.5 h");
  CHECK(show("training.wallclock", 86400) == "1 day");                            // a rung boundary is that rung
  CHECK(show("training.t_step", 9.542708096633167) == "9.542708 s");
  CHECK(show("training.t_step", 0.15) == "150 ms");
  CHECK(show("econ.cluster.lifetime", 5 * 31557600.0) == "5 yr");
  CHECK(show("training.bytes_moved", 8 * 32.05601e9) == "32.05601 GB");            // base unit of information: bit
  CHECK(show("gpu.mem_bandwidth", 8 * 3.35e12) == "3.35 TB/s");
  CHECK(show("gpu.peak_flops", 989.4e12) == "989.4 TFLOP/s");
  CHECK(show("cluster.rack.peak_flops", 1.08e18) == "1.08 EFLOP/s");
  CHECK(show("training.flops_per_step", 1e15) == "1e+15 FLOP");                   // compute is quoted unprefixed
  CHECK(show("lab.photon_energy", 20476545833266.7) == "5.687929 GWh");
  CHECK(show("lab.photon_energy", 3.2e-16) == "320 aJ");
  CHECK(show("econ.power.price_kwh", 1e-7) == "0.36 USD/(kW*h)");                 // energy prices per kWh
  CHECK(show("training.overhead_fraction", 0.25) == "0.25");
  CHECK(show("econ.job.dc_power", -5200) == "-5.2 kW");                            // magnitude, not sign
  CHECK(show("econ.job.dc_power", 0) == "0 W");
}

TEST_CASE("format: the process-wide style selects the table or the declared units") {
  const Registry& reg = mini();
  const Variable& v = reg.var(id("econ.cost.per_token"));
  CHECK(display_style() == DisplayStyle::Quoted);
  CHECK(format_quantity(reg.units(), v, 3.000078e-06) == "3.000078 USD/Mtoken");
  set_display_style(DisplayStyle::Declared);
  CHECK(format_quantity(reg.units(), v, 3.000078e-06) == "3.000078e-06 USD/token");
  set_display_style(DisplayStyle::Quoted);
}

TEST_CASE("format: every row of presets/display_units.toml is usable with the shipped model's units") {
  CHECK(display_table_problems(mini().units()).empty());
  if (std::filesystem::exists(gs::testing::shipped_image())) {
    Registry shipped = Registry::load(gs::testing::shipped_image());
    auto problems = display_table_problems(shipped.units());
    for (const auto& p : problems) MESSAGE(p);
    CHECK(problems.empty());
  }
}

TEST_CASE("format: quoted_ladder gives the rungs the observatory applies, smallest first, and none where the unit is kept") {
  const Registry& reg = mini();
  auto ladder = [&](const char* var) { return quoted_ladder(reg.units(), reg.var(id(var))); };
  auto cost = ladder("econ.cost.per_token");
  REQUIRE(cost.size() == 1);
  CHECK(cost[0].unit == "USD/Mtoken");
  CHECK(cost[0].scale == doctest::Approx(1e-6).epsilon(1e-12));
  auto time = ladder("training.wallclock");
  REQUIRE(time.size() == 5);
  CHECK(time[0].unit == "s");
  CHECK(time[3].unit == "day");
  CHECK(time[3].scale == doctest::Approx(86400).epsilon(1e-12));
  for (size_t i = 1; i < time.size(); ++i) CHECK(time[i].scale > time[i - 1].scale);
  auto bytes = ladder("training.bytes_moved");
  REQUIRE(!bytes.empty());
  CHECK(bytes[0].unit == "B");
  CHECK(bytes[0].scale == doctest::Approx(8).epsilon(1e-12));  // the base unit of information is the bit
  CHECK(ladder("training.overhead_fraction").empty());          // dimensionless
}
