// The simulator's and the research layer's commands, as plain functions for the gpu-stack main (the only
// translation unit that parses the command line). Each returns the exit status: 0 success, 1 findings
// (a failed gate, a broken invariant), 2 bad usage or bad input; human text or JSON goes to `out`,
// diagnostics to `err`.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "runtime/sim/scenario_toml.h"

namespace gs::sim {

// Default work caps of `simulate`: about a hundred replicas of the 16k-GPU, 54-day Llama 3 scenario, and
// a hundred million events per replica (tens of seconds).
constexpr double kDefaultMaxGpuDays = 1e8;
constexpr uint64_t kDefaultMaxEvents = 100'000'000;
constexpr uint32_t kMaxReplicas = 1'000'000;

struct SimulateArgs {
  std::string scenario;              // TOML scenario file
  std::string image_path;            // registry image, for its unit table
  std::optional<uint64_t> seed;      // default: the scenario's seed
  uint32_t replicas = 1;             // replica r runs with seed + r
  std::optional<std::string> policy; // replace every job's recovery: restart, wait_restore, in_memory, elastic, adaptive
  bool json = false;
  unsigned threads = 0;              // replicas run in parallel; 0 = one per hardware thread
  std::optional<ModelValues> model;  // simulator variables resolved from the model (--preset)
  // Work caps, checked before a run (GPU-days: replicas x GPUs x horizon in days, at least one day) and
  // during it (events per replica); exceeding one is bad input (exit 2) with a message naming the flag.
  double max_gpu_days = kDefaultMaxGpuDays;
  uint64_t max_events = kDefaultMaxEvents;
  std::optional<std::string> timeline;  // write the per-event timeline and utilisation here (.csv: CSV, else JSONL)
};
int simulate_command(const SimulateArgs& args, std::ostream& out, std::ostream& err);

// `simulate --serving SCENARIO.toml`: the request-level serving simulation (serving_scenario.h).
struct ServingSimulateArgs {
  std::string scenario;                 // serving scenario (TOML, schema gpu-stack.serving-scenario.v1)
  std::string image_path;               // registry image: the model that prices the replica
  std::string presets_dir;              // where the scenario's serving preset and the binding live
  std::optional<uint64_t> seed;         // default: the scenario's
  bool json = false;
  std::optional<std::string> timeline;  // per-request records here (.csv: CSV, else JSON Lines)
};
int serving_simulate_command(const ServingSimulateArgs& args, std::ostream& out, std::ostream& err);

struct ExperimentProtocolArgs {
  std::string experiment;       // E001 ... E006 (case-insensitive)
  std::string experiments_dir;  // the front end's (Workspace::experiments_dir) unless --experiments names one
  bool json = false;
};
int experiment_protocol_command(const ExperimentProtocolArgs& args, std::ostream& out, std::ostream& err);

struct ExperimentRunArgs {
  std::string experiment;
  std::string scenario;                 // the experiment's scenario file (JSON)
  std::optional<std::string> output;    // a directory (content-addressed file name) or a file; none: stdout
  std::optional<uint64_t> seed;         // default: the scenario's seed
  std::string experiments_dir;
  bool json = false;                    // with --output: print the stored path and verdict as JSON
  std::string image_path, presets_dir;  // the model: its unit table (a TOML world) and the serving experiments' pricing
  std::optional<std::string> timeline;  // every policy's per-event timeline (.csv: CSV, else JSONL)
};
int experiment_run_command(const ExperimentRunArgs& args, std::ostream& out, std::ostream& err);

}  // namespace gs::sim
