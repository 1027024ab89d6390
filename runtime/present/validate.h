// Text renderers of validate's and calibrate's results (runtime/validate). The validation report's and
// the cross-validation's own texts are beside their types (validate.h, crossval.h, serving.h).
#pragma once

#include <string>

#include "runtime/validate/calibrate.h"

namespace gs::present {

// `calibrate` without --json: the preset (when it was not written to a file) and the fit's summary.
std::string calibration_text(const validate::Calibration& c);
// `validate --max-median-ape`: the message of a failed gate (percentages).
std::string validate_gate_text(double median_ape, double gate);

}  // namespace gs::present
