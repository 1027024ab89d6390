// Sweeps, Monte Carlo uncertainty and Sobol sensitivity as typed results: the run_* functions return the
// numbers (by variable id), and sweep(), uncertainty() and sensitivity() return the reports the commands
// and the server present, each with its `to_json` beside it. Bad input throws PresetError. Text renderers
// are in runtime/present/uq.h; the CLI (tools/gpu-stack/numeric.cpp) prints and chooses exit codes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/uq/memory_fit.h"
#include "runtime/registry.h"
#include "runtime/distribution.h"
#include "runtime/jit/object_cache.h"
#include "runtime/uq/sweep_spec.h"
#include "runtime/uq/uncertainty.h"

namespace gs {

struct ScenarioPoint {
  std::map<uint32_t, double> assignments;         // base units
  std::map<uint32_t, std::string> variants;
  std::map<uint32_t, Distribution> uncertain;     // inputs with an interval or a distribution
};

struct SweepRequest {
  std::vector<std::string> targets;
  std::vector<std::string> vary;  // NAME=SPEC
  bool zip = false;
  std::string engine = "jit";     // jit or ginac
  unsigned threads = 0;           // 0: all cores
  std::string out_path;           // .csv or .json; empty: summary only
  std::optional<MemoryFitCheck> fit;  // when set and the scenario prices its memory: a fits column per point
};

struct SamplingRequest {
  std::string target;
  size_t samples = 0;
  uint64_t seed = 1;
  unsigned threads = 0;
  bool streaming = false;  // uncertainty: summarise without a sample array (monte_carlo_summary)
};

// Typed results: the commands below present them; the Python module hands them over as arrays.

// One swept input and its values (base units).
struct SweepAxis {
  uint32_t var = 0;
  std::vector<double> values;
  std::string unit;   // the unit the --vary text was written in (the CSV column uses it); empty: the declared unit
  double scale = 1;   // one `unit` in base units
};

struct SweepResult {
  std::vector<uint32_t> targets;
  std::vector<SweepAxis> axes;
  bool zip = false;
  size_t points = 0;
  std::vector<double> y;  // points x targets, point-major: y[p * targets.size() + t], base units
  std::string engine;
  unsigned threads = 1;
  double seconds = 0;     // evaluation only (after the JIT compile)
  double compile_ms = 0;
  size_t nonfinite = 0;
  std::vector<uint32_t> inputs_not_read;  // axes no target reads under the scenario
  // Per point, whether the layout fits in HBM (1) or not (0); empty when no check was asked for or the
  // scenario does not price its memory. `fits_column` names the column in files.
  std::vector<int8_t> fits;
  std::string fits_column;
  size_t not_fitting = 0;
  // Value of axis `a` at point `p`: the full grid varies the last axis fastest; zip pairs the lists.
  double axis_value(size_t a, size_t p) const;
};

// "NAME=SPEC" texts (see sweep_spec.h) as axes; throws PresetError naming the bad one.
// `max_values` caps each axis (the server's per-request limit) before its values are allocated.
std::vector<SweepAxis> parse_sweep_axes(const Registry& reg, const std::vector<std::string>& vary, size_t max_values = kMaxSweepValues);
// Throws PresetError on bad input: too many points, unequal zipped lists, missing inputs, unknown engine.
// `progress(done, total)`, when given, is called on the calling thread as points finish.
SweepResult run_sweep(const Registry& reg, const ScenarioPoint& scenario, const std::vector<uint32_t>& targets,
                      std::vector<SweepAxis> axes, bool zip, const std::string& engine, unsigned threads,
                      const std::function<void(size_t, size_t)>& progress = {}, const MemoryFitCheck* fit = nullptr);

struct UncertaintyResult {
  uint32_t target = 0;
  uint64_t seed = 1;
  Summary summary;
  double seconds = 0;
  std::vector<double> samples;  // every sample in order (base units), when asked for
  bool streamed = false;        // summarised by streaming passes, without a sample array
};
// From this many samples the summary streams instead of holding the samples (80 MB at 10^7), unless
// the caller keeps them.
constexpr size_t kStreamingSamples = 10'000'000;
// `streaming` asks for the streaming summary at any size; `keep_samples` wins over it.
UncertaintyResult run_uncertainty(const Registry& reg, const ScenarioPoint& scenario, uint32_t target, size_t samples,
                                  uint64_t seed, unsigned threads, bool keep_samples = false, bool streaming = false);

struct SensitivityInput {
  uint32_t var = 0;
  Distribution dist;
  double first = 0, total = 0, elasticity = 0;  // Sobol indices; d ln y / d ln x at the inputs' means
};
struct SensitivityResult {
  uint32_t target = 0;
  size_t samples = 0;
  uint64_t seed = 1;
  size_t evaluations = 0;
  double variance = 0;
  std::vector<SensitivityInput> inputs;  // the uncertain inputs that reach the target, largest total order first
};
SensitivityResult run_sensitivity(const Registry& reg, const ScenarioPoint& scenario, uint32_t target, size_t samples,
                                  uint64_t seed, unsigned threads);

// What this process's JITs did with the on-disk compiled-cone cache (runtime/jit/object_cache.h): its
// folder (empty when off) and the cones linked from it, compiled, stored and found unusable.
struct JitCacheReport {
  std::string dir;
  JitCacheStats stats;
};
JitCacheReport jit_cache_report();
void to_json(nlohmann::ordered_json& j, const JitCacheReport& r);

// A sweep as `sweep` and the server report it: engine, timing, each target's finite range, the inputs no
// target reads; with points (the server), each axis's values and each target's values per point (base
// units; NaN where not finite, null in JSON).
struct SweepTargetRange {
  uint32_t var = 0;
  std::string name, unit;       // unit: the base unit
  std::optional<double> min, max;  // empty: no finite value
};
struct SweepFitNote {
  std::string column, constraint;  // the file's column and the memory relation that decides it
  size_t points_not_fitting = 0;
};
struct SweepAxisValues {
  std::string name, unit;
  std::vector<double> values;
};
struct SweepReport {
  std::string engine;
  unsigned threads = 1;
  size_t points = 0;
  double seconds = 0, compile_ms = 0;
  JitCacheReport jit_cache;
  size_t nonfinite = 0;
  std::vector<std::string> inputs_not_read;
  std::vector<SweepTargetRange> targets;
  std::string out;                  // the file written; empty: none
  std::optional<SweepFitNote> fits;  // when a memory-fit check was asked for and the scenario prices memory
  bool with_points = false;
  std::vector<SweepAxisValues> axes;       // with_points only
  std::vector<std::vector<double>> values;  // with_points only: per target, per point
};
void to_json(nlohmann::ordered_json& j, const SweepReport& r);
// The report of a result; `with_points` carries every point (the server's answer).
SweepReport sweep_report(const Registry& reg, const SweepResult& r, bool with_points);
// `sweep`: the request's targets and --vary texts looked up and parsed, the sweep run (with `progress`,
// see run_sweep), its file written when asked for (under mpirun by rank 0 alone), and its report.
SweepReport sweep(const Registry& reg, const ScenarioPoint& scenario, const SweepRequest& req,
                  const std::function<void(size_t, size_t)>& progress = {});

// `uncertainty`: the Monte Carlo summary of the request's target with the names the report prints.
struct UncertainInputInfo {
  std::string name, distribution, unit;  // unit: the base unit
};
struct UncertaintyReport {
  UncertaintyResult result;
  std::string target, unit;  // unit: the base unit
  JitCacheReport jit_cache;
  std::vector<UncertainInputInfo> inputs;  // every uncertain input of the scenario
};
void to_json(nlohmann::ordered_json& j, const UncertaintyReport& r);
UncertaintyReport uncertainty(const Registry& reg, const ScenarioPoint& scenario, const SamplingRequest& req);

// `sensitivity`: the Sobol indices of the request's target, inputs by name.
struct SensitivityRow {
  std::string name;
  double first = 0, total = 0, elasticity = 0;
  std::string distribution;
};
struct SensitivityReport {
  std::string target;
  size_t samples = 0;
  uint64_t seed = 1;
  size_t evaluations = 0;
  double variance = 0;
  std::vector<SensitivityRow> inputs;  // largest total order first
};
void to_json(nlohmann::ordered_json& j, const SensitivityReport& r);
SensitivityReport sensitivity(const Registry& reg, const ScenarioPoint& scenario, const SamplingRequest& req);

// The 90% interval of one target under the scenario's uncertain inputs (for `resolve` and the demo),
// from randomized quasi-Monte Carlo (rqmc_summary in runtime/uq/uncertainty.h) with each percentile's
// standard error.
struct Interval {
  double p5 = 0, p50 = 0, p95 = 0, mean = 0;
  double p5_se = 0, p50_se = 0, p95_se = 0;  // standard errors over the method's replicates
  size_t samples = 0, nonfinite = 0, replicates = 0;
  const char* method = "rqmc-halton";  // Halton points, kRqmcReplicates random shifts
};
// Empty when no uncertain input of the scenario reaches the target (its value is then a point).
std::optional<Interval> interval_of(const Registry& reg, const ScenarioPoint& scenario, uint32_t target, size_t samples, uint64_t seed);

// Values of the named variables under the scenario, each in the unit given beside it, from one compiled
// cone. Names the model does not have, and variables whose inputs the scenario leaves missing, are left
// out of the result. Used to hand model results to other engines (the simulator).
std::map<std::string, double> evaluate_in_units(const Registry& reg, const ScenarioPoint& scenario,
                                                const std::vector<std::pair<std::string, std::string>>& names_and_units);

}  // namespace gs
