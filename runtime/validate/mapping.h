// From one row of published training runs to a scenario of the model: the presets it layers (shared
// modelling choices, fitted efficiencies, the hardware), the assignments and variant choices that state
// the row's own configuration, the assumptions taken where the row is silent, and what the row reports
// that the model can predict. A row that cannot be built gets a reason instead, never a silent default.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/validate/runs.h"

namespace gs::validate {

// One reported number and how to read the model's prediction of it: predicted = value(target) * factor,
// in the same unit as `reported`.
struct Observation {
  std::string metric;      // tokens_per_s, tflops_per_gpu, aggregate_pflops, mfu, hfu, step_time_s, wallclock, gpu_hours, energy_mwh
  std::string unit;        // unit of `reported` and of the prediction: token/s, TFLOP/s, %, s, days, GPU*h, MWh
  double reported = 0;
  std::string column;      // where it was read (or what it was derived from)
  std::string target;      // model variable
  double factor = 1;       // base units of the target -> unit
  std::string definition;  // how the source counts it, when that matters
};

struct RowScenario {
  std::string id, tier, group;
  size_t line = 0;
  std::string unbuildable;                 // why the row cannot be built; empty when it can
  std::vector<std::string> missing_columns;  // when it cannot for want of cells: every column (or alternative) it lacks
  std::string hardware_preset;             // preset name of the hardware layer
  std::vector<std::string> presets;        // layers, in order (later wins), before the row's own values
  std::map<std::string, double> assign;    // the row's values, base units, by variable name
  std::map<std::string, std::string> variants;
  std::vector<std::string> assumptions;    // where the row was silent and a stated default was taken
  std::vector<Observation> observations;   // what the row reports that the model predicts
  std::optional<size_t> primary;           // index of the throughput observation (tokens/s, else TFLOP/s, else MFU/HFU)
  // Settings the row leaves unstated that a search may choose (knob of [unstated] in mapping.toml ->
  // the assumption the default took, empty when the default needs no note). The scenario holds the
  // default (micro-batch 1, no interleaving, no recomputation) until a search replaces it.
  std::map<std::string, std::string> unstated;
};

// Which preset describes an accelerator named in free text ("A100-SXM4-80GB (Selene, DGX A100)"), by the
// [[hardware]] rules of the library's validate/mapping.toml. Nothing when no rule matches.
std::optional<std::string> hardware_preset_for(const PresetLibrary& lib, const std::string& hardware_text);

// Builds the row's scenario. Does not evaluate the model except to count parameters (for the gated/tied
// choice); `lib` is used to check that the hardware presets exist.
RowScenario map_row(const Registry& reg, const PresetLibrary& lib, const RunRow& row);

// Merges the layers and the row's values into assignments and selectors by variable id. Throws
// PresetError on an unknown variable or preset.
struct ResolvedScenario {
  std::map<uint32_t, double> assignments;
  std::map<uint32_t, std::string> variants;
};
ResolvedScenario resolve_scenario(const Registry& reg, const PresetLibrary& lib, const RowScenario& s);

}  // namespace gs::validate
