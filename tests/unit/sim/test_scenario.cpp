// Scenario files: units, sources and the inputs boundary.
#include <doctest/doctest.h>

#include "runtime/sim/engine.h"
#include "runtime/sim/inputs.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;
using gs::sim::testing::parse;
using gs::sim::testing::small_scenario;

namespace {
const std::string kRestart = "recovery = \"restart\"\ncheckpoint = \"daly\"\n";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}
}  // namespace

TEST_CASE("the Llama 3 preset loads, with units converted and every input sourced") {
  Scenario sc = testing::load_preset("llama3-405b-16k.toml");
  const auto& w = sc.jobs.at(0).workload;
  CHECK(w.t_step_s == 6.22);
  CHECK(w.tokens_per_step == 16777216u);
  CHECK(w.state_bytes == doctest::Approx(5.67e12).epsilon(1e-15));
  CHECK(w.detection_s == 600);
  const auto& f = sc.sites.at(0).facility;
  CHECK(*f.price_usd_per_j == doctest::Approx(0.0806 / 3.6e6).epsilon(1e-12));
  CHECK(*f.gpu_usd_per_s == doctest::Approx(2.0 / 3600).epsilon(1e-12));
  CHECK(f.node_host_w == 4600);
  CHECK(sc.horizon_ns == int64_t(54) * 86400 * 1000000000);
  CHECK(sc.failures.size() == 18);
  for (const auto& p : sc.provenance) CHECK_FALSE(p.source.empty());
  CHECK(sc.hash() == Scenario(sc).hash());
}

TEST_CASE("numbers without a source, with the wrong dimension or in the wrong place are refused") {
  std::string base = small_scenario(kRestart);
  CHECK_NOTHROW(parse(base));
  CHECK_THROWS_WITH(parse(replace(base, R"("2 s", source = "assumption", note = "test")", R"("2 s")")),
                    doctest::Contains("every number about the world needs a source"));
  CHECK_THROWS_WITH(parse(replace(base, R"("2 s", source = "assumption", note = "test")", R"("2 s", source = "assumption")")),
                    doctest::Contains("an assumption needs a note"));
  CHECK_THROWS_WITH(parse(replace(base, R"("2 s", source = "assumption")", R"("2 s", source = "nobody")")),
                    doctest::Contains("source 'nobody' is not declared"));
  CHECK_THROWS_WITH(parse(replace(base, R"(value = "700 W")", R"(value = "700 J")")), doctest::Contains("but W is needed"));
  CHECK_THROWS_WITH(parse(replace(base, "gpus_per_node = 8", "gpus_per_node = 8\ngpu_count = 4")), doctest::Contains("unknown key 'gpu_count'"));
  // A syntax error reads as in every other TOML file of the project (runtime/toml_file.h).
  CHECK_THROWS_WITH_AS(parse("schema = \"x\"\nid = \n"),
                       "test.toml:2:6: malformed TOML: Error while parsing key-value pair: expected value, saw '\\n'; "
                       "hint: check the TOML syntax at that position",
                       std::invalid_argument);
  CHECK_THROWS_WITH(parse(base + "[site.model]\n\"training.t_step\" = { value = \"3 s\", source = \"assumption\", note = \"x\" }\n"),
                    doctest::Contains("cannot be set here"));
  CHECK_THROWS_WITH(parse(replace(base, "nodes = 36", "nodes = 30")), doctest::Contains("has 30 nodes but jobs need 32"));
  CHECK_THROWS_WITH(parse(replace(base, R"("training.t_step" = { value = "2 s", source = "assumption", note = "test" })", "")),
                    doctest::Contains("missing training.t_step [s]"));
  // A horizon past int64 nanoseconds (a fuzzer found 1e300 s) or below zero is an input error.
  CHECK_THROWS_WITH(parse(small_scenario(kRestart, "", "1e300 s")), doctest::Contains("outside 0 .. 9.2e9 s"));
  CHECK_THROWS_WITH(parse(small_scenario(kRestart, "", "-3 s")), doctest::Contains("outside 0 .. 9.2e9 s"));
}

TEST_CASE("inputs_from_values is the boundary a resolver will fill") {
  std::map<std::string, double> v = {{"training.t_step", 6.0}, {"arch.tokens_per_step", 1024}, {"training.checkpoint.state_bytes", 1e12},
                                     {"training.restart_overhead", 60}, {"training.failure_detection_time", 30}, {"gpu.power.total", 700},
                                     {"gpu.power.idle", 90}, {"cluster.node.host_power", 2000}, {"thermal.dc.pue", 1.1},
                                     {"econ.power.price_kwh", 2e-8}};
  SimInputs in = inputs_from_values(v);
  CHECK(in.workload.t_step_s == 6.0);
  CHECK(in.workload.tokens_per_step == 1024u);
  CHECK(in.facility.pue == 1.1);
  CHECK(*in.facility.price_usd_per_j == 2e-8);
  CHECK_FALSE(in.workload.reconfig_s.has_value());
  v.erase("training.t_step");
  v["arch.tokens_per_step"] = 10.5;
  v["made.up"] = 1;
  CHECK_THROWS_WITH(inputs_from_values(v), doctest::Contains("missing training.t_step [s]"));
  CHECK_THROWS_WITH(inputs_from_values(v), doctest::Contains("'made.up' is not a simulator input"));
  CHECK_THROWS_WITH(inputs_from_values(v), doctest::Contains("whole number of tokens"));
}

TEST_CASE("scenario: a float where an integer belongs is a message, not undefined behaviour") {
  // Found by fuzz_scenario: toml++ casts 2.024e83 to int64 when asked for an integer value.
  std::string message;
  try {
    (void)parse("seed = 20240e79\n");
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message.find("'seed' must be an integer") != std::string::npos);
}

TEST_CASE("a failure class may state a sourced Weibull hazard shape; it changes the trace, not the scale") {
  std::string base = small_scenario(kRestart);
  const std::string repair = R"(repair = { median = "6 h", sigma = 0.5, source = "assumption", note = "test" })";
  std::string shaped = replace(base, repair, repair + "\nshape = { value = \"0.7\", source = \"assumption\", note = \"test\" }");
  Scenario plain = parse(base), sc = parse(shaped);
  CHECK(plain.failures.at(0).weibull_shape == 1);
  CHECK(sc.failures.at(0).weibull_shape == 0.7);
  CHECK(sc.failures.at(0).rate_per_unit_s == plain.failures.at(0).rate_per_unit_s);  // same count over the window
  CHECK(sc.hash() != plain.hash());
  CHECK_THROWS_WITH(parse(replace(base, repair, repair + "\nshape = { value = \"0.7\" }")),
                    doctest::Contains("every number about the world needs a source"));
  CHECK_THROWS_WITH(parse(replace(base, repair, repair + "\nshape = { value = \"0\", source = \"assumption\", note = \"test\" }")),
                    doctest::Contains("the hazard shape must be positive"));
  SimResult a = simulate(plain, {1, std::nullopt}), b = simulate(sc, {1, std::nullopt});
  CHECK(b.work_conserved());
  CHECK(b.time_partitioned());
  CHECK(a.fleet_failures != b.fleet_failures);
}
