// What every front end of the runtime (the gpu-stack command line, the Python module) does before it asks
// a question: find and load the registry image, find the presets, and turn named presets plus
// command-line style assignments and selectors into one scenario. One implementation, so the two front
// ends cannot drift apart.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/resolver.h"
#include "runtime/sim/scenario_toml.h"
#include "runtime/strategy/search.h"
#include "runtime/strategy/space.h"
#include "runtime/uq/commands.h"

namespace gs::api {

// Where the image and the presets are comes from the front end's Workspace (runtime/workspace.h,
// tools/frontend/workspace_env.h); nothing here reads the environment.
// Loads the image; a missing file is an ImageError that says how to build one.
Registry load_registry(const std::string& path);

// Presets by name or path (applied in order, later wins), then shipped workloads by zoo name
// (`llama3-405b`), then "NAME=VALUE[ UNIT]" assignments and "NAME=KEY" selectors, which win over every preset.
struct ScenarioInputs {
  std::vector<std::string> presets, assigns, variants;
  std::vector<std::string> workloads;  // zoo names, layered after the presets
};
// The preset layers of `in`, in order: --preset names, then each workload's preset.
std::vector<std::string> preset_layers(const PresetLibrary& lib, const ScenarioInputs& in);
// The layers composed as one preset (a later workload replaces an earlier one; see PresetLibrary::compose),
// then the assignments and selectors. `user_presets`, when given, receives the names of the presets that
// do not ship with the project.
ScenarioPoint build_scenario(const Registry& reg, const PresetLibrary& lib, const ScenarioInputs& in,
                             std::vector<std::string>* user_presets = nullptr);
// The two halves of build_scenario: the composed preset layers (`in`'s assignments and selectors
// ignored), and the assignments and selectors applied over a point (they win over every preset).
ScenarioPoint preset_point(const PresetLibrary& lib, const ScenarioInputs& in, std::vector<std::string>* user_presets = nullptr);
void apply_overrides(const Registry& reg, const ScenarioInputs& in, ScenarioPoint& point);

// A resolution plus, when the scenario's uncertain inputs move the target, its 90% interval.
struct ResolveAnswer {
  Resolution resolution;
  std::optional<Interval> interval;
  uint64_t interval_seed = 1;
};
// Randomized-QMC samples behind `resolve`'s interval (8 shifted Halton sets of 512; interval_of); 0 asks
// for no interval (the server's fast path). bench/plan_tiers.sh measures the percentiles' error against
// 10^6 plain Monte Carlo draws: about 1e-3 relative on the headlines, as each answer's stated standard
// error says, at a few ms on the interpreter (docs/runtime.md).
constexpr size_t kResolveIntervalSamples = 4096;
ResolveAnswer resolve(const Registry& reg, const ScenarioPoint& scenario, uint32_t target, const ResolveOptions& options = {},
                      size_t interval_samples = kResolveIntervalSamples);
// The `resolve --json` document (the resolution with its trace steps, and the interval when there is one),
// shared by the command line and the server.
// `full` false is resolution_json's compact document (the server's answer without its trace).
std::string resolve_json(const Registry& reg, const ResolveAnswer& answer, bool full = true);
// The same document as a JSON value, for callers that add to it (`resolve --json`'s memory fit).
nlohmann::ordered_json resolve_document(const Registry& reg, const ResolveAnswer& answer, bool full = true);

// The simulator's model variables computed by the model's cones under the presets (`simulate --preset`).
sim::ModelValues simulator_inputs(const Registry& reg, const PresetLibrary& lib, const std::vector<std::string>& presets);

// `plan`: the cluster presets plus the workload, the knob space (default presets/strategy/knobs.toml
// under `presets_dir`, or serving-knobs.toml with `serving`), and the ranked search. Throws PresetError on bad input; an empty ranking means
// no layout was feasible.
struct PlanAnswer {
  strategy::StrategySpace space;
  strategy::StrategyResult result;
};
PlanAnswer plan(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir, const ScenarioInputs& in,
                const std::string& knobs_path, bool serving, const strategy::StrategyRequest& request);

}  // namespace gs::api
