#include "runtime/present/validate.h"

#include <fmt/format.h>

#include "runtime/validate/validate.h"

namespace gs::present {

std::string calibration_text(const validate::Calibration& c) {
  const validate::FitResult& fit = c.fit;
  std::string out = c.written.empty() ? c.preset : "";
  out += fmt::format("fitted {} parameters on {} tier-A rows ({} skipped); mean |ln(predicted/reported)| {:.6g} -> {:.6g}\n",
                     fit.parameters.size(), fit.rows.size(), fit.skipped.size(), fit.objective_start, fit.objective);
  for (size_t i = 0; i < fit.parameters.size(); ++i) out += fmt::format("  {} = {:.6g}\n", fit.parameters[i].name, fit.values[i]);
  return out;
}

std::string validate_gate_text(double median_ape, double gate) {
  return "gpu-stack: tier-A throughput median APE " + validate::percent_text(median_ape) + " exceeds the gate of " +
         validate::percent_text(gate) + "\n";
}

}  // namespace gs::present
