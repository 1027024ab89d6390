#include "runtime/api/session.h"

#include <algorithm>
#include <cstdlib>

#include "runtime/sim/inputs.h"

namespace gs::api {

namespace fs = std::filesystem;

std::string default_image_path(const fs::path& build_dir) {
  if (const char* env = std::getenv("GSTACK_IMAGE"); env && *env) return env;
  return (build_dir / "model.gsimg").string();
}

Registry load_registry(const std::string& path) {
  if (!fs::exists(path))
    throw ImageError("cannot find the registry image '" + path + "'; build it (cmake --build build) or pass --image FILE");
  return Registry::load(path);
}

std::string presets_dir(const std::string& dir) { return dir.empty() ? PresetLibrary::default_dir() : dir; }

ScenarioPoint build_scenario(const Registry& reg, const PresetLibrary& lib, const ScenarioInputs& in) {
  ScenarioPoint s;
  for (const auto& name : in.presets) {
    Preset p = lib.load(name);
    for (const auto& [v, x] : p.assignments) s.assignments[v] = x;
    for (const auto& [v, k] : p.variants) s.variants[v] = k;
    for (const auto& [v, d] : p.uncertain) s.uncertain[v] = d;
  }
  for (const auto& a : in.assigns) {
    auto [v, x] = parse_assignment(reg, a);
    s.assignments[v] = x;
  }
  for (const auto& text : in.variants) {
    auto [v, k] = parse_selector(reg, text);
    s.variants[v] = k;
  }
  return s;
}

ResolveAnswer resolve(const Registry& reg, const ScenarioPoint& s, uint32_t target, const ResolveOptions& options) {
  Resolver resolver(reg, s.assignments, s.variants, options);
  ResolveAnswer a{resolver.resolve(target), std::nullopt, 1};
  // An uncertain scenario also gets the target's 90% interval, from the compiled cone.
  if (!s.uncertain.empty() && a.resolution.number && a.resolution.missing.empty())
    a.interval = interval_of(reg, s, target, 100000, a.interval_seed);
  if (a.interval && a.interval->p5 == a.interval->p95) a.interval.reset();  // the uncertain inputs do not move this target
  return a;
}

sim::ModelValues simulator_inputs(const Registry& reg, const PresetLibrary& lib, const std::vector<std::string>& presets) {
  ScenarioInputs in;
  in.presets = presets;
  ScenarioPoint s = build_scenario(reg, lib, in);
  std::vector<std::pair<std::string, std::string>> wanted;
  for (const auto& v : sim::sim_model_variables()) wanted.emplace_back(v.name, v.unit);
  sim::ModelValues mv;
  for (size_t i = 0; i < presets.size(); ++i) mv.preset += (i ? "+" : "") + presets[i];
  mv.values = evaluate_in_units(reg, s, wanted);
  return mv;
}

std::string workload_preset(const std::string& name) {
  if (name.find('/') != std::string::npos || name.ends_with(".toml")) return name;
  std::string file = name;
  std::replace(file.begin(), file.end(), '-', '_');
  return "workload/" + file;
}

PlanAnswer plan(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir, ScenarioInputs in,
                const std::string& workload, const std::string& knobs_path, const strategy::StrategyRequest& request) {
  if (in.presets.empty() && workload.empty()) throw PresetError("plan needs a cluster: pass --preset P (and --workload W)");
  if (!workload.empty()) in.presets.push_back(workload_preset(workload));
  ScenarioPoint s = build_scenario(reg, lib, in);
  PlanAnswer a;
  a.space = strategy::load_strategy_space(reg, knobs_path.empty() ? strategy::default_space_path(presets_dir) : knobs_path);
  a.result = strategy::search_strategies(reg, s, a.space, request);
  return a;
}

}  // namespace gs::api
