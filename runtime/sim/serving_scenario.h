// A serving simulation scenario (schema "gpu-stack.serving-scenario.v1", TOML): which serving preset
// models the replica, how many identical replicas share the traffic, the arrival process, the prompt and
// output length distributions (fixed, uniform, or rows of a trace file), the engine's batch limit, the
// window and the latency targets. Running it asks the model for the replica's step times, KV capacity,
// power and cost rate (serving_model.h), serves the requests (serving.h) and reports latency percentiles,
// throughput, goodput under the targets, energy and cost per million output tokens.
// The format is described in docs/simulator.md ("Serving simulation").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/sim/serving.h"
#include "runtime/sim/serving_model.h"

namespace gs::sim {

struct ServingScenario {
  std::string name, description, path;
  std::string preset;                                  // serving preset that models one replica
  std::vector<std::pair<std::string, std::string>> assign;  // variable name -> quantity text, over the preset
  uint64_t seed = 0;
  uint32_t replicas = 1;                               // identical replicas; a request goes to one at random
  uint32_t max_batch = 1;                              // sequences one replica decodes together at most
  ServingWorkload workload;                            // rate is the whole deployment's
  double ttft_max_s = 0, tpot_max_s = 0;               // the latency targets (SLO)
  std::vector<std::string> sources;                    // where the workload's and the targets' numbers come from
};

// Reads a length trace: a header "prompt_tokens,output_tokens", then one request per row; sets the
// workload's prompt and output to the rows, drawn paired. Throws PresetError naming the file and row.
void load_length_trace(const std::string& path, ServingWorkload& w);

// Throws PresetError (FILE:LINE:COL where the key has one, and a hint) on a malformed scenario.
ServingScenario load_serving_scenario(const std::string& path);

// What the model gave the simulator, for the report.
struct ServingModelPoint {
  double decode_step_batch1_s = 0, decode_step_max_batch_s = 0;
  double prefill_mean_prompt_s = 0;  // prefill of a prompt of the workload's mean length
  double kv_capacity_tokens = 0, replica_power_w = 0, replica_cost_usd_per_s = 0;
};

struct ServingSimResult {
  ServingScenario scenario;
  uint64_t seed = 0;
  ServingModelPoint model;
  ServingSummary summary;                  // all replicas together
  std::vector<RequestRecord> requests;     // all replicas, each replica's in arrival order
  std::vector<uint32_t> replica_of;        // replica of each request
  double slo_attainment = 0;               // share of measured requests within both targets
  double goodput_tokens_per_s = 0;         // output tokens/s of requests within both targets
  double energy_j = 0;                     // site energy of every replica over the measured window
  double energy_per_output_token_j = 0;
  double cost_usd = 0;                     // holding every replica over the measured window
  double cost_per_million_output_tokens_usd = 0;
  double cost_per_million_goodput_tokens_usd = 0;  // only tokens of requests within the targets count
};

using Assignments = std::vector<std::pair<std::string, std::string>>;  // variable name -> quantity text

// The replica's durations at a serving preset plus assignments, for batches up to max_batch and prompts up
// to max_prompt tokens; `where` names the assignments' origin in messages.
ServingModelTables serving_tables_at(const Registry& reg, const PresetLibrary& lib, const std::string& preset, const Assignments& assign,
                                     const std::string& where, uint32_t max_batch, uint32_t max_prompt);
// The same at the scenario's preset, assignments, batch limit and longest prompt.
ServingModelTables serving_tables_for(const Registry& reg, const PresetLibrary& lib, const ServingScenario& sc);
uint32_t longest_prompt(const ServingWorkload& w);

// Simulates the scenario on given tables (so a caller can reuse one compiled model for several runs).
ServingSimResult run_serving(const ServingScenario& sc, const ServingModelTables& tables, uint64_t seed);

// Throws PresetError on a scenario the model cannot price, std::invalid_argument on one it cannot serve.
ServingSimResult run_serving_scenario(const Registry& reg, const PresetLibrary& lib, const ServingScenario& sc, uint64_t seed);

}  // namespace gs::sim
