// Unstated settings: a published run was tuned by the people who ran it, so where a row is silent about
// a knob (micro-batch, pipeline interleaving, activation recomputation) validate takes the setting a
// search finds best under everything the row does state, and reports the spread of the near-best ones.
// The search engine is a callback; `strategy_search` is the engine validate uses: the execution-strategy
// search of `gpu-stack plan` (runtime/strategy), narrowed to the unstated knobs with every stated one held
// at the row's value, so both commands share one enumerator, one set of divisibility rules and model
// constraints (HBM first), and one ranking.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/validate/engine.h"
#include "runtime/validate/mapping.h"

namespace gs::validate {

// Candidate values of one unstated setting (a key of [unstated] in mapping.toml: micro_batch, interleave,
// recompute) and the strategy-search knob that chooses it.
struct KnobChoices {
  std::string setting;         // key of [unstated]
  std::string knob;            // knob of the strategy search space (mb, vp, recompute)
  std::vector<double> values;  // in the knob's terms
};

struct SearchProblem {
  RowScenario scenario;             // the row as stated, with the defaults in place of the unstated knobs
  std::vector<KnobChoices> knobs;   // the settings to choose
};

struct RankedCandidate {
  std::map<std::string, std::string> settings;  // unstated setting -> its chosen value, for people ("full", "4")
  std::map<std::string, double> assign;         // model variable -> value the candidate sets (knobs and derived knobs)
  double tokens_per_s = 0;                      // the objective (model throughput while the job runs)
  double primary = 0;                           // the row's throughput comparison, in its unit
};

struct SearchResult {
  std::vector<RankedCandidate> ranked;  // feasible candidates, best first
  std::map<std::string, std::string> variants;  // selector variable -> key every candidate needs
  size_t evaluated = 0;                 // candidates that passed the divisibility rules
  size_t rejected_layout = 0;           // divisibility: micro-batches per replica, layers per chunk
  size_t rejected_memory = 0;           // the model's HBM constraint
  size_t rejected_other = 0;            // another model constraint, or no finite value
  bool memory_checked = false;          // false when the scenario cannot price its memory
  std::string error;                    // why nothing could be searched
};

using SearchEngine = std::function<SearchResult(const SearchProblem&)>;

// The knobs the row leaves unstated, with their candidates from the mapping table.
SearchProblem search_problem(const PresetLibrary& lib, const RowScenario& s);

// The strategy search over the problem's knobs (presets/strategy/knobs.toml under the library), compiled
// through the engine's JIT cache. Never throws: a problem is returned in SearchResult::error.
SearchResult strategy_search(Engine& engine, const PresetLibrary& lib, const SearchProblem& p);

// Applies the best candidate to the scenario: its assumptions say "chosen by search"; returns the
// relative spread [lo, hi] of the row's throughput comparison over the near-best candidates (within the
// table's near_best_pct of the best), as factors of the best candidate's value.
struct SearchChoice {
  RowScenario scenario;
  double spread_lo = 1, spread_hi = 1;
  size_t near_best = 0;
  bool searched = false;
};
SearchChoice choose_unstated(const PresetLibrary& lib, const RowScenario& s, const SearchEngine& engine);

}  // namespace gs::validate
