// Residuals and interval coverage (anchor-research.md §1.6–1.8). Sign convention everywhere:
// residual = prediction − observation.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/research/canonical_json.h"

namespace gs::research {

struct PredictionInterval {
  double lower = 0, upper = 0, confidence_level = 0;  // finite, lower <= upper, level in (0, 1]
  bool contains(double v) const { return v >= lower && v <= upper; }  // inclusive
  void validate() const;
};

struct Residual {
  std::string prediction_id, observation_id, metric, unit;
  double predicted = 0, observed = 0;
  std::optional<bool> interval_covered;           // present exactly when the prediction had an interval
  std::optional<double> interval_confidence_level;

  double residual() const { return predicted - observed; }
  double absolute_error() const;
  std::optional<double> relative_error() const;         // |r| / |observed|; none when observed == 0
  std::optional<double> signed_relative_error() const;  // r / |observed|
  Json to_json() const;
};

// Builds a residual; `interval` (if any) must contain the prediction.
Residual make_residual(std::string prediction_id, std::string observation_id, std::string metric, std::string unit,
                       double predicted, double observed, const std::optional<PredictionInterval>& interval = {});

// Coverage at one nominal level. With no intervals the rate and calibration error are absent.
struct IntervalCoverage {
  size_t residual_count = 0, interval_count = 0, covered_count = 0;
  std::optional<double> nominal_level, coverage_rate, calibration_error;  // error = rate − nominal
  Json to_json() const;
};

// Refuses residuals whose intervals carry different nominal levels: pooling a 50% and a 90% interval
// yields a number that estimates nothing. Use the stratified form for mixed levels.
IntervalCoverage summarize_interval_coverage(const std::vector<Residual>& residuals);

struct CoverageLevel {
  double confidence_level = 0;
  size_t interval_count = 0, covered_count = 0;
  double coverage_rate = 0, calibration_error = 0;
};
struct CoveragePanel {
  std::string panel_id;
  size_t residual_count = 0, interval_count = 0;
  std::vector<CoverageLevel> levels;  // ascending by level
};
struct StratifiedCoverage {
  size_t residual_count = 0, interval_count = 0;
  std::vector<CoveragePanel> panels;  // sorted by id
  Json to_json() const;
};

// Groups by panel (the mapping must name exactly the residuals' prediction ids; none puts everything in
// panel "all") and, inside a panel, by exact nominal level. Never pools across levels or panels.
StratifiedCoverage summarize_interval_coverage_stratified(
    const std::vector<Residual>& residuals, const std::optional<std::map<std::string, std::string>>& panel_of = {});

}  // namespace gs::research
