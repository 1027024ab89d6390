// Turns the cone of some targets, under one scenario's variant selection, into a JIT program whose
// inputs are the scenario's assigned variables (plus any variable the caller wants to vary).
#pragma once

#include <map>
#include <vector>

#include "runtime/jit/jit.h"
#include "runtime/resolver.h"

namespace gs {

struct ConeBuild {
  ConeProgram program;
  std::vector<double> base;      // value of each program input at the scenario's point (base units)
  std::vector<uint32_t> missing; // unassigned roots the targets need; the program is unusable if any
};

// `vary` lists variables that must be inputs even where a relation could compute them; their base value
// is the assignment if there is one, else NaN. With `only_vary_inputs`, every other assignment is baked
// into the program as a constant, so the compiler folds all work that does not depend on the varied
// inputs (a sweep then pays only for what it changes). Throws ResolveError on a cycle among selected
// relations.
ConeBuild build_cone(const Registry& reg, Resolver& resolver, const std::map<uint32_t, double>& assignments,
                     const std::vector<uint32_t>& targets, const std::vector<uint32_t>& vary = {},
                     bool only_vary_inputs = false);

// "the scenario leaves inputs missing: a, b, ...; assign them ..." for a cone with missing roots.
std::string missing_inputs_message(const Registry& reg, const std::vector<uint32_t>& missing);

}  // namespace gs
