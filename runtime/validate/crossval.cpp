#include "runtime/validate/crossval.h"

#include <algorithm>
#include <deque>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/validate/engine.h"
#include "runtime/validate/mapping_table.h"
#include "runtime/validate/validate.h"

namespace gs::validate {
namespace {

constexpr double kZ90 = 1.6448536269514722;  // two-sided 90%: the 95th percentile of the standard normal

struct Prepared {
  PreparedRow row;
  FitUse use;
  double baseline_unit = 0;  // the row's comparison under the constant-MFU rule at mfu = 1
  double spread_lo = 1, spread_hi = 1;
};

CvSummary summarise(const std::vector<const CvRow*>& rows) {
  CvSummary s;
  std::vector<double> a, b;
  size_t covered = 0;
  for (const CvRow* r : rows) {
    a.push_back(r->ape), b.push_back(r->baseline_ape);
    covered += r->covered;
  }
  s.n = rows.size();
  if (rows.empty()) return s;
  s.median_ape = median(a), s.mean_ape = mean(a);
  s.baseline_median_ape = median(b), s.baseline_mean_ape = mean(b);
  s.coverage = double(covered) / double(rows.size());
  return s;
}

// The L1 fit of ln(mfu): the median of ln(reported / rule at mfu = 1) over the rows.
double fit_mfu(const std::vector<const Prepared*>& rows) {
  std::vector<double> l;
  for (const Prepared* p : rows) l.push_back(std::log(p->use.reported / p->baseline_unit));
  return std::exp(median(l));
}

nlohmann::ordered_json summary_json(const CvSummary& s) {
  return {{"n", s.n},
          {"fit_rows", s.fit_rows},
          {"median_ape", s.median_ape},
          {"mean_ape", s.mean_ape},
          {"baseline_median_ape", s.baseline_median_ape},
          {"baseline_mean_ape", s.baseline_mean_ape},
          {"coverage_90", s.coverage},
          {"baseline_mfu", s.baseline_mfu}};
}

}  // namespace

CrossValidation cross_validate_families(const Registry& reg, const PresetLibrary& lib, const std::vector<RunRow>& rows, const std::string& runs,
                                        const std::vector<FitParameter>& params, bool search) {
  const MappingTable& M = mapping_table(lib.dir());
  CrossValidation cv;
  cv.runs = runs;
  cv.searched = search;
  cv.parameters = params;
  cv.rows_read = rows.size();
  const std::vector<uint32_t> vary = fit_variables(reg, params);
  Engine engine(reg, lib);
  const std::vector<std::string> extra = {M.target("tokens_per_s"), M.target("model_flops_per_gpu"), M.target("peak_flops")};
  std::deque<Prepared> prepared;
  std::vector<double> starts;
  for (const auto& p : params) starts.push_back(p.start);
  for (const auto& r : rows) {
    SearchChoice s = scenario_for_fit(reg, lib, engine, r, params, search);
    prepared.emplace_back();
    Prepared& p = prepared.back();
    p.row = engine.prepare(s.scenario, vary, extra);
    p.spread_lo = s.spread_lo, p.spread_hi = s.spread_hi;
    if (!p.row.ok() || !p.row.scenario.primary) {
      prepared.pop_back();
      continue;
    }
    p.use = *fit_use(p.row);  // points into the deque, which never moves its elements
    // The rule's prediction over the model's is peak / model FLOP/s per GPU, whatever the parameters.
    std::vector<double> out = engine.evaluate(p.row, &starts);
    const double model_unit = out[p.use.out] * p.use.factor, flops = out[p.row.extra_out[1]], peak = out[p.row.extra_out[2]];
    if (!(model_unit > 0) || !(flops > 0) || !(peak > 0)) {
      prepared.pop_back();
      continue;
    }
    p.baseline_unit = model_unit * peak / flops;
  }
  cv.rows_built = prepared.size();
  std::vector<std::string> families;
  for (const auto& p : prepared)
    if (std::find(families.begin(), families.end(), p.row.scenario.group) == families.end()) families.push_back(p.row.scenario.group);
  for (const auto& fam : families) {
    std::vector<FitUse> train;
    std::vector<const Prepared*> train_rows, test;
    for (const auto& p : prepared) {
      if (p.row.scenario.group == fam) test.push_back(&p);
      else if (p.row.scenario.tier == "A") train.push_back(p.use), train_rows.push_back(&p);
    }
    if (train.empty()) {
      cv.not_predicted.push_back(fam + ": no tier-A row of another family to fit on");
      continue;
    }
    FitValues fit = fit_values(engine, train, params);
    FitUncertainty unc = fit_uncertainty(engine, train, params, fit.values);
    const double mfu = fit_mfu(train_rows);
    CvFamily f;
    f.family = fam;
    f.values = fit.values;
    f.sigma = unc.sigma;
    const size_t first = cv.rows.size();
    for (const Prepared* p : test) {
      CvRow r;
      r.id = p->row.scenario.id, r.family = fam, r.tier = p->row.scenario.tier;
      r.unit = p->row.scenario.observations[*p->row.scenario.primary].unit;
      r.reported = p->use.reported;
      r.predicted = fit_prediction(engine, p->use, fit.values);
      r.baseline = mfu * p->baseline_unit;
      const double sd = prediction_log_sd(engine, p->use, unc);
      r.interval_lo = r.predicted * p->spread_lo * std::exp(-kZ90 * sd);
      r.interval_hi = r.predicted * p->spread_hi * std::exp(kZ90 * sd);
      r.ape = ape(r.predicted, r.reported), r.baseline_ape = ape(r.baseline, r.reported);
      r.covered = r.reported >= r.interval_lo && r.reported <= r.interval_hi;
      cv.rows.push_back(r);
    }
    std::vector<const CvRow*> mine;
    for (size_t i = first; i < cv.rows.size(); ++i) mine.push_back(&cv.rows[i]);
    f.summary = summarise(mine);
    f.summary.fit_rows = train.size();
    f.summary.baseline_mfu = mfu;
    cv.families.push_back(std::move(f));
  }
  std::vector<const CvRow*> all;
  for (const auto& r : cv.rows) all.push_back(&r);
  cv.overall = summarise(all);
  return cv;
}


std::string cross_validation_json(const CrossValidation& cv) {
  nlohmann::ordered_json j;
  j["runs"] = cv.runs;
  j["unstated_settings"] = cv.searched ? "search" : "defaults";
  j["method"] = "leave-one-family-out: fit on the tier-A rows of every other source_group, predict every built row of the left-out one";
  j["ape_unit"] = "percent";
  j["rows_read"] = cv.rows_read;
  j["rows_built"] = cv.rows_built;
  nlohmann::ordered_json ps = nlohmann::ordered_json::array();
  for (const auto& p : cv.parameters) ps.push_back(p.name);
  j["parameters"] = ps;
  j["overall"] = summary_json(cv.overall);
  nlohmann::ordered_json fs = nlohmann::ordered_json::array();
  for (const auto& f : cv.families) {
    nlohmann::ordered_json x = summary_json(f.summary);
    x["family"] = f.family;
    nlohmann::ordered_json v = nlohmann::ordered_json::object();
    for (size_t i = 0; i < cv.parameters.size() && i < f.values.size(); ++i) v[cv.parameters[i].name] = f.values[i];
    x["fitted_without"] = v;
    x["sigma_log"] = f.sigma;
    fs.push_back(x);
  }
  j["families"] = fs;
  j["not_predicted"] = cv.not_predicted;
  nlohmann::ordered_json rs = nlohmann::ordered_json::array();
  for (const auto& r : cv.rows)
    rs.push_back({{"id", r.id},
                  {"family", r.family},
                  {"tier", r.tier},
                  {"unit", r.unit},
                  {"reported", r.reported},
                  {"predicted", r.predicted},
                  {"interval_90", {r.interval_lo, r.interval_hi}},
                  {"covered", r.covered},
                  {"ape", r.ape},
                  {"baseline", r.baseline},
                  {"baseline_ape", r.baseline_ape}});
  j["rows"] = rs;
  return j.dump(2) + "\n";
}

}  // namespace gs::validate
