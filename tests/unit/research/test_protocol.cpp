// Frozen protocols, run artifacts and their gates (anchor-research.md section 4).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "runtime/research/artifact.h"
#include "runtime/research/protocol.h"

using namespace gs::research;
namespace fs = std::filesystem;

namespace {

ExperimentProtocol tiny() {
  ExperimentProtocol p;
  p.experiment_id = "T001";
  p.title = "A tiny protocol";
  p.question = "Does it work?";
  p.hypothesis = "It works.";
  p.baselines = {"nothing"};
  p.metrics = {{"speedup", "1", "how much faster", true}, {"coverage", "1", "interval coverage", true}, {"bytes", "byte", "bytes moved", false}};
  p.falsifiers = {{"t-speed", "speedup", Comparison::ge, 1.5, std::nullopt, "at least 1.5x"},
                  {"t-cover", "coverage", Comparison::between, 0.85, 0.95, "calibrated intervals"}};
  p.independent_variables = {"knob"};
  p.held_out_dimensions = {"workload"};
  p.real_validation_requirements = {"a real run"};
  p.seed_policy = "fixed seeds";
  p.source_window = "2026-01-01/2026-02-01";
  p.evidence_requirements = {{"t-accounting", "accounting", "work adds up", Stage::virtual_, "exact identity", "virtual engine", {"bytes"}, {}, {}, true},
                             {"t-transfer", "transfer", "transfers to held-out", Stage::controlled, "same sign", "real runs", {}, {"site"}, {}, true},
                             {"t-nice", "reporting", "nice to have", Stage::virtual_, "reported", "virtual engine", {}, {}, {}, false}};
  p.notes = {"test"};
  p.validate();
  return p;
}

RunInputs inputs(std::map<std::string, double> metrics) {
  RunInputs in;
  in.run_id = "run-1";
  in.policy = "candidate";
  in.scenario_id = "sc";
  in.metrics = std::move(metrics);
  return in;
}

}  // namespace

TEST_CASE("a protocol's hash is pinned and moves with any edit") {
  ExperimentProtocol p = tiny();
  CHECK(p.hash() == "590950cca20615f110280a9df641cf36b5d035cffa5da06b233391c638aa5eee");
  ExperimentProtocol q = ExperimentProtocol::from_json(p.to_json());
  CHECK(q.hash() == p.hash());
  q.falsifiers[0].threshold = 1.4;
  CHECK(q.hash() != p.hash());
  q = p;
  std::swap(q.baselines, q.independent_variables);
  CHECK(q.hash() != p.hash());
}

TEST_CASE("protocol validation") {
  ExperimentProtocol p = tiny();
  p.falsifiers.pop_back();
  CHECK_THROWS_WITH(p.validate(), doctest::Contains("primary metric 'coverage' is tested by no falsifier"));
  p = tiny();
  p.falsifiers[1].upper_threshold.reset();
  CHECK_THROWS_WITH(p.validate(), doctest::Contains("upper threshold goes with 'between'"));
  p = tiny();
  p.falsifiers[0].metric = "unknown";
  CHECK_THROWS_WITH(p.validate(), doctest::Contains("undeclared metric"));
  p = tiny();
  p.evidence_requirements[0].requirement_id = "t-speed";
  CHECK_THROWS_WITH(p.validate(), doctest::Contains("both a falsifier and a requirement"));
  CHECK(tiny().falsifiers[1].rule_text() == "between 0.85 .. 0.95");
  CHECK(tiny().falsifiers[1].survives(0.95));
  CHECK_FALSE(tiny().falsifiers[1].survives(0.96));
}

TEST_CASE("a frozen protocol whose content drifted from its pin is refused") {
  fs::path dir = fs::temp_directory_path() / "gs_protocol_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "T001");
  ExperimentProtocol p = tiny();
  std::ofstream(dir / "T001" / "protocol.json") << pretty_dump(p.to_json());
  std::ofstream(dir / "T001" / "protocol.sha256") << p.hash() << "\n";
  CHECK(load_frozen_protocol(dir.string(), "t001").hash() == p.hash());
  CHECK(list_protocols(dir.string()) == std::vector<std::string>{"T001"});
  p.title = "A tiny protocol, edited after the fact";
  std::ofstream(dir / "T001" / "protocol.json") << pretty_dump(p.to_json());
  CHECK_THROWS_WITH(load_frozen_protocol(dir.string(), "T001"), doctest::Contains("edited after it was frozen"));
  CHECK_THROWS_WITH(load_frozen_protocol(dir.string(), "T404"), doctest::Contains("no protocol"));
  fs::remove_all(dir);
}

TEST_CASE("verdicts: failure beats incompleteness, missing mandatory evidence is inconclusive") {
  ExperimentProtocol p = tiny();
  auto satisfied = [](const std::string& id) { return RequirementResult{id, RequirementStatus::satisfied, "checked", {"#/runs/0"}, {}, {}}; };
  // Everything present and satisfied except a controlled-stage requirement: inconclusive, not pass.
  RunInputs in = inputs({{"speedup", 2.0}, {"coverage", 0.9}, {"bytes", 10}});
  in.requirement_results = {satisfied("t-accounting")};
  RunArtifact a = build_run_artifact(p, in);
  CHECK(a.verdict == Verdict::inconclusive);
  CHECK(a.inputs.requirement_results[1].reason == "not evaluated; earliest resolvable stage is controlled");
  // A missing metric leaves its falsifier unresolved: inconclusive.
  in = inputs({{"speedup", 2.0}, {"bytes", 10}});
  a = build_run_artifact(p, in);
  CHECK(a.falsifiers[1].reason == "metric was not reported");
  CHECK(a.verdict == Verdict::inconclusive);
  // A falsified threshold fails the run even though evidence is missing.
  in = inputs({{"speedup", 1.2}});
  in.evidence_gaps = {"no learning data"};
  a = build_run_artifact(p, in);
  CHECK(a.verdict == Verdict::fail);
  CHECK(a.conclusion == "failed_virtual_screen");
  // All mandatory evidence in (the optional requirement may stay unresolved): pass.
  p.evidence_requirements.erase(p.evidence_requirements.begin() + 1);
  p.validate();
  in = inputs({{"speedup", 2.0}, {"coverage", 0.9}, {"bytes", 10}});
  in.requirement_results = {satisfied("t-accounting")};
  a = build_run_artifact(p, in);
  CHECK(a.verdict == Verdict::pass);
  CHECK(a.conclusion == "survived_virtual_screen");
  CHECK(a.to_json()["protocol_hash"] == p.hash());
}

TEST_CASE("run artifacts refuse leaks and premature claims") {
  ExperimentProtocol p = tiny();
  RunInputs in = inputs({{"speedup", 2.0}});
  in.calibration_observation_ids = {"o1", "o2"};
  in.evaluation_observation_ids = {"o2", "o3"};
  CHECK_THROWS_WITH(build_run_artifact(p, in), doctest::Contains("both calibration and evaluation: o2"));
  in = inputs({{"speedup", 2.0}});
  in.requirement_results = {{"t-transfer", RequirementStatus::satisfied, "claimed", {"#/x"}, {{"site", "satisfied"}}, {}}};
  CHECK_THROWS_WITH(build_run_artifact(p, in), doctest::Contains("cannot be decided before stage controlled"));
  in = inputs({{"speedup", 2.0}});
  in.requirement_results = {{"t-accounting", RequirementStatus::satisfied, "claimed", {"#/x"}, {}, {}}};
  CHECK_THROWS_WITH(build_run_artifact(p, in), doctest::Contains("without its metric 'bytes'"));
  in = inputs({{"speedup", 2.0}});
  in.requirement_results = {{"t-unknown", RequirementStatus::unresolved, "?", {}, {}, {}}};
  CHECK_THROWS_WITH(build_run_artifact(p, in), doctest::Contains("unknown requirement"));
  in = inputs({{"speedup", 2.0}});
  in.stage = Stage::designed;
  CHECK_THROWS(build_run_artifact(p, in));
}
