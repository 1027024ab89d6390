// Reads a simulation scenario from TOML (schema "gpu-stack.sim-scenario.v1", described in docs/simulator.md).
// Quantities are strings with units ("6.22 s", "2 TB/s", "0.08 USD/(kW*h)"), converted with the unit table of
// the registry image and checked against the dimension each field needs. Unknown keys are errors.
#pragma once

#include <map>
#include <string>

#include "image/units.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

// Both throw std::invalid_argument with the file name and every problem found; the result is finalized.
// Values of simulator variables computed by the compiled model under a named preset, each in the
// variable's working unit (sim_model_variables()). They replace the scenario file's top-level values of
// the same variables (jobs and sites may still set their own), and the provenance records the preset.
struct ModelValues {
  std::string preset;
  std::map<std::string, double> values;
};

Scenario parse_scenario_toml(const std::string& text, const gs::UnitTable& units, const std::string& origin,
                             const ModelValues* from_model = nullptr);
Scenario load_scenario_toml(const std::string& path, const gs::UnitTable& units, const ModelValues* from_model = nullptr);

}  // namespace gs::sim
