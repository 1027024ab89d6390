#include "runtime/research/metrics.h"

#include <cmath>
#include <set>
#include <stdexcept>

namespace gs::research {
namespace {
[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }
Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
}  // namespace

void PredictionInterval::validate() const {
  if (!std::isfinite(lower) || !std::isfinite(upper) || lower > upper) fail("interval bounds must be finite with lower <= upper");
  if (!(confidence_level > 0 && confidence_level <= 1)) fail("interval confidence level must lie in (0, 1]");
}

double Residual::absolute_error() const { return std::fabs(residual()); }
std::optional<double> Residual::relative_error() const {
  if (observed == 0) return std::nullopt;
  return std::fabs(residual()) / std::fabs(observed);
}
std::optional<double> Residual::signed_relative_error() const {
  if (observed == 0) return std::nullopt;
  return residual() / std::fabs(observed);
}

Json Residual::to_json() const {
  return {{"prediction_id", prediction_id}, {"observation_id", observation_id}, {"metric", metric}, {"unit", unit},
          {"predicted_value", predicted}, {"observed_value", observed}, {"residual", residual()},
          {"absolute_error", absolute_error()}, {"relative_error", opt(relative_error())},
          {"signed_relative_error", opt(signed_relative_error())},
          {"interval_covered", interval_covered ? Json(*interval_covered) : Json(nullptr)},
          {"interval_confidence_level", opt(interval_confidence_level)}};
}

Residual make_residual(std::string prediction_id, std::string observation_id, std::string metric, std::string unit,
                       double predicted, double observed, const std::optional<PredictionInterval>& interval) {
  if (!std::isfinite(predicted) || !std::isfinite(observed)) fail("residual values must be finite");
  Residual r{std::move(prediction_id), std::move(observation_id), std::move(metric), std::move(unit), predicted, observed, {}, {}};
  if (interval) {
    interval->validate();
    if (!interval->contains(predicted)) fail("prediction " + r.prediction_id + " lies outside its own interval");
    r.interval_covered = interval->contains(observed);
    r.interval_confidence_level = interval->confidence_level;
  }
  return r;
}

Json IntervalCoverage::to_json() const {
  return {{"residual_count", residual_count}, {"interval_count", interval_count}, {"covered_count", covered_count},
          {"mean_nominal_confidence", opt(nominal_level)}, {"coverage_rate", opt(coverage_rate)},
          {"calibration_error", opt(calibration_error)}};
}

IntervalCoverage summarize_interval_coverage(const std::vector<Residual>& residuals) {
  IntervalCoverage c;
  c.residual_count = residuals.size();
  for (const auto& r : residuals) {
    if (!r.interval_covered) continue;
    if (c.nominal_level && *c.nominal_level != *r.interval_confidence_level)
      fail("interval coverage refuses to pool different nominal levels; use the stratified summary");
    c.nominal_level = r.interval_confidence_level;
    ++c.interval_count;
    c.covered_count += *r.interval_covered ? 1 : 0;
  }
  if (c.interval_count) {
    c.coverage_rate = double(c.covered_count) / double(c.interval_count);
    c.calibration_error = *c.coverage_rate - *c.nominal_level;
  }
  return c;
}

Json StratifiedCoverage::to_json() const {
  Json panels_json = Json::array();
  for (const auto& p : panels) {
    Json levels = Json::array();
    for (const auto& l : p.levels)
      levels.push_back({{"confidence_level", l.confidence_level}, {"interval_count", l.interval_count},
                        {"covered_count", l.covered_count}, {"coverage_rate", l.coverage_rate},
                        {"calibration_error", l.calibration_error}});
    panels_json.push_back({{"panel_id", p.panel_id}, {"residual_count", p.residual_count},
                           {"interval_count", p.interval_count},
                           {"without_interval_count", p.residual_count - p.interval_count}, {"levels", levels}});
  }
  return {{"residual_count", residual_count}, {"interval_count", interval_count}, {"panels", panels_json}};
}

StratifiedCoverage summarize_interval_coverage_stratified(const std::vector<Residual>& residuals,
                                                          const std::optional<std::map<std::string, std::string>>& panel_of) {
  std::set<std::string> ids;
  for (const auto& r : residuals)
    if (!ids.insert(r.prediction_id).second) fail("prediction id '" + r.prediction_id + "' appears twice");
  if (panel_of) {
    std::set<std::string> mapped;
    for (const auto& [pid, panel] : *panel_of) mapped.insert(pid);
    if (mapped != ids) fail("the panel mapping must name exactly the residuals' prediction ids");
  }
  // panel -> level -> (intervals, covered); std::map keeps both sorted.
  std::map<std::string, std::pair<size_t, std::map<double, std::pair<size_t, size_t>>>> acc;
  StratifiedCoverage out;
  out.residual_count = residuals.size();
  for (const auto& r : residuals) {
    auto& panel = acc[panel_of ? panel_of->at(r.prediction_id) : std::string("all")];
    ++panel.first;
    if (!r.interval_covered) continue;
    auto& level = panel.second[*r.interval_confidence_level];
    ++level.first;
    level.second += *r.interval_covered ? 1 : 0;
    ++out.interval_count;
  }
  for (const auto& [id, panel] : acc) {
    CoveragePanel p{id, panel.first, 0, {}};
    for (const auto& [level, counts] : panel.second) {
      double rate = double(counts.second) / double(counts.first);
      p.levels.push_back({level, counts.first, counts.second, rate, rate - level});
      p.interval_count += counts.first;
    }
    out.panels.push_back(std::move(p));
  }
  return out;
}

}  // namespace gs::research
