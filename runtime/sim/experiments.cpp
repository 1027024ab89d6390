#include "runtime/sim/experiments.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "image/image.h"
#include "runtime/research/store.h"
#include "runtime/sim/e001.h"
#include "runtime/sim/e002.h"
#include "runtime/sim/e004.h"
#include "runtime/sim/e006.h"

namespace gs::sim {

using research::Json;

namespace {

// The serving experiments' numbers come from the model: the artifact names the image that priced them.
std::string image_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return sha256_hex(bytes.data(), bytes.size());
}

}  // namespace

ExperimentOutcome run_experiment(const research::ExperimentProtocol& protocol, const Json& scenario, std::optional<uint64_t> seed,
                                 const ExperimentEnvironment& env) {
  const std::string& id = protocol.experiment_id;
  Json payload;
  uint64_t used_seed = 0;
  if (id == "E001") {
    E001Scenario sc = load_e001_scenario(scenario);
    used_seed = seed.value_or(sc.seed);
    payload = run_e001(protocol, sc, used_seed);
  } else if (id == "E002") {
    E002Scenario sc = load_e002_scenario(scenario);
    used_seed = seed.value_or(sc.seed);
    payload = run_e002(protocol, sc, used_seed);
  } else if (id == "E004") {
    E004Scenario sc = load_e004_scenario(scenario, env.scenario_dir);
    used_seed = seed.value_or(sc.seed);
    const Registry reg = Registry::load(env.image_path);
    payload = run_e004(protocol, sc, used_seed, reg, PresetLibrary(reg, env.presets_dir));
    payload["runs"]["model_image_sha256"] = image_sha256(env.image_path);
  } else if (id == "E006") {
    E006Scenario sc = load_e006_scenario(scenario, env.scenario_dir);
    used_seed = seed.value_or(sc.seed);
    const Registry reg = Registry::load(env.image_path);
    payload = run_e006(protocol, sc, used_seed, reg, PresetLibrary(reg, env.presets_dir));
    payload["runs"]["model_image_sha256"] = image_sha256(env.image_path);
  } else {
    throw std::invalid_argument("experiment " + id + " has a frozen protocol but no virtual engine yet; it cannot run");
  }
  // The experiment's verdict is the hypothesis policy's; baselines that fail their own gates do not decide it.
  ExperimentOutcome out;
  for (const auto& a : payload["artifacts"])
    if (a["policy"] == payload["hypothesis_policy"]) {
      std::string v = a["verdict"].get<std::string>();
      out.verdict = v == "pass" ? research::Verdict::pass : v == "fail" ? research::Verdict::fail : research::Verdict::inconclusive;
      out.conclusion = a["conclusion"].get<std::string>();
    }
  Json result = {{"schema", "gpu-stack.experiment-result.v1"},
                 {"experiment_id", id},
                 {"stage", "virtual"},
                 {"protocol_hash", protocol.hash()},
                 {"protocol", protocol.to_json()},
                 {"scenario_id", scenario.at("scenario_id")},
                 {"scenario_hash", payload["scenario_hash"]},
                 {"scenario", scenario},
                 {"seed", used_seed},
                 {"engine", {{"id", kEngineId}, {"version", kEngineVersion}}},
                 {"runs", payload["runs"]},
                 {"artifacts", payload["artifacts"]},
                 {"hypothesis_policy", payload["hypothesis_policy"]},
                 {"verdict", research::verdict_name(out.verdict)},
                 {"conclusion", out.conclusion}};
  out.sealed = research::seal_artifact(std::move(result));
  return out;
}

}  // namespace gs::sim
