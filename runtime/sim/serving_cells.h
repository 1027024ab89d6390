// Shared by the serving experiments (E004, E006): a grid of serving configurations ("cells": replica
// count, batch limit, model assignments such as the tensor-parallel degree or the GPU power limit) run
// against workload families on the serving simulator, with one compiled model per distinct set of
// assignments, and the small statistics their metrics need.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/research/canonical_json.h"
#include "runtime/sim/serving_scenario.h"

namespace gs::sim {

// A serving experiment's scenario file: what E004 and E006 read the same way (schema, id, seed, the base
// serving scenario, seed counts); each experiment checks its own keys on `raw` after this.
struct ServingExperimentScenario {
  research::Json raw;
  std::string dir;  // the scenario file's folder: its relative paths start here
  uint64_t seed = 0;
  std::string id() const { return raw.at("scenario_id").get<std::string>(); }
};

// Checks the keys every serving experiment scenario has: `schema`, `scenario_id`, `seed`,
// `serving_scenario`, and `calibration_seeds`/`evaluation_seeds` in [min_seeds, 100]. Throws
// std::invalid_argument("<experiment> scenario: ...").
ServingExperimentScenario load_serving_experiment_scenario(const research::Json& j, const std::string& dir, const std::string& experiment,
                                                           const std::string& schema, uint64_t min_seeds);

struct ServingCell {
  std::string id;
  uint32_t replicas = 1, max_batch = 1;
  Assignments assign;  // over the base scenario's preset and assignments
};

struct ServingFamily {
  std::string id;
  ServingWorkload workload;  // the deployment's arrival rate and lengths; window from the experiment
};

class ServingCellRunner {
 public:
  // Compiles the model once per distinct assignment set among `cells`, sized for every cell's batch limit
  // and every family's longest prompt.
  ServingCellRunner(const Registry& reg, const PresetLibrary& lib, const ServingScenario& base, const std::vector<ServingCell>& cells,
                    const std::vector<ServingFamily>& families);
  ServingSimResult run(const ServingCell& cell, const ServingFamily& family, uint64_t seed) const;

 private:
  ServingScenario base_;
  std::map<std::string, ServingModelTables> tables_;  // by the cell's assignments, as text
};

// An experiment scenario's families: {"id", "rate_per_s", "trace" (relative to the scenario file) or
// "prompt_tokens"/"output_tokens" (fixed), "source"}. Throws std::invalid_argument naming `what`.
std::vector<ServingFamily> load_serving_families(const research::Json& families, const std::string& scenario_dir, double warmup_s,
                                                 double horizon_s, const std::string& what);
// A two-level factor of a factorial design: its static level and one alternative, each possibly changing
// the replica count, the batch limit and model assignments.
struct FactorLevel {
  std::optional<uint32_t> replicas, max_batch;
  Assignments assign;
};
struct Factor {
  std::string name;
  FactorLevel levels[2];  // static, alternative
};
// [{"name", "static": {...}, "alternative": {...}, "source"}, ...]; throws std::invalid_argument naming `what`.
std::vector<Factor> load_factors(const research::Json& j, const std::string& what);
// Every combination of the factors' levels over the base scenario: cell c sets factor i to its
// alternative when bit i of c is set (cell 0 is all static); ids read "static-1+alt-2+...".
std::vector<ServingCell> factorial_cells(const ServingScenario& base, const std::vector<Factor>& factors);

// {"variable": "quantity text", ...} as assignments.
Assignments load_assignments(const research::Json& j, const std::string& what);

// The work cap of a serving experiment: refuses (std::invalid_argument naming `what`) a grid expected to
// serve more than 2e7 requests in all (families x cells x seeds), which would run for many minutes.
void check_serving_grid_work(const std::vector<ServingFamily>& families, size_t cells, uint32_t seeds, const std::string& what);

// Two-sided Student-t quantile t_{(1+level)/2, df}: exact table for df <= 10 at the 50/90/95% levels,
// the Cornish-Fisher expansion in 1/df beyond (Abramowitz and Stegun 26.7.5).
double student_t_quantile(double level, uint32_t df);

// The share of `outcomes` inside the prediction interval mean +- t s sqrt(1 + 1/n) of `calibration`.
struct Coverage {
  uint32_t inside = 0, total = 0;
};
void add_prediction_coverage(const std::vector<double>& calibration, const std::vector<double>& outcomes, double level, Coverage& c);

}  // namespace gs::sim
