// The data behind the observatory's charts (data/charts.json): for each exported preset, one-dimensional
// sweeps, a two-dimensional sweep for the heat map, the Monte Carlo distribution of the headline, its Sobol
// indices and the plan's candidates. Each comes from the same typed result the CLI prints (run_sweep,
// run_uncertainty, run_sensitivity, search_strategies), so the page's numbers are the CLI's. What to
// compute is read from presets/site/charts.toml; no model name is spelled here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/presets.h"
#include "runtime/registry.h"

namespace gs::site {

// One swept input: the preset's own value times `points` factors from `from` to `to`.
struct ChartAxis {
  uint32_t var = 0;
  double from = 1, to = 1;
  size_t points = 1;
  bool log = false;
  std::vector<double> factors() const;
};

struct ChartSweep {
  ChartAxis axis;
  std::vector<uint32_t> targets;
};

struct ChartSettings {
  std::string path;
  uint32_t target = 0;
  size_t distribution_samples = 20000, sobol_samples = 4096;
  uint64_t seed = 1;
  std::vector<ChartSweep> sweeps;
  std::optional<ChartAxis> heat_x, heat_y;
  uint32_t heat_target = 0;
  uint32_t waterfall_total = 0, waterfall_tokens = 0, waterfall_per_token = 0;
  size_t plan_top = 200;
  std::string plan_throughput, plan_memory;  // report columns of the strategy space, by name
};

// presets/site/charts.toml under `presets_dir`.
std::string chart_settings_path(const std::string& presets_dir);
// Throws PresetError ("FILE:LINE:COL: ...") on a malformed file or an unknown variable.
ChartSettings load_chart_settings(const Registry& reg, const std::string& path);

// The charts of every preset: {"schema", "target", "waterfall", "scenarios": [{"name", "sweeps", "heatmap",
// "distribution", "sobol", "plan"}]}. A chart a preset cannot give (no uncertain input, no workload for the
// planner, an input left missing) carries {"error": why} instead, and the reason joins `notes`.
nlohmann::ordered_json charts_json(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir,
                                   const std::vector<std::string>& presets, const ChartSettings& settings,
                                   std::vector<std::string>& notes);

}  // namespace gs::site
