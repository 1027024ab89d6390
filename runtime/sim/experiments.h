// Running a frozen experiment protocol on a scenario and sealing the result as a content-addressed
// artifact. Only experiments with a virtual engine can run (E001, E001-RECOVERY-V2, E002, and E004 and E006 on
// the serving simulator); the other protocols are frozen designs waiting for one.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "image/units.h"
#include "runtime/research/artifact.h"
#include "runtime/sim/scenario.h"
#include "runtime/sim/timeline.h"

namespace gs::sim {

// Bumped whenever the simulator's semantics change, so an artifact names the engine that produced it
// without depending on where or how the binary was built.
inline constexpr const char* kEngineId = "gpu-stack.sim";
inline constexpr int kEngineVersion = 1;

struct ExperimentOutcome {
  research::Json sealed;  // carries artifact_sha256
  research::Verdict verdict = research::Verdict::inconclusive;
  std::string conclusion;
  std::string timeline;  // every policy's per-event timeline, when asked for and the experiment records one
};

// What some experiments need beyond the scenario's JSON. E001-RECOVERY-V2 reads the simulator scenario its
// JSON names (relative to the JSON file) with the registry image's unit table, and can write a timeline;
// the serving experiments (E004, E006) price a replica with the model (image and presets) and read files
// relative to the scenario's folder.
struct ExperimentContext {
  std::string scenario_path;
  const gs::UnitTable* units = nullptr;  // when null, read from image_path if an experiment needs it
  // The model's checkpoint-interval rules for a world whose cadence needs them; when null, compiled from
  // image_path if an experiment needs them.
  std::shared_ptr<const CheckpointIntervals> intervals;
  std::string image_path, presets_dir;
  std::optional<TimelineFormat> timeline;
};

// Throws std::invalid_argument for a bad scenario or an experiment without a runner.
ExperimentOutcome run_experiment(const research::ExperimentProtocol& protocol, const research::Json& scenario,
                                 std::optional<uint64_t> seed, const ExperimentContext& context = {});

}  // namespace gs::sim
