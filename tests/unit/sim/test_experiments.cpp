// E001 and E002 end to end, the frozen protocols, and the commands the gpu-stack main calls.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/research/protocol.h"
#include "runtime/research/store.h"
#include "runtime/sim/commands.h"
#include "runtime/sim/e001.h"
#include "runtime/sim/experiments.h"
#include "tests/unit/sim/command_support.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;
using gs::research::Json;
namespace fs = std::filesystem;

namespace {

const std::string kExperiments = GSTACK_SOURCE_DIR "/experiments";
const std::string kE001 = kExperiments + "/E001/scenario-screening-v1.json";
const std::string kE002 = kExperiments + "/E002/scenario-colocated-v1.json";

Json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

struct Output {
  int status;
  std::string out, err;
};

Output run(const ExperimentRunArgs& a) {
  const testing::CommandOutput o = testing::experiment_run_as_command(a);
  return {o.status, o.out, o.err};
}

ExperimentRunArgs args(const std::string& id, const std::string& scenario) {
  ExperimentRunArgs a;
  a.experiment = id;
  a.scenario = scenario;
  a.experiments_dir = kExperiments;
  return a;
}

}  // namespace

TEST_CASE("every frozen protocol still hashes to its pin") {
  // Golden hashes: changing a protocol means a new experiment, never an edit.
  const std::map<std::string, std::string> pinned = {
      {"E001", "c2c23fcc7a5b81dd91142d87ed20c40040bcd2070487c4c290a0f272c877748c"},
      {"E001-RECOVERY-V2", "40d5afc1dc7f03a11c6261b37341d5d369a4f356d7b38a556eeaae80d7b4a878"},
      {"E002", "0de31f747c2388a342fc58862ff8e2373c1461b62fe01840d2e84942dc5c166f"},
      {"E003", "c061530359b80f787ffc3f08ea67565332f5cfce8bfc3553d6769078b0c24f4c"},
      {"E004", "ae3f8bd74d83aac2196b887a185fec2e915cd727c0d7c1e1aeca22b4c85e03a1"},
      {"E005", "d881328a02876f6a3d3239fd48d8af4cca8903d52c163ad1ff52ac836783936b"},
      {"E006", "c595433b43dd9c1fad7694a7f86f43fe1f49edc4a9ab098efb84c2db317f2ae0"}};
  CHECK(gs::research::list_protocols(kExperiments) == std::vector<std::string>{"E001", "E001-RECOVERY-V2", "E002", "E003", "E004", "E005", "E006"});
  for (const auto& [id, hash] : pinned) {
    CAPTURE(id);
    CHECK(gs::research::load_frozen_protocol(kExperiments, id).hash() == hash);
  }
}

TEST_CASE("E001 reproduces the reference screen's mechanics and verdicts") {
  auto protocol = gs::research::load_frozen_protocol(kExperiments, "E001");
  ExperimentOutcome o = run_experiment(protocol, read_json(kE001), std::nullopt);
  const Json& runs = o.sealed["runs"];
  // anchor-research.md section 5.1: synchronous 33.6 TB and 6,047.01 s, fixed-local 4.2 TB and 1,341.98 s,
  // adaptive 1.68 TB and 938.60 s.
  CHECK(runs[0]["metrics"]["inter_site_collective_bytes"].get<double>() == doctest::Approx(33.6e12).epsilon(1e-12));
  CHECK(runs[0]["elapsed_s"].get<double>() == doctest::Approx(6047.01).epsilon(1e-9));
  CHECK(runs[1]["metrics"]["inter_site_collective_bytes"].get<double>() == doctest::Approx(4.2e12).epsilon(1e-12));
  CHECK(runs[1]["elapsed_s"].get<double>() == doctest::Approx(1341.98).epsilon(1e-9));
  CHECK(runs[2]["metrics"]["inter_site_collective_bytes"].get<double>() == doctest::Approx(1.68e12).epsilon(1e-12));
  CHECK(runs[2]["elapsed_s"].get<double>() == doctest::Approx(938.60).epsilon(1e-9));
  CHECK(runs[2]["cycle_steps"] == Json::array({11, 22, 22, 22, 22, 21}));
  const Json& fixed = o.sealed["artifacts"][0];
  const Json& adaptive = o.sealed["artifacts"][1];
  CHECK(fixed["policy"] == "fixed_local");
  CHECK(fixed["conclusion"] == "failed_virtual_screen");  // 0.125 > 0.1
  CHECK(adaptive["metrics"]["collective_payload_byte_fraction"].get<double>() == doctest::Approx(0.05).epsilon(1e-12));
  CHECK(adaptive["verdict"] == "inconclusive");  // learning and time evidence is missing
  CHECK(o.verdict == gs::research::Verdict::inconclusive);
  for (const auto& r : runs) CHECK(r["work"]["conserved"] == true);
  // The artifact's hash is stable across runs and machines.
  CHECK(o.sealed["artifact_sha256"] == "e7ad667498bb9441f16cc0a4d6d3d0f6fee5c6f7962f4ce0fe960b619bca717c");
}

TEST_CASE("E002 runs its virtual waveform screen to a stable artifact") {
  auto protocol = gs::research::load_frozen_protocol(kExperiments, "E002");
  ExperimentOutcome o = run_experiment(protocol, read_json(kE002), std::nullopt);
  const Json& a = o.sealed["artifacts"][0];
  CHECK(a["metrics"]["committed_optimizer_step_invariant_violations"] == 0.0);
  CHECK(a["metrics"]["danger_band_spectral_energy_reduction_mean"].get<double>() >
        a["metrics"]["random_jitter_spectral_energy_reduction_mean"].get<double>());
  CHECK(o.verdict == gs::research::Verdict::inconclusive);  // no measured waveform, no coverage data
  CHECK(o.sealed["artifact_sha256"] == "fab768e87d94a89dd8ea6cffe89ab836c0f52f9a56606e684bc25106d0e9f4f2");
}

TEST_CASE("experiment-run writes a content-addressed artifact once and never overwrites it") {
  fs::path dir = fs::temp_directory_path() / "gs_experiment_run_test";
  fs::remove_all(dir);
  ExperimentRunArgs a = args("e001", kE001);
  a.output = dir.string() + "/";
  Output first = run(a);
  CHECK(first.status == 0);
  CHECK(first.out.find("E001 inconclusive") == 0);
  CHECK(first.out.find("written to") != std::string::npos);
  Output second = run(a);
  CHECK(second.status == 0);
  CHECK(second.out.find("already at") != std::string::npos);
  // Another seed is another artifact; a fixed file name holding other content is refused.
  fs::path named = dir / "named.json";
  std::ofstream(named) << "{}\n";
  a.output = named.string();
  Output refused = run(a);
  CHECK(refused.status == 2);
  CHECK(refused.err.find("never overwritten") != std::string::npos);
  std::ifstream in(named);
  std::string kept((std::istreambuf_iterator<char>(in)), {});
  CHECK(kept == "{}\n");
  fs::remove_all(dir);
}

TEST_CASE("experiment commands: exit codes and outputs") {
  const std::string text = gs::present::protocol_text(gs::research::load_frozen_protocol(kExperiments, "E003"));
  CHECK(text.find("E003: Semantic fault tolerance\nprotocol_hash: c061530359b8") == 0);
  CHECK(text.find("  e003-run-equivalence: defended_run_equivalence_fraction ge 0.95\n") != std::string::npos);
  Json j = Json::parse(gs::research::pretty_dump(protocol_json(gs::research::load_frozen_protocol(kExperiments, "E005"))));
  CHECK(j["protocol_hash"] == "d881328a02876f6a3d3239fd48d8af4cca8903d52c163ad1ff52ac836783936b");
  CHECK(j["falsifiers"][6]["upper_threshold"] == 0.95);
  CHECK_THROWS(gs::research::load_frozen_protocol(kExperiments, "E999"));  // the command's exit 2
  Output designed = run(args("E003", kE001));
  CHECK(designed.status == 2);
  CHECK(designed.err.find("no virtual engine") != std::string::npos);
  CHECK(run(args("E001", kExperiments + "/missing.json")).status == 2);
  // Without --output the artifact goes to stdout, and a different seed changes it.
  Output a = run(args("E001", kE001));
  ExperimentRunArgs seeded = args("E001", kE001);
  seeded.seed = 99;
  Output b = run(seeded);
  CHECK(Json::parse(a.out)["seed"] == 1);
  CHECK(Json::parse(b.out)["seed"] == 99);
  CHECK(gs::research::seal_is_valid(Json::parse(a.out)));
  CHECK(Json::parse(a.out)["artifact_sha256"] != Json::parse(b.out)["artifact_sha256"]);
}

TEST_CASE("E001 scenarios that leak held-out observations into the prior are refused") {
  Json j = read_json(kE001);
  j["learning_prior"]["seed_observation_ids"] = {"obs-1", "obs-2"};
  j["evaluation_observation_ids"] = {"obs-2"};
  CHECK_THROWS_WITH(load_e001_scenario(j), doctest::Contains("also held out"));
}

TEST_CASE("simulate command: exit codes, JSON and replicas") {
  SimulateArgs a;
  a.scenario = GSTACK_SOURCE_DIR "/presets/sim/llama3-405b-16k.toml";
  a.image_path = testing::model_image_path();
  a.replicas = 2;
  const testing::CommandOutput out = testing::simulate_as_command(a, true);
  CHECK(out.status == 0);
  Json j = Json::parse(out.out);
  CHECK(j["replicas"] == 2);
  CHECK(j["per_replica"][1]["seed"] == 20240724);
  CHECK(j["invariants"]["work_conserved"] == true);
  a.threads = 1;
  const testing::CommandOutput out2 = testing::simulate_as_command(a, true);
  CHECK(out2.status == 0);
  CHECK(out2.out == out.out);  // the thread count never changes the result
  a.policy = "optimistic";
  CHECK(testing::simulate_as_command(a, true).status == 2);
  CHECK_THROWS_AS(simulate_runs(a), RunError);
  a.policy.reset();
  a.scenario = "/nonexistent.toml";
  CHECK(testing::simulate_as_command(a, true).status == 2);
  try {
    simulate_runs(a);
    FAIL("a missing scenario file ran");
  } catch (const RunError& e) {
    CHECK(e.failure == RunFailure::bad_input);
    CHECK(to_string(e.failure) == "bad_input");
  }
}
