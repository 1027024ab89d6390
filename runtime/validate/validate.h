// `gpu-stack validate`: predicts every row of a table of published training runs from the model and
// compares each reported number with its prediction (absolute percentage error), then summarises by
// metric: count, median and mean APE, for all rows and for tier A. Rows that cannot be built are listed
// with the reason. Typed results with `to_json` beside them; the CLI (tools/gpu-stack/validate.cpp)
// prints them and chooses the exit status.
#pragma once

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/validate/mapping.h"
#include "runtime/validate/calibrate.h"
#include "runtime/validate/crossval.h"
#include "runtime/validate/search.h"

namespace gs::validate {

// |predicted - reported| / |reported|, in percent.
double ape(double predicted, double reported);
// Median of the values (mean of the middle two for an even count); NaN for none.
double median(std::vector<double> v);
double mean(const std::vector<double>& v);

struct MetricResult {
  Observation observation;
  double predicted = 0;  // in the observation's unit
  double ape = 0;        // percent
};

struct RowResult {
  RowScenario scenario;
  std::string reason;  // non-empty: the row was not built (or not evaluated), and why
  std::vector<MetricResult> metrics;
  std::optional<size_t> primary;                // index into metrics of the throughput comparison
  std::map<std::string, double> breakdown;      // step-time components, base units
  // The spread of the throughput comparison over the near-best settings of unstated knobs, as factors of
  // the prediction (1, 1 when nothing was searched), and the 90% interval of the throughput comparison
  // (in its unit; NaN when no parameter uncertainty is known).
  double spread_lo = 1, spread_hi = 1;
  double interval_lo = NAN, interval_hi = NAN;
  bool built() const { return reason.empty(); }
};

struct MetricSummary {
  size_t n = 0;
  double median_ape = 0, mean_ape = 0;  // percent
};

struct ValidationReport {
  std::string runs_path;
  size_t rows_read = 0;
  std::vector<RowResult> rows;
  // Metric name -> summary. "throughput" is each row's primary throughput comparison (tokens/s when
  // reported, else TFLOP/s per GPU in the row's own definition, else MFU, else HFU).
  std::map<std::string, MetricSummary> summary, summary_tier_a;
  std::map<std::string, MetricSummary> throughput_by_group;  // source group -> throughput summary
  std::map<std::string, double> calibration;                 // fitted parameter -> value (base units)
  std::optional<FitUncertainty> uncertainty;                 // of the shipped fit, on the tier-A rows
  std::string calibration_source;
};

// Metric names in report order.
const std::vector<std::string>& metric_order();

// How unstated settings are chosen: by `engine` when set (e.g. a planner), else by the exhaustive search
// when `search` is on, else the defaults stay.
struct ValidationSettings {
  bool search = true;
  SearchEngine engine;
};

ValidationReport run_validation(const Registry& reg, const PresetLibrary& lib, const std::vector<RunRow>& rows,
                                const std::string& runs_path, const ValidationSettings& settings = {});
void to_json(nlohmann::ordered_json& j, const ValidationReport& r);
// The `validate --json` document: to_json's, indented, with a final newline.
std::string report_json(const ValidationReport& r);
// The tier-A throughput median APE in percent (NaN when no tier-A row has one): what --max-median-ape gates.
double tier_a_throughput_median_ape(const ValidationReport& r);

struct ValidateOptions {
  std::vector<std::string> runs_paths;  // empty: the mapping table's default_runs under data_dir
  std::string data_dir;                 // Workspace::data_dir
  std::string cross_validate;           // "family": leave-one-family-out instead of the plain report
  bool search = true;                   // choose unstated settings by search
};
// `validate`: the report, or with cross_validate "family" the leave-one-family-out evaluation (exactly
// one of the two is set). Throws on bad input (unreadable CSV, missing id column, unknown presets).
struct ValidateAnswer {
  std::optional<ValidationReport> report;
  std::optional<CrossValidation> cross;
};
ValidateAnswer validate_runs(const Registry& reg, const PresetLibrary& lib, const ValidateOptions& opt);

}  // namespace gs::validate
