// Text renderers of validate's and calibrate's results (runtime/validate): what the commands print
// without --json.
#pragma once

#include <string>

#include "runtime/validate/calibrate.h"
#include "runtime/validate/crossval.h"
#include "runtime/validate/serving.h"
#include "runtime/validate/validate.h"

namespace gs::present {

// A percentage as the reports print it: "12.3%"; "-" when not finite.
std::string percent_text(double v);
// `validate`: every row's comparisons, the rows not built, the assumptions, the summaries.
std::string validation_text(const validate::ValidationReport& r);
// `validate --cross-validate family`: per family and per row, out of sample, against the MFU rule.
std::string cross_validation_text(const validate::CrossValidation& cv);
// `validate --serving`: per row and column, and the summaries.
std::string serving_validation_text(const validate::ServingValidation& v);

// `calibrate` without --json: the preset (when it was not written to a file) and the fit's summary.
std::string calibration_text(const validate::Calibration& c);
// `validate --max-median-ape`: the message of a failed gate (percentages).
std::string validate_gate_text(double median_ape, double gate);

}  // namespace gs::present
