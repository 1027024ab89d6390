// The headline questions the product answers, and how much of the model serves them.
#pragma once

#include <cstddef>

#include "runtime/graph.h"
#include "runtime/registry.h"

namespace gs {

// The headline targets (issue 4: cost per token, throughput, utilization, facility power, run time and
// energy per token) are what the model exports with role kExportHeadline (model/29_exports.gstack). A
// model without exports has none.

struct HeadlineCoverage {
  size_t targets_found = 0;
  size_t relations = 0;           // all relations
  size_t relations_in_cones = 0;  // value relations defining a variable in the union of the targets'
                                  // dependency cones, and constraints whose variables all lie in it
  double share() const { return relations ? double(relations_in_cones) / double(relations) : 0; }
};

HeadlineCoverage headline_coverage(const Registry& reg, const Graph& graph);

}  // namespace gs
