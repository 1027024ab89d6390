// Unstated settings: a published run was tuned by the people who ran it, so where a row is silent about
// a knob (micro-batch, pipeline interleaving, activation recomputation) validate takes the setting a
// search finds best under everything the row does state, and reports the spread of the near-best ones.
// The search engine is a callback: `exhaustive_search` is the first engine (every combination of the
// knobs' candidates, evaluated through the row's compiled cone with the knobs as free inputs, one
// compile per variant signature); an execution-strategy planner can replace it with the same interface.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/validate/engine.h"
#include "runtime/validate/mapping.h"

namespace gs::validate {

// Candidate values of one unstated knob (a key of [unstated] in mapping.toml: micro_batch, interleave,
// recompute).
struct KnobChoices {
  std::string knob;
  std::vector<double> values;
};

struct SearchProblem {
  RowScenario scenario;             // the row as stated, with the defaults in place of the unstated knobs
  std::vector<KnobChoices> knobs;   // the knobs to choose
};

struct RankedCandidate {
  std::map<std::string, double> knobs;  // knob -> value
  double tokens_per_s = 0;              // the objective (model throughput)
  double primary = 0;                   // the row's throughput comparison, in its unit
};

struct SearchResult {
  std::vector<RankedCandidate> ranked;  // feasible candidates, best first
  size_t evaluated = 0;
  size_t rejected_layout = 0;           // divisibility: micro-batches per replica, layers per chunk
  size_t rejected_memory = 0;           // the model's fits_in_hbm constraint
  bool memory_checked = false;          // false when the scenario cannot price its memory
  std::string error;                    // why nothing could be searched
};

using SearchEngine = std::function<SearchResult(const SearchProblem&)>;

// The knobs the row leaves unstated, with their candidates from the mapping table.
SearchProblem search_problem(const PresetLibrary& lib, const RowScenario& s);

// The scenario with the knobs set (micro-batch also resets the accumulation count, interleaving selects
// the interleaved schedule); empty `why` when the combination is a valid layout, else the reason.
RowScenario with_knobs(const PresetLibrary& lib, const RowScenario& s, const std::map<std::string, double>& knobs, std::string* why);

// Every combination of candidates; one compile per variant signature of the row.
SearchResult exhaustive_search(Engine& engine, const PresetLibrary& lib, const SearchProblem& p);

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
