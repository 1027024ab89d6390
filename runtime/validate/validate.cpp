#include "runtime/validate/validate.h"

#include <algorithm>
#include <deque>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/validate/calibrate.h"
#include "runtime/validate/crossval.h"
#include "runtime/validate/engine.h"
#include "runtime/validate/mapping_table.h"

namespace gs::validate {
namespace {

using json = nlohmann::ordered_json;

constexpr double kZ90 = 1.6448536269514722;  // two-sided 90%: the 95th percentile of the standard normal

MetricSummary summarise(const std::vector<double>& apes) {
  MetricSummary s;
  s.n = apes.size();
  s.median_ape = median(apes);
  s.mean_ape = mean(apes);
  return s;
}

json summary_json(const std::map<std::string, MetricSummary>& m) {
  json j = json::object();
  for (const auto& name : metric_order()) {
    auto it = m.find(name);
    if (it == m.end()) continue;
    j[name] = {{"n", it->second.n}, {"median_ape", it->second.median_ape}, {"mean_ape", it->second.mean_ape}};
  }
  return j;
}

}  // namespace


double ape(double predicted, double reported) { return std::fabs(predicted - reported) / std::fabs(reported) * 100; }

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

const std::vector<std::string>& metric_order() {
  static const std::vector<std::string> m = {"throughput", "tokens_per_s", "tokens_per_s_per_gpu", "seqs_per_s", "tflops_per_gpu", "aggregate_pflops", "mfu",
                                             "hfu",        "step_time_s",  "wallclock",            "gpu_hours",  "energy_mwh"};
  return m;
}

ValidationReport run_validation(const Registry& reg, const PresetLibrary& lib, const std::vector<RunRow>& rows, const std::string& runs_path,
                                const ValidationSettings& settings) {
  ValidationReport rep;
  rep.runs_path = runs_path;
  rep.rows_read = rows.size();
  // The calibration in force: whatever calibration/fitted.toml assigns.
  try {
    Preset fitted = lib.load(mapping_table(lib.dir()).preset("fitted"));
    rep.calibration_source = fitted.path;
    for (const auto& [v, x] : fitted.assignments) rep.calibration[reg.var(v).name] = x;
  } catch (const std::exception&) {
  }
  Engine engine(reg, lib);
  // Rows are prepared with the fitted parameters as free inputs (at their preset values), so the same
  // cones give the parameter uncertainty of each prediction.
  const std::vector<FitParameter> params = default_fit_parameters(reg, lib);
  const std::vector<uint32_t> vary = fit_variables(reg, params);
  std::vector<double> values;
  for (const auto& p : params) values.push_back(rep.calibration.count(p.name) ? rep.calibration.at(p.name) : p.start);
  std::deque<PreparedRow> prepared;
  std::vector<std::pair<size_t, FitUse>> uses;  // index into rep.rows
  SearchEngine search = settings.engine;
  if (!search && settings.search) search = [&](const SearchProblem& p) { return strategy_search(engine, lib, p); };
  std::map<std::string, std::vector<double>> all, tier_a, by_group;
  for (const auto& row : rows) {
    RowResult rr;
    SearchChoice choice = choose_unstated(lib, map_row(reg, lib, row), search);
    rr.scenario = std::move(choice.scenario);
    rr.spread_lo = choice.spread_lo, rr.spread_hi = choice.spread_hi;
    prepared.push_back(engine.prepare(rr.scenario, vary));
    const PreparedRow& p = prepared.back();
    if (!p.ok()) {
      rr.reason = p.error;
      rep.rows.push_back(std::move(rr));
      continue;
    }
    std::vector<double> out = engine.evaluate(p);
    for (size_t i = 0; i < p.outputs.size(); ++i)
      for (const auto& b : mapping_table(lib.dir()).breakdown)
        if (reg.var(p.outputs[i]).name == b) rr.breakdown[b] = out[i];
    std::string bad;
    for (size_t i = 0; i < rr.scenario.observations.size(); ++i) {
      const Observation& o = rr.scenario.observations[i];
      double pred = out[p.observation_out[i]] * o.factor;
      if (!std::isfinite(pred) || pred <= 0) bad += (bad.empty() ? "" : ", ") + o.target;
      rr.metrics.push_back({o, pred, ape(pred, o.reported)});
      if (rr.scenario.primary && *rr.scenario.primary == i) rr.primary = rr.metrics.size() - 1;
    }
    if (!bad.empty()) {
      rr.reason = "the model gives no finite positive value for " + bad;
      rr.metrics.clear();
      rr.primary.reset();
      rep.rows.push_back(std::move(rr));
      continue;
    }
    if (auto u = fit_use(p)) uses.emplace_back(rep.rows.size(), *u);
    const bool is_a = rr.scenario.tier == "A";
    for (size_t i = 0; i < rr.metrics.size(); ++i) {
      const auto& m = rr.metrics[i];
      all[m.observation.metric].push_back(m.ape);
      if (is_a) tier_a[m.observation.metric].push_back(m.ape);
      if (rr.primary && *rr.primary == i) {
        all["throughput"].push_back(m.ape);
        if (is_a) tier_a["throughput"].push_back(m.ape);
        by_group[rr.scenario.group.empty() ? "(no group)" : rr.scenario.group].push_back(m.ape);
      }
    }
    rep.rows.push_back(std::move(rr));
  }
  // 90% intervals: parameter uncertainty and residual scatter of the fit on the tier-A rows (in sample,
  // so the scatter is the fit's own; cross-validation measures how well the intervals cover), widened by
  // the spread over the near-best unstated settings.
  std::vector<FitUse> tier_a_uses;
  for (const auto& [i, u] : uses)
    if (rep.rows[i].scenario.tier == "A") tier_a_uses.push_back(u);
  if (tier_a_uses.size() > params.size()) {
    rep.uncertainty = fit_uncertainty(engine, tier_a_uses, params, values);
    for (const auto& [i, u] : uses) {
      RowResult& rr = rep.rows[i];
      if (!rr.primary) continue;
      const double pred = rr.metrics[*rr.primary].predicted, sd = prediction_log_sd(engine, u, *rep.uncertainty);
      rr.interval_lo = pred * rr.spread_lo * std::exp(-kZ90 * sd);
      rr.interval_hi = pred * rr.spread_hi * std::exp(kZ90 * sd);
    }
  }
  for (const auto& [k, v] : all) rep.summary[k] = summarise(v);
  for (const auto& [k, v] : tier_a) rep.summary_tier_a[k] = summarise(v);
  for (const auto& [k, v] : by_group) rep.throughput_by_group[k] = summarise(v);
  return rep;
}


void to_json(json& j, const ValidationReport& r) {
  j = json::object();
  j["runs"] = r.runs_path;
  j["rows_read"] = r.rows_read;
  j["ape_unit"] = "percent";
  json cal = json::object();
  for (const auto& [k, v] : r.calibration) cal[k] = v;
  j["calibration"] = {{"preset", r.calibration_source}, {"parameters", cal}};
  json rows = json::array();
  for (const auto& row : r.rows) {
    json x;
    x["id"] = row.scenario.id;
    x["tier"] = row.scenario.tier;
    x["source_group"] = row.scenario.group;
    x["line"] = row.scenario.line;
    x["built"] = row.built();
    if (!row.built()) {
      x["reason"] = row.reason;
      if (!row.scenario.missing_columns.empty()) x["missing_columns"] = row.scenario.missing_columns;
    } else {
      x["presets"] = row.scenario.presets;
      x["assumptions"] = row.scenario.assumptions;
      json ms = json::array();
      for (size_t i = 0; i < row.metrics.size(); ++i) {
        const auto& m = row.metrics[i];
        json mj = {{"metric", m.observation.metric}, {"unit", m.observation.unit}, {"reported", m.observation.reported},
                   {"predicted", m.predicted}, {"ape", m.ape}, {"signed_error", (m.predicted - m.observation.reported) / std::fabs(m.observation.reported) * 100},
                   {"column", m.observation.column}, {"model_variable", m.observation.target}, {"throughput", row.primary && *row.primary == i}};
        if (!m.observation.definition.empty()) mj["definition"] = m.observation.definition;
        ms.push_back(mj);
      }
      x["metrics"] = ms;
      if (std::isfinite(row.interval_lo)) x["throughput_interval_90"] = {row.interval_lo, row.interval_hi};
      if (row.spread_lo != 1 || row.spread_hi != 1) x["unstated_spread"] = {row.spread_lo, row.spread_hi};
      json b = json::object();
      for (const auto& [k, v] : row.breakdown) b[k] = v;
      x["breakdown_si"] = b;
    }
    rows.push_back(x);
  }
  j["rows"] = rows;
  j["summary"] = summary_json(r.summary);
  j["summary_tier_a"] = summary_json(r.summary_tier_a);
  json g = json::object();
  for (const auto& [k, s] : r.throughput_by_group) g[k] = {{"n", s.n}, {"median_ape", s.median_ape}, {"mean_ape", s.mean_ape}};
  j["throughput_by_group"] = g;
}

std::string report_json(const ValidationReport& r) { return json(r).dump(2) + "\n"; }

double tier_a_throughput_median_ape(const ValidationReport& r) {
  auto it = r.summary_tier_a.find("throughput");
  return it == r.summary_tier_a.end() ? NAN : it->second.median_ape;
}

ValidateAnswer validate_runs(const Registry& reg, const PresetLibrary& lib, const ValidateOptions& opt) {
  const std::vector<std::string> paths = opt.runs_paths.empty() ? default_runs_paths(lib.dir(), opt.data_dir) : opt.runs_paths;
  std::vector<RunRow> rows = read_runs(paths);
  std::string joined;
  for (const auto& p : paths) joined += (joined.empty() ? "" : " + ") + p;
  ValidateAnswer a;
  if (opt.cross_validate == "family") {
    a.cross = cross_validate_families(reg, lib, rows, joined, default_fit_parameters(reg, lib), opt.search);
    return a;
  }
  if (!opt.cross_validate.empty()) throw PresetError("--cross-validate takes 'family', not '" + opt.cross_validate + "'");
  ValidationSettings settings;
  settings.search = opt.search;
  a.report = run_validation(reg, lib, rows, joined, settings);
  return a;
}

}  // namespace gs::validate
