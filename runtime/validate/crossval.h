// Out-of-sample accuracy: leave-one-family-out cross-validation. For each source family (the CSV's
// source_group) in turn, the shared efficiency parameters are fitted (calibrate's fit) on the tier-A
// rows of every other family, and every built row of the left-out family is predicted with them, with a
// 90% interval. A constant-MFU rule, tokens/s = mfu x peak x GPUs / (6 N + 12 L d s), with mfu fitted
// the same way on the same rows, is the baseline the model must beat.
#pragma once

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/validate/calibrate.h"
#include "runtime/validate/runs.h"

namespace gs::validate {

struct CvRow {
  std::string id, family, tier, unit;
  double reported = 0, predicted = 0, baseline = 0;  // the row's throughput comparison, in its unit
  double interval_lo = 0, interval_hi = 0;           // 90%
  double ape = 0, baseline_ape = 0;                  // percent
  bool covered = false;
};

struct CvSummary {
  size_t n = 0, fit_rows = 0;
  double median_ape = NAN, mean_ape = NAN;                    // the model, out of sample
  double baseline_median_ape = NAN, baseline_mean_ape = NAN;  // the constant-MFU rule
  double coverage = NAN;                                      // share of rows inside their 90% interval
  double baseline_mfu = NAN;                                  // the rule's fitted mfu (per family: fitted without it)
};

struct CvFamily {
  std::string family;
  CvSummary summary;
  std::vector<double> values;  // fitted parameters without this family
  double sigma = 0;            // that fit's residual scatter of ln(predicted / reported), which the family's intervals carry
};

struct CrossValidation {
  std::string runs;
  std::vector<FitParameter> parameters;
  std::vector<CvFamily> families;  // families with at least one predicted row
  std::vector<std::string> not_predicted;  // families left out that had no built row, or no other family to fit on
  std::vector<CvRow> rows;
  CvSummary overall;
  size_t rows_read = 0, rows_built = 0;
  bool searched = true;  // unstated settings chosen by search (else the defaults, `--no-search`)
};

CrossValidation cross_validate_families(const Registry& reg, const PresetLibrary& lib, const std::vector<RunRow>& rows, const std::string& runs,
                                        const std::vector<FitParameter>& params, bool search = true);
std::string cross_validation_json(const CrossValidation& cv);

}  // namespace gs::validate
