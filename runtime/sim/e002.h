// E002 "Shape the power waveform": a virtual screen of dependency-safe phase shaping. Several independent
// training jobs share a site; each alternates compute (high GPU power) and exposed collectives (lower
// power) and pauses for checkpoints. Started together they swing the site's power in step; the shaping
// controller only delays each job's first step so their phases interleave, which never changes what any
// job computes. The screen measures how much power swing falls into a grid-sensitive band, what the
// delays cost in time, and how many jobs each policy can admit under a band limit. Scenario schema
// "gpu-stack.e002-scenario.v1" (JSON), described in docs/experiments.md.
#pragma once

#include <string>

#include "runtime/research/protocol.h"

namespace gs::sim {

struct E002Scenario {
  research::Json raw;
  uint64_t seed = 0;
  uint32_t replicas = 0, jobs = 0, max_jobs = 0;
  std::string id() const { return raw.at("scenario_id").get<std::string>(); }
};

E002Scenario load_e002_scenario(const research::Json& j);  // throws std::invalid_argument

research::Json run_e002(const research::ExperimentProtocol& protocol, const E002Scenario& sc, uint64_t seed);

}  // namespace gs::sim
