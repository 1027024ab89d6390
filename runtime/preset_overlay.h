// One step of stacking presets by hand: a preset's assignments, variant selections and uncertain inputs
// laid over a scenario's (a ScenarioPoint, an AnalysisScenario), the preset winning where both set a
// variable. Commands that layer presets one by one (estimate, the analysis scenario, the API session)
// share it rather than each copying the three loops.
#pragma once

#include "runtime/presets.h"

namespace gs {

template <class Scenario>
void overlay_preset(Scenario& s, const Preset& p) {
  for (const auto& [v, x] : p.assignments) s.assignments[v] = x;
  for (const auto& [v, k] : p.variants) s.variants[v] = k;
  for (const auto& [v, d] : p.uncertain) s.uncertain[v] = d;
}

}  // namespace gs
