// E006 "Firm grid-responsive inference": a virtual screen on the serving simulator. A fleet of serving
// replicas is asked to cut its facility power for a dispatch window. Mechanisms are two-level factors
// (request placement: consolidate traffic onto fewer replicas and power the rest down; power allocation:
// a lower GPU power limit; batching policy: another batch limit); each combination is a cell. On
// calibration seeds the bid rule offers, per workload family, the largest power cut among the cells that
// keep the protocol's service bounds against the no-request baseline under the same requests; the
// evaluation seeds then test the offer. Power follows the model's serving power per powered replica, so
// the response is a step: ramps, sustained delivery over time and rebound are not modelled and stay
// unresolved. Scenario schema "gpu-stack.e006-scenario.v1" (JSON), described in docs/experiments.md.
#pragma once

#include <string>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/research/protocol.h"
#include "runtime/sim/serving_cells.h"

namespace gs::sim {

using E006Scenario = ServingExperimentScenario;

E006Scenario load_e006_scenario(const research::Json& j, const std::string& dir);  // throws std::invalid_argument

research::Json run_e006(const research::ExperimentProtocol& protocol, const E006Scenario& sc, uint64_t seed, const Registry& reg,
                        const PresetLibrary& lib);

// The Wilson score interval's lower bound for `successes` of `n` at two-sided level 95% (Wilson 1927).
double wilson_lower_95(uint32_t successes, uint32_t n);

}  // namespace gs::sim
