// Small formatting helpers shared by the analysis commands (internal to gs_analysis).
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/format.h"
#include "runtime/registry.h"

namespace gs::analysis_output {

using json = nlohmann::ordered_json;

inline json optional_number(const std::optional<double>& x) {
  return x && std::isfinite(*x) ? json(*x) : json(nullptr);
}

// Elasticities are signed and usually of order one: "+0.999974", "-0.8333333", "0".
inline std::string signed_number(double x) { return x == 0 ? "0" : fmt::format("{:+.7g}", x); }

inline std::string percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

inline std::string quantity(const Registry& reg, uint32_t var, const std::optional<double>& base) {
  if (!base) return "-";
  return format_quantity(reg.units(), reg.var(var), *base);
}

}  // namespace gs::analysis_output
