// Execution-strategy search: enumerate the knobs of a StrategySpace, drop layouts that break a
// divisibility rule, evaluate the rest through ONE cone of the model with the knobs as its varied
// inputs (the Plan layer's evaluator for that many rows: interpreted below its crossover, else JIT), drop those that violate a model constraint (memory fit first), and rank the survivors
// by an objective. `gpu-stack plan` presents the result; `validate` can call it with a run's stated
// knobs fixed to choose the unstated ones.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/jit/jit.h"
#include "runtime/registry.h"
#include "runtime/strategy/space.h"
#include "runtime/uq/commands.h"

namespace gs::strategy {

struct StrategyRequest {
  std::string objective;  // empty: the space's default objective
  // Stated limits, "NAME" -> "VALUE[ UNIT]" (ttft_max -> "200 ms"): NAME is a [limit.NAME] of the space.
  std::map<std::string, std::string> limits;
  size_t top = 10;
  // Pinned knobs, "NAME=VALUE": NAME is a knob name (tp) or its variable (par.tp), VALUE a number or one
  // of the knob's labels. A pinned derived knob (dp) keeps only candidates where it comes out so.
  std::vector<std::string> fixes;
  unsigned threads = 0;  // 0: all cores
};

struct Candidate {
  uint64_t index = 0;          // enumeration order (ties in the objective keep it)
  std::vector<double> knobs;   // space.knobs then space.derived, in that order
  double objective = 0;        // base units
  std::vector<double> report;  // one per space.report column, base units
};

struct Rejection {
  std::string name, kind, description;  // kind: "rule", "constraint" or "undefined"
  uint64_t count = 0;
};

struct StrategyResult {
  std::vector<std::string> knob_names;  // space.knobs then space.derived
  std::string objective;
  uint32_t objective_var = 0;
  bool maximize = true;
  std::map<std::string, double> problem;  // resolved problem quantities (base units)
  std::map<std::string, double> limits;   // stated limits (base units)
  std::vector<Candidate> ranked;          // best first, at most request.top
  std::map<uint32_t, std::string> variants;  // the selectors the search set (space and knobs)
  std::vector<Rejection> rejections;      // every rule and constraint, in checking order, zero counts included
  uint64_t enumerated = 0, evaluated = 0, feasible = 0;
  double compile_ms = 0, evaluate_seconds = 0, total_seconds = 0;
  std::string evaluator;  // "interpreter" or "jit" (runtime/uq/plan.h choose_evaluator)
};

// Throws PresetError (bad input: unknown objective or knob, bad value, missing scenario inputs).
StrategyResult search_strategies(const Registry& reg, const ScenarioPoint& scenario, const StrategySpace& space,
                                 const StrategyRequest& request);

// A knob value for people: its label where the knob has labels, else the number.
std::string knob_value_text(const StrategySpace& space, size_t knob, double value);

}  // namespace gs::strategy
