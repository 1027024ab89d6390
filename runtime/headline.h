// The headline questions the product answers, and how much of the model serves them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/registry.h"

namespace gs {

// The headline targets (presets/headlines.toml, `targets`): cost per token, throughput, utilization,
// facility power, run time, energy per token and per-GPU memory. Nothing when the file is absent (a
// user's own presets folder); PresetError with FILE:LINE:COL on a malformed one.
std::vector<std::string> load_headline_targets(const std::string& presets_dir);

struct HeadlineCoverage {
  size_t targets_found = 0;
  size_t relations = 0;           // all relations
  size_t relations_in_cones = 0;  // value relations defining a variable in the union of the targets'
                                  // dependency cones, and constraints whose variables all lie in it
  double share() const { return relations ? double(relations_in_cones) / double(relations) : 0; }
};

// Targets the model lacks (a partial model) are skipped.
HeadlineCoverage headline_coverage(const Registry& reg, const Graph& graph, const std::vector<std::string>& targets);

}  // namespace gs
