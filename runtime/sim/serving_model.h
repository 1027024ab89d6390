// The boundary where the compiled model hands the serving simulator its durations, as `simulate --preset`
// does for training: one JIT cone of the model with the batch and the prompt length as inputs gives the
// decode step time at every batch up to the limit and the prefill time of every prompt length the
// workload can draw, plus the replica's KV capacity, site power and cost rate. The variables come from a binding file
// (presets/sim/serving-binding.toml), so no model name is spelled here.
#pragma once

#include <string>
#include <vector>

#include "runtime/registry.h"
#include "runtime/sim/serving.h"
#include "runtime/uq/commands.h"

namespace gs::sim {

struct ServingModelTables {
  std::vector<double> decode_step_s;  // [b - 1]: one decode step of b sequences, b = 1 .. max_batch
  std::vector<double> prefill_s;      // [n - 1]: prefill of a prompt of n tokens, n = 1 .. max_prompt
  double kv_capacity_tokens = 0;
  double replica_power_w = 0;         // at the scenario's own batch and prompt
  double replica_cost_usd_per_s = 0;  // fully allocated cost of holding the replica
  ServingEngine engine(uint32_t max_batch) const;  // max_batch <= decode_step_s.size()
};

// Throws PresetError when the binding file is malformed, a variable is unknown, or the scenario leaves an
// input the outputs need unassigned; std::invalid_argument when the model gives a non-finite or
// non-positive time.
ServingModelTables serving_tables_from_model(const Registry& reg, const ScenarioPoint& scenario, const std::string& binding_path,
                                             uint32_t max_batch, uint32_t max_prompt);

std::string default_serving_binding_path(const std::string& presets_dir);

}  // namespace gs::sim
