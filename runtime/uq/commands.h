// The sweep, uncertainty and sensitivity commands, as functions the CLI calls. Each prints text or JSON
// to `out`, progress and diagnostics to `err`, and returns the exit status (0 ok, 2 bad input).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/registry.h"
#include "runtime/distribution.h"

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
  bool json = false;
  bool progress = false;          // draw a progress bar on `err`
};

struct SamplingRequest {
  std::string target;
  size_t samples = 0;
  uint64_t seed = 1;
  unsigned threads = 0;
  bool json = false;
};

int sweep_command(const Registry& reg, const ScenarioPoint& scenario, const SweepRequest& req, std::ostream& out, std::ostream& err);
int uncertainty_command(const Registry& reg, const ScenarioPoint& scenario, const SamplingRequest& req, std::ostream& out, std::ostream& err);
int sensitivity_command(const Registry& reg, const ScenarioPoint& scenario, const SamplingRequest& req, std::ostream& out, std::ostream& err);

// The 90% interval of one target under the scenario's uncertain inputs (for `resolve` and the demo).
struct Interval {
  double p5 = 0, p50 = 0, p95 = 0, mean = 0;
  size_t samples = 0, nonfinite = 0;
};
// Empty when no uncertain input of the scenario reaches the target (its value is then a point).
std::optional<Interval> interval_of(const Registry& reg, const ScenarioPoint& scenario, uint32_t target, size_t samples, uint64_t seed);

// Values of the named variables under the scenario, each in the unit given beside it, from one compiled
// cone. Names the model does not have, and variables whose inputs the scenario leaves missing, are left
// out of the result. Used to hand model results to other engines (the simulator).
std::map<std::string, double> evaluate_in_units(const Registry& reg, const ScenarioPoint& scenario,
                                                const std::vector<std::pair<std::string, std::string>>& names_and_units);

}  // namespace gs
