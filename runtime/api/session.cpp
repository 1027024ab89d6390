#include "runtime/api/session.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "runtime/preset_overlay.h"
#include "runtime/report.h"
#include "runtime/sim/inputs.h"
#include "runtime/zoo.h"

namespace gs::api {

namespace fs = std::filesystem;

Registry load_registry(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw ImageError("cannot find the registry image '" + path + "'; build it (cmake --build build) or pass --image FILE");
  return Registry::load(path);
}

std::vector<std::string> preset_layers(const PresetLibrary& lib, const ScenarioInputs& in) {
  std::vector<std::string> layers = in.presets;
  for (const auto& w : in.workloads) layers.push_back(zoo::workload_preset(lib, w));
  return layers;
}

ScenarioPoint build_scenario(const Registry& reg, const PresetLibrary& lib, const ScenarioInputs& in,
                             std::vector<std::string>* user_presets) {
  ScenarioPoint s = preset_point(lib, in, user_presets);
  apply_overrides(reg, in, s);
  return s;
}

ScenarioPoint preset_point(const PresetLibrary& lib, const ScenarioInputs& in, std::vector<std::string>* user_presets) {
  ScenarioPoint s;
  const std::vector<std::string> layers = preset_layers(lib, in);
  if (!layers.empty()) {
    std::vector<Preset> loaded;
    const Preset p = lib.compose(layers, &loaded);
    if (user_presets)
      for (const auto& one : loaded)
        if (lib.is_external(one)) user_presets->push_back(one.name);
    overlay_preset(s, p);
  }
  return s;
}

void apply_overrides(const Registry& reg, const ScenarioInputs& in, ScenarioPoint& s) {
  for (const auto& a : in.assigns) {
    auto [v, x] = parse_assignment(reg, a);
    s.assignments[v] = x;
  }
  for (const auto& text : in.variants) {
    auto [v, k] = parse_selector(reg, text);
    s.variants[v] = k;
  }
}

ResolveAnswer resolve(const Registry& reg, const ScenarioPoint& s, uint32_t target, const ResolveOptions& options,
                      size_t interval_samples) {
  Resolver resolver(reg, s.assignments, s.variants, options);
  ResolveAnswer a{resolver.resolve(target), std::nullopt, 1};
  // An uncertain scenario also gets the target's 90% interval, from the compiled cone.
  if (interval_samples > 0 && !s.uncertain.empty() && a.resolution.number && a.resolution.missing.empty())
    a.interval = interval_of(reg, s, target, interval_samples, a.interval_seed);
  if (a.interval && a.interval->p5 == a.interval->p95) a.interval.reset();  // the uncertain inputs do not move this target
  return a;
}

std::string resolve_json(const Registry& reg, const ResolveAnswer& answer, bool full) { return resolve_document(reg, answer, full).dump(2); }

nlohmann::ordered_json resolve_document(const Registry& reg, const ResolveAnswer& answer, bool full) {
  nlohmann::ordered_json j = resolution_document(reg, answer.resolution, full);
  if (!answer.interval) return j;
  const Interval& i = *answer.interval;
  j["interval"] = {{"p5", i.p5},
                   {"median", i.p50},
                   {"p95", i.p95},
                   {"samples", i.samples},
                   {"seed", answer.interval_seed},
                   {"method", i.method},
                   {"replicates", i.replicates},
                   {"standard_error", {{"p5", i.p5_se}, {"median", i.p50_se}, {"p95", i.p95_se}}}};
  return j;
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

PlanAnswer plan(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir, const ScenarioInputs& in,
                const std::string& knobs_path, bool serving, const strategy::StrategyRequest& request) {
  if (in.presets.empty() && in.workloads.empty()) throw PresetError("plan needs a cluster: pass --preset P (and --workload W)");
  ScenarioPoint s = build_scenario(reg, lib, in);
  const std::string default_knobs = serving ? strategy::serving_space_path(presets_dir) : strategy::default_space_path(presets_dir);
  PlanAnswer a;
  a.space = strategy::load_strategy_space(reg, knobs_path.empty() ? default_knobs : knobs_path);
  a.result = strategy::search_strategies(reg, s, a.space, request);
  return a;
}

}  // namespace gs::api
