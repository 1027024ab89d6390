// Reads a simulation scenario from TOML (schema "gpu-stack.sim-scenario.v1", described in docs/simulator.md).
// Quantities are strings with units ("6.22 s", "2 TB/s", "0.08 USD/(kW*h)"), converted with the unit table of
// the registry image and checked against the dimension each field needs. Unknown keys are errors.
#pragma once

#include <string>

#include "image/units.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

// Both throw std::invalid_argument with the file name and every problem found; the result is finalized.
Scenario parse_scenario_toml(const std::string& text, const gs::UnitTable& units, const std::string& origin);
Scenario load_scenario_toml(const std::string& path, const gs::UnitTable& units);

}  // namespace gs::sim
