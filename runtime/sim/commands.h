// The simulator's and the research layer's runs behind `simulate`, `simulate --serving` and
// `experiment-run`, as typed results with `to_json` beside them. A run that fails throws RunError, which
// says whether the input was bad or an invariant broke; the commands (tools/gpu-stack/simulate.cpp) print
// the results (text renderers in runtime/present/sim.h) and choose exit codes.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/research/protocol.h"
#include "runtime/research/store.h"
#include "runtime/sim/engine.h"
#include "runtime/sim/experiments.h"
#include "runtime/sim/scenario_toml.h"
#include "runtime/sim/serving_scenario.h"

namespace gs::sim {

// Default work caps of `simulate`: about a hundred replicas of the 16k-GPU, 54-day Llama 3 scenario, and
// a hundred million events per replica (tens of seconds).
constexpr double kDefaultMaxGpuDays = 1e8;
constexpr uint64_t kDefaultMaxEvents = 100'000'000;
constexpr uint32_t kMaxReplicas = 1'000'000;

// Why a run failed: bad input (a scenario, a flag, a file) or a broken invariant of the simulator (a bug).
enum class RunFailure { bad_input, invariant };
std::string to_string(RunFailure f);  // "bad_input", "invariant"
struct RunError : std::runtime_error {
  RunError(RunFailure f, const std::string& message) : std::runtime_error(message), failure(f) {}
  RunFailure failure;
};

struct SimulateArgs {
  std::string scenario;              // TOML scenario file
  std::string image_path;            // registry image, for its unit table
  std::string presets_dir;           // the preset library, for a job that names its model_preset
  std::optional<uint64_t> seed;      // default: the scenario's seed
  uint32_t replicas = 1;             // replica r runs with seed + r
  std::optional<std::string> policy; // replace every job's recovery: restart, wait_restore, in_memory, elastic, adaptive
  unsigned threads = 0;              // replicas run in parallel; 0 = one per hardware thread
  std::optional<ModelValues> model;  // simulator variables resolved from the model (--preset)
  // Work caps, checked before a run (GPU-days: replicas x GPUs x horizon in days, at least one day) and
  // during it (events per replica); exceeding one is bad input (exit 2) with a message naming the flag.
  double max_gpu_days = kDefaultMaxGpuDays;
  uint64_t max_events = kDefaultMaxEvents;
  std::optional<std::string> timeline;  // write the per-event timeline and utilisation here (.csv: CSV, else JSONL)
};
// The replicas' results; under mpirun with several replicas, each rank's block exchanged as summaries
// (then `replicas` holds replicas_to_json of them and `results` is empty). The timeline is written when
// asked for.
struct SimulateRun {
  std::vector<SimResult> results;
  std::optional<research::Json> replicas;
};
SimulateRun simulate_runs(const SimulateArgs& args);
// `simulate --json`: result_to_json of one replica, replicas_to_json of several.
void to_json(research::Json& j, const SimulateRun& r);

// `simulate --serving SCENARIO.toml`: the request-level serving simulation (serving_scenario.h).
struct ServingSimulateArgs {
  std::string scenario;                 // serving scenario (TOML, schema gpu-stack.serving-scenario.v1)
  std::string image_path;               // registry image: the model that prices the replica
  std::string presets_dir;              // where the scenario's serving preset and the binding live
  std::optional<uint64_t> seed;         // default: the scenario's
  std::optional<std::string> timeline;  // per-request records here (.csv: CSV, else JSON Lines)
};
// Any failure is bad input. The result's JSON is serving_result_json (serving_report.h), its text present::serving_sim_text.
ServingSimResult serving_simulate(const ServingSimulateArgs& args);

// `experiment-protocol --json`: the frozen protocol's JSON with its hash.
research::Json protocol_json(const research::ExperimentProtocol& p);

struct ExperimentRunArgs {
  std::string experiment;
  std::string scenario;                 // the experiment's scenario file (JSON)
  std::optional<std::string> output;    // a directory (content-addressed file name) or a file; none: stdout
  std::optional<uint64_t> seed;         // default: the scenario's seed
  std::string experiments_dir;
  std::string image_path, presets_dir;  // the model: its unit table (a TOML world) and the serving experiments' pricing
  std::optional<std::string> timeline;  // every policy's per-event timeline (.csv: CSV, else JSONL)
};
// An experiment run under its frozen protocol: the sealed outcome and, with `output`, where the artifact
// is stored (never overwritten: other content at the path is bad input). The timeline is written after
// the artifact.
struct ExperimentRun {
  research::ExperimentProtocol protocol;
  ExperimentOutcome outcome;
  std::optional<research::StoredArtifact> stored;
};
ExperimentRun experiment_run(const ExperimentRunArgs& args);
// The sealed artifact, or with `stored` the path, hash, verdict and conclusion.
void to_json(research::Json& j, const ExperimentRun& r);

}  // namespace gs::sim
