// E004 "Fluid inference topology": a virtual screen on the serving simulator. Three factors each take a
// static level and one alternative (for example the serving topology TP 8 x 1 against TP 4 x 2, the
// batch limit, the GPU power limit), so eight configurations; every workload family is served by each
// on calibration seeds and on held-out evaluation seeds with common random numbers. The utility of a
// configuration is the output tokens of requests within the latency targets per joule of facility
// energy. The joint controller picks, per family, the configuration best on the calibration seeds; the
// baselines are the best single configuration for all families, an ensemble of controllers each tuning
// one factor alone, and the per-family oracle on the evaluation seeds. Scenario schema
// "gpu-stack.e004-scenario.v1" (JSON), described in docs/experiments.md.
#pragma once

#include <string>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/research/protocol.h"
#include "runtime/sim/serving_cells.h"

namespace gs::sim {

using E004Scenario = ServingExperimentScenario;

E004Scenario load_e004_scenario(const research::Json& j, const std::string& dir);  // throws std::invalid_argument

research::Json run_e004(const research::ExperimentProtocol& protocol, const E004Scenario& sc, uint64_t seed, const Registry& reg,
                        const PresetLibrary& lib);

}  // namespace gs::sim
