#include "runtime/sim/experiments.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "image/image.h"
#include "runtime/research/store.h"
#include "runtime/sim/e001.h"
#include "runtime/sim/e001_recovery.h"
#include "runtime/sim/e002.h"
#include "runtime/sim/e004.h"
#include "runtime/sim/e006.h"
#include "runtime/sim/interval_model.h"
#include "runtime/sim/job_model.h"

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
                                 const ExperimentContext& context) {
  const std::string& id = protocol.experiment_id;
  Json payload;
  uint64_t used_seed = 0;
  std::string timeline;
  if (id == "E001-RECOVERY-V2") {
    std::optional<gs::Image> img;
    const gs::UnitTable* units = context.units;
    if (!units) {
      if (context.image_path.empty()) throw std::invalid_argument("E001-RECOVERY-V2 needs the registry image's unit table to read its world file");
      img = gs::load_image_file(context.image_path);
      units = &img->units;
    }
    RecoveryV2Scenario sc = load_recovery_v2_scenario(scenario, context.scenario_path, *units);
    // The candidate checkpoints by Daly's interval, which comes from the model.
    sc.world.intervals = context.intervals;
    if (!sc.world.intervals || sc.world.needs_job_model()) {
      if (context.image_path.empty())
        throw std::invalid_argument("E001-RECOVERY-V2 needs the model image for Daly's checkpoint interval and its job's model_preset");
      const Registry reg = Registry::load(context.image_path);
      if (!sc.world.intervals) sc.world.intervals = CheckpointIntervals::from_model(reg);
      // The reconfiguring comparator's step times and the power cap's clock share, from the model.
      if (sc.world.needs_job_model()) attach_job_model(sc.world, reg, PresetLibrary(reg, context.presets_dir));
    }
    used_seed = seed.value_or(sc.seed);
    payload = run_recovery_v2(protocol, sc, used_seed, context.timeline, &timeline);
  } else if (id == "E001") {
    E001Scenario sc = load_e001_scenario(scenario);
    used_seed = seed.value_or(sc.seed);
    payload = run_e001(protocol, sc, used_seed);
  } else if (id == "E002") {
    E002Scenario sc = load_e002_scenario(scenario);
    used_seed = seed.value_or(sc.seed);
    payload = run_e002(protocol, sc, used_seed);
  } else if (id == "E004" || id == "E006") {
    const std::string dir = std::filesystem::path(context.scenario_path).parent_path().string();
    const std::string scenario_dir = dir.empty() ? "." : dir;
    const Registry reg = Registry::load(context.image_path);
    const PresetLibrary presets(reg, context.presets_dir);
    if (id == "E004") {
      E004Scenario sc = load_e004_scenario(scenario, scenario_dir);
      used_seed = seed.value_or(sc.seed);
      payload = run_e004(protocol, sc, used_seed, reg, presets);
    } else {
      E006Scenario sc = load_e006_scenario(scenario, scenario_dir);
      used_seed = seed.value_or(sc.seed);
      payload = run_e006(protocol, sc, used_seed, reg, presets);
    }
    payload["runs"]["model_image_sha256"] = image_sha256(context.image_path);
  } else {
    throw std::invalid_argument("experiment " + id + " has a frozen protocol but no virtual engine yet; it cannot run");
  }
  if (context.timeline && timeline.empty()) throw std::invalid_argument("--timeline: experiment " + id + " records no timeline");
  // The experiment's verdict is the hypothesis policy's; baselines that fail their own gates do not decide it.
  ExperimentOutcome out;
  out.timeline = std::move(timeline);
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
  // Experiment-specific sections (E001-RECOVERY-V2: the world, the matched trace, per-policy answers).
  for (const char* key : {"world", "matched_trace", "prefix_checks", "mechanics_answer", "learning_answer"})
    if (payload.contains(key)) result[key] = payload[key];
  out.sealed = research::seal_artifact(std::move(result));
  return out;
}

}  // namespace gs::sim
