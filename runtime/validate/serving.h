// `gpu-stack validate --serving`: published serving measurements (data/serving/serving-runs.csv) against
// the serving model. Kept apart from the training validation: a serving row is reproduced by its own
// preset (serving/validate/<id>.toml) and compared column by column as presets/validate/
// serving-comparisons.toml states. The serving model has no parameters fitted to serving rows (its
// efficiency parameters are the kernel's, fitted on training rows of data/runs/*.csv only), so every
// serving error is out of sample; the report says so per row.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"

namespace gs::validate {

struct ServingComparison {
  std::string column, unit, per_system;  // per_system: a CSV column multiplying the prediction, or empty
  uint32_t var = 0;
  double unit_scale = 1;  // base units per `unit`
};

struct ServingMetric {
  std::string column;
  double measured = 0, predicted = 0, ape = 0;  // in the column's unit; ape in percent
};

struct ServingRow {
  std::string id, preset;
  std::string reason;  // non-empty: not modelled, and why
  std::vector<ServingMetric> metrics;
};

struct ServingSummary {
  std::string group;  // the value of the comparisons file's group_by column; empty for all rows
  std::string column;
  size_t n = 0;
  double median_ape = 0, mean_ape = 0;
};

struct ServingValidation {
  std::string runs_path;
  std::vector<ServingRow> rows;
  std::vector<ServingSummary> summary;  // one per comparison column that has rows
  std::string group_by;                 // the CSV column the per-group summaries split on (empty: none)
  std::vector<ServingSummary> by_group; // one per group value and comparison column that has rows
  std::string sample = "out-of-sample";  // no serving row is used to fit anything
};

std::vector<ServingComparison> load_serving_comparisons(const Registry& reg, const std::string& path);

// Throws PresetError or CsvError on an unreadable table, a missing id column or a malformed row preset.
ServingValidation validate_serving(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir,
                                   const std::string& runs_path);
std::string serving_report_json(const ServingValidation& v);

}  // namespace gs::validate
