#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "runtime/export.h"
#include "runtime/report.h"
#include "runtime_support.h"

using namespace gs;
using gs::testing::id;
using gs::testing::mini;

TEST_CASE("report: scenario report of the fixture carries SI values, expectations and overrides") {
  Preset p = gs::testing::source_preset(mini(), "dense_training_cost_fixture");
  ScenarioReport rep = scenario_report(mini(), p, p.targets, {});
  CHECK(rep.status == "ok");
  CHECK(rep.issue_count == 0);
  auto j = nlohmann::json::parse(scenario_json(mini(), rep));
  CHECK(j["preset"] == "dense_training_cost_fixture");
  REQUIRE(j["targets"].size() == 7);
  for (const auto& t : j["targets"]) {
    INFO(t["label"].get<std::string>());
    CHECK(t["status"] == "ok");
    CHECK(t["expected_relative_difference"].get<double>() <= 1e-12);
  }
  CHECK(j["targets"][6]["unit"] == "USD/token");
  CHECK(j["targets"][6]["value"].get<double>() == doctest::Approx(3.000078e-06).epsilon(1e-12));  // SI, unchanged
  CHECK(j["targets"][6]["display"] == "3.000078 USD/Mtoken");  // the human string follows the text style
  CHECK(j["overrides"].size() == 21);
  std::string text = scenario_text(mini(), rep);
  CHECK(text.find("job_dc_power       ok      econ.job.dc_power = 5.2 kW") != std::string::npos);
  CHECK(text.find("status: ok (0 issues)") != std::string::npos);
}

TEST_CASE("report: resolution text and JSON sections") {
  Resolver r(mini(), {{id("cluster.node.n_gpus"), 8}}, {});
  Resolution res = r.resolve(id("cluster.node.peak_flops"));
  std::string text = resolution_text(mini(), res, {true, true, true});
  CHECK(text.find("cluster.node.peak_flops is not determined: 1 missing input") != std::string::npos);
  CHECK(text.find("formula: cluster.node.peak_flops = 8*gpu.peak_flops") != std::string::npos);
  CHECK(text.find("hint: --assign gpu.peak_flops=VALUE[ UNIT]") != std::string::npos);
  auto j = nlohmann::json::parse(resolution_json(mini(), res));
  CHECK(j["complete"] == false);
  CHECK(j["value"].is_null());
  CHECK(j["missing"][0]["variable"] == "gpu.peak_flops");
  CHECK(j["missing"][0]["family"] == "gpu");
  CHECK(j["missing"][0]["category"] == "primitive-root");
  CHECK(j["formula"].get<std::string>().find("gpu.peak_flops") != std::string::npos);
}

TEST_CASE("report: trace tree shows each variable once with its relation and location") {
  Preset p = gs::testing::source_preset(mini(), "demo_rack");
  Resolver r(mini(), p.assignments, p.variants);
  Resolution res = r.resolve(id("cluster.rack.peak_flops"));
  std::string text = trace_text(mini(), res);
  CHECK(text.starts_with("cluster.rack.peak_flops = 1.08 EFLOP/s  <- fixture.rack_peak_flops (identity)  tests/unit/runtime/data/10_fixture.gstack:"));
  CHECK(text.find("\n  cluster.node.peak_flops = 120 PFLOP/s  <- fixture.node_peak_flops (identity)") != std::string::npos);
  CHECK(text.find("\n    gpu.peak_flops = 15 PFLOP/s  [assigned]") != std::string::npos);
  auto j = nlohmann::json::parse(trace_json(mini(), res));
  CHECK(j["tree"]["value"].get<double>() == 1.08e18);
  CHECK(j["tree"]["children"].size() == 2);
}

TEST_CASE("report: stats in text and JSON") {
  auto j = nlohmann::json::parse(stats_json(mini(), "x.gsimg"));
  CHECK(j["stats"]["constants"] == 24);
  CHECK(j["graph"]["cycles"] == 3);  // the test model's three variant-closed cycles
  CHECK(stats_text(mini(), "x.gsimg").find("root_inputs") != std::string::npos);
}

TEST_CASE("export: DOT and JSON cones") {
  ConeExport spec;
  spec.root = id("cluster.rack.peak_flops");
  std::string dot = export_dot(mini(), spec);
  CHECK(dot.starts_with("digraph gpu_stack {"));
  CHECK(dot.find("\"gpu.peak_flops\" -> \"cluster.node.peak_flops\";") != std::string::npos);
  CHECK(dot.find("label=\"cluster.rack.peak_flops\\n[FLOP/s]\"") != std::string::npos);
  auto j = nlohmann::json::parse(export_json(mini(), spec));
  CHECK(j["nodes"].size() == 5);
  CHECK(j["edges"].size() == 4);
  CHECK(j["edges"][0]["relations"][0] == "fixture.node_peak_flops");
  spec.root = id("gpu.peak_flops");
  spec.dependents = true;
  auto up = nlohmann::json::parse(export_json(mini(), spec));
  CHECK(up["direction"] == "dependents");
  CHECK(up["nodes"].size() > 5);
}
