// Running a frozen experiment protocol on a scenario and sealing the result as a content-addressed
// artifact. Only experiments with a virtual engine can run (E001, E002, and E004 and E006 on the serving
// simulator); the other protocols are frozen designs waiting for one.
#pragma once

#include <optional>
#include <string>

#include "runtime/research/artifact.h"

namespace gs::sim {

// Bumped whenever the simulator's semantics change, so an artifact names the engine that produced it
// without depending on where or how the binary was built.
inline constexpr const char* kEngineId = "gpu-stack.sim";
inline constexpr int kEngineVersion = 1;

struct ExperimentOutcome {
  research::Json sealed;  // carries artifact_sha256
  research::Verdict verdict = research::Verdict::inconclusive;
  std::string conclusion;
};

// What the serving experiments (E004, E006) need beyond the scenario: the model that prices a replica and
// the folder their scenario's relative paths start from. Unused by the others.
struct ExperimentEnvironment {
  std::string image_path, presets_dir, scenario_dir;
};

// Throws std::invalid_argument for a bad scenario or an experiment without a runner.
ExperimentOutcome run_experiment(const research::ExperimentProtocol& protocol, const research::Json& scenario,
                                 std::optional<uint64_t> seed, const ExperimentEnvironment& env = {});

}  // namespace gs::sim
