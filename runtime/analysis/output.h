// Small formatting helpers of the analysis reports: shared by gs_analysis (JSON, work items' evidence)
// and the text renderers in runtime/present/analysis.cpp.
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gs::analysis_output {

using json = nlohmann::ordered_json;

inline json optional_number(const std::optional<double>& x) {
  return x && std::isfinite(*x) ? json(*x) : json(nullptr);
}

// Elasticities are signed and usually of order one: "+0.999974", "-0.8333333", "0".
inline std::string signed_number(double x) { return x == 0 ? "0" : fmt::format("{:+.7g}", x); }

}  // namespace gs::analysis_output
