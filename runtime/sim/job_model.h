// What the compiled model tells the engine about other operating points of a job than the one its
// scenario describes: the step time at a smaller data-parallel degree (parallelism reconfiguration) and
// the clock a board sustains under a power cap. presets/sim/model-inputs.toml names the model variables
// ([data_parallel] and [power_cap]); a job names the preset that models it (`model_preset`), and one JIT
// cone per question, with the varied quantity as its input, is evaluated at load. The engine keeps no
// formula of either: it reads the table and the share this file computes.
#pragma once

#include <string>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

// Which model variables the job-level questions read.
struct JobModelBinding {
  // [data_parallel]: the data-parallel degree and the gradient-accumulation steps (inputs; the engine keeps
  // the global batch, so it sets accumulation x degree to the preset's), and the step time (output).
  std::string degree, accumulation, step;
  // [power_cap]: the board's power limit (input) and the clock share it sustains (output).
  std::string board, clock_share;
};
// From the [data_parallel] and [power_cap] tables of a bindings file (exposed for tests); throws
// std::invalid_argument naming the file and the missing or unknown key.
JobModelBinding parse_job_model_binding(const std::string& toml_text, const std::string& origin);
// From model_inputs_path(), read once per process.
const JobModelBinding& job_model_binding();

// For every job that names a `model_preset`: fills its [job.reconfigure] step-time table (the model's
// step time at each data-parallel degree 1..n over its step time at the job's own degree n, the replica
// count) and, when its [job.power_cap] leaves the clock share to the model, that share (the model's clock
// share at the capped board over the same at the preset's own board limit). Throws PresetError when the
// preset or a variable is unknown or the cone needs inputs the preset leaves unset, std::invalid_argument
// when the model gives a non-finite or non-positive value. A no-op for scenarios that name no preset.
void attach_job_model(Scenario& sc, const Registry& reg, const PresetLibrary& lib);

}  // namespace gs::sim
