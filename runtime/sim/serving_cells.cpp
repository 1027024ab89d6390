#include "runtime/sim/serving_cells.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace gs::sim {

using research::Json;

namespace {

std::string key_of(const Assignments& a) {
  std::string k;
  for (const auto& [name, value] : a) k += name + "=" + value + ";";
  return k;
}

}  // namespace

ServingCellRunner::ServingCellRunner(const Registry& reg, const PresetLibrary& lib, const ServingScenario& base, const std::vector<ServingCell>& cells,
                                     const std::vector<ServingFamily>& families)
    : base_(base) {
  uint32_t batch = 1, prompt = 1;
  for (const auto& c : cells) batch = std::max(batch, c.max_batch);
  for (const auto& f : families) prompt = std::max(prompt, longest_prompt(f.workload));
  for (const auto& c : cells) {
    const std::string k = key_of(c.assign);
    if (tables_.count(k)) continue;
    Assignments all = base.assign;
    all.insert(all.end(), c.assign.begin(), c.assign.end());  // later assignments win
    try {
      tables_.emplace(k, serving_tables_at(reg, lib, base.preset, all, "cell " + c.id, batch, prompt));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("cell " + c.id + " (" + k + "): " + e.what());
    }
  }
}

ServingSimResult ServingCellRunner::run(const ServingCell& cell, const ServingFamily& family, uint64_t seed) const {
  ServingScenario sc = base_;
  sc.name = cell.id + "/" + family.id;
  sc.replicas = cell.replicas;
  sc.max_batch = cell.max_batch;
  sc.workload = family.workload;
  return run_serving(sc, tables_.at(key_of(cell.assign)), seed);
}

Assignments load_assignments(const Json& j, const std::string& what) {
  Assignments out;
  if (j.is_null()) return out;
  if (!j.is_object()) throw std::invalid_argument(what + ": assignments must be an object of \"variable\": \"quantity\"");
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string() && !v.is_number()) throw std::invalid_argument(what + ": \"" + k + "\" must be a quantity text or a number");
    out.emplace_back(k, v.is_string() ? v.get<std::string>() : research::format_double(v.get<double>()));
  }
  return out;
}

std::vector<ServingFamily> load_serving_families(const Json& families, const std::string& dir, double warmup_s, double horizon_s,
                                                 const std::string& what) {
  if (!families.is_array() || families.empty()) throw std::invalid_argument(what + ": needs a non-empty 'families' list");
  std::vector<ServingFamily> out;
  for (const auto& f : families) {
    ServingFamily fam;
    fam.id = f.value("id", std::string());
    const std::string where = what + " family '" + fam.id + "'";
    if (fam.id.empty()) throw std::invalid_argument(what + ": every family needs an 'id'");
    if (f.value("source", std::string()).empty()) throw std::invalid_argument(where + ": needs a 'source' (or 'assumption: ...')");
    if (!f.contains("rate_per_s") || !f["rate_per_s"].is_number() || !(f["rate_per_s"].get<double>() > 0) || f["rate_per_s"].get<double>() > 1e4)
      throw std::invalid_argument(where + ": 'rate_per_s' must be a number in (0, 1e4]");
    fam.workload.rate_per_s = f["rate_per_s"].get<double>();
    fam.workload.warmup_s = warmup_s, fam.workload.horizon_s = horizon_s;
    if (f.contains("trace")) {
      const auto path = (std::filesystem::path(dir) / f["trace"].get<std::string>()).lexically_normal();
      if (!std::filesystem::is_regular_file(path)) throw std::invalid_argument(where + ": no length trace at '" + path.string() + "'");
      load_length_trace(path.string(), fam.workload);
    } else {
      auto tokens = [&](const char* key) {
        if (!f.contains(key) || !f[key].is_number_unsigned() || f[key].get<uint64_t>() < 1 || f[key].get<uint64_t>() > 1'000'000)
          throw std::invalid_argument(where + ": needs a 'trace' or whole '" + key + "' in [1, 1e6]");
        return uint32_t(f[key].get<uint64_t>());
      };
      fam.workload.prompt = {LengthDistribution::Kind::fixed, tokens("prompt_tokens"), 0, {}};
      fam.workload.prompt.high = fam.workload.prompt.low;
      fam.workload.output = {LengthDistribution::Kind::fixed, tokens("output_tokens"), 0, {}};
      fam.workload.output.high = fam.workload.output.low;
    }
    out.push_back(std::move(fam));
  }
  return out;
}

std::vector<Factor> load_factors(const Json& j, const std::string& what) {
  if (!j.is_array() || j.empty() || j.size() > 8) throw std::invalid_argument(what + ": 'factors' must list one to eight factors");
  auto level = [&](const Json& l, const std::string& where) {
    if (!l.is_object()) throw std::invalid_argument(where + " must be an object");
    FactorLevel out;
    auto whole = [&](const char* key, uint32_t high) -> std::optional<uint32_t> {
      if (!l.contains(key)) return std::nullopt;
      if (!l[key].is_number_unsigned() || l[key].get<uint64_t>() < 1 || l[key].get<uint64_t>() > high)
        throw std::invalid_argument(where + "." + key + " must be a whole number in [1, " + std::to_string(high) + "]");
      return uint32_t(l[key].get<uint64_t>());
    };
    out.replicas = whole("replicas", 4096), out.max_batch = whole("max_batch", 4096);
    out.assign = load_assignments(l.value("assign", Json()), where + ".assign");
    return out;
  };
  std::vector<Factor> out;
  for (const auto& f : j) {
    Factor x;
    x.name = f.value("name", std::string());
    const std::string where = what + " factor '" + x.name + "'";
    if (x.name.empty()) throw std::invalid_argument(what + ": every factor needs a 'name'");
    if (f.value("source", std::string()).empty()) throw std::invalid_argument(where + ": needs a 'source'");
    if (!f.contains("static") || !f.contains("alternative")) throw std::invalid_argument(where + ": needs 'static' and 'alternative' levels");
    x.levels[0] = level(f["static"], where + ".static"), x.levels[1] = level(f["alternative"], where + ".alternative");
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<ServingCell> factorial_cells(const ServingScenario& base, const std::vector<Factor>& factors) {
  std::vector<ServingCell> cells;
  for (uint32_t c = 0; c < (1u << factors.size()); ++c) {
    ServingCell cell;
    cell.replicas = base.replicas, cell.max_batch = base.max_batch;
    for (uint32_t i = 0; i < factors.size(); ++i) {
      const FactorLevel& l = factors[i].levels[(c >> i) & 1];
      if (l.replicas) cell.replicas = *l.replicas;
      if (l.max_batch) cell.max_batch = *l.max_batch;
      cell.assign.insert(cell.assign.end(), l.assign.begin(), l.assign.end());
      cell.id += std::string(i ? "+" : "") + ((c >> i) & 1 ? "alt-" : "static-") + std::to_string(i + 1);
    }
    cells.push_back(std::move(cell));
  }
  return cells;
}

void check_serving_grid_work(const std::vector<ServingFamily>& families, size_t cells, uint32_t seeds, const std::string& what) {
  double requests = 0;
  for (const auto& f : families) requests += f.workload.rate_per_s * f.workload.horizon_s;
  requests *= double(cells) * seeds;
  if (requests > 2e7)
    throw std::invalid_argument(what + ": the grid would serve about " + std::to_string(uint64_t(requests)) +
                                " requests, more than the cap of 2e7; use fewer seeds, a shorter window or lower rates");
}

double student_t_quantile(double level, uint32_t df) {
  if (df < 1) throw std::invalid_argument("a t quantile needs at least one degree of freedom");
  // Two-sided levels 50, 90, 95 %: t at 0.75, 0.95, 0.975 (any table of Student's t, e.g. Abramowitz and Stegun Table 26.10).
  static const double t50[] = {1.000, 0.816, 0.765, 0.741, 0.727, 0.718, 0.711, 0.706, 0.703, 0.700};
  static const double t90[] = {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812};
  static const double t95[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
  const double* table = level == 0.5 ? t50 : level == 0.9 ? t90 : level == 0.95 ? t95 : nullptr;
  if (!table) throw std::invalid_argument("t quantiles are tabulated for the 50, 90 and 95% levels only");
  if (df <= 10) return table[df - 1];
  const double z = level == 0.5 ? 0.674490 : level == 0.9 ? 1.644854 : 1.959964, v = df;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

void add_prediction_coverage(const std::vector<double>& cal, const std::vector<double>& outcomes, double level, Coverage& c) {
  if (cal.size() < 2) throw std::invalid_argument("a prediction interval needs at least two calibration outcomes");
  double m = 0, ss = 0;
  for (double x : cal) m += x;
  m /= double(cal.size());
  for (double x : cal) ss += (x - m) * (x - m);
  const double n = double(cal.size()), s = std::sqrt(ss / (n - 1));
  const double half = student_t_quantile(level, uint32_t(cal.size() - 1)) * s * std::sqrt(1 + 1 / n);
  for (double y : outcomes) {
    ++c.total;
    if (std::abs(y - m) <= half) ++c.inside;
  }
}

ServingExperimentScenario load_serving_experiment_scenario(const Json& j, const std::string& dir, const std::string& experiment,
                                                           const std::string& schema, uint64_t min_seeds) {
  const auto fail = [&](const std::string& what) { throw std::invalid_argument(experiment + " scenario: " + what); };
  ServingExperimentScenario sc;
  sc.raw = j, sc.dir = dir;
  if (j.value("schema", std::string()) != schema) fail("schema must be " + schema);
  if (!j.contains("scenario_id") || !j["scenario_id"].is_string()) fail("missing scenario_id");
  if (!j.contains("seed") || !j["seed"].is_number_unsigned()) fail("missing seed");
  sc.seed = j["seed"].get<uint64_t>();
  if (!j.contains("serving_scenario") || !j["serving_scenario"].is_string()) fail("needs 'serving_scenario', a serving scenario TOML (relative to this file)");
  for (const char* k : {"calibration_seeds", "evaluation_seeds"})
    if (!j.contains(k) || !j[k].is_number_unsigned() || j[k].get<uint64_t>() < min_seeds || j[k].get<uint64_t>() > 100)
      fail(std::string(k) + " must be a whole number in [" + std::to_string(min_seeds) + ", 100]");
  return sc;
}

}  // namespace gs::sim
