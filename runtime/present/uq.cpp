#include "runtime/present/uq.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "runtime/format.h"

namespace gs::present {

std::string sweep_text(const Registry& reg, const SweepReport& r) {
  std::ostringstream out;
  out << "sweep: " << r.points << " points in " << format_number(r.seconds) << " s ("
      << format_number(double(r.points) / std::max(r.seconds, 1e-12)) << " evaluations/s, engine " << r.engine << ", " << r.threads
      << " thread" << (r.threads == 1 ? "" : "s") << ")\n";
  for (const auto& t : r.targets) {
    const Variable& v = reg.var(t.var);
    out << "  " << t.name << ": "
        << (!t.min ? "no finite value" : format_quantity(reg.units(), v, *t.min) + " .. " + format_quantity(reg.units(), v, *t.max)) << "\n";
  }
  if (r.nonfinite) out << "  warning: " << r.nonfinite << " non-finite results (NaN or infinity)\n";
  if (r.fits && r.fits->points_not_fitting)
    out << "  warning: " << r.fits->points_not_fitting << " of " << r.points << " points do not fit in HBM (" << r.fits->constraint
        << " fails): their values are for a layout that cannot run" << (r.out.empty() ? "; --out FILE marks them" : "; the file marks them")
        << " in the '" << r.fits->column << "' column\n";
  if (!r.out.empty()) out << "  wrote " << r.out << "\n";
  return out.str();
}

std::string sweep_notes(const SweepReport& r) {
  std::string notes;
  for (const auto& name : r.inputs_not_read)
    notes += "note: " + name + " does not affect " + (r.targets.size() == 1 ? r.targets[0].name : std::string("any of the targets")) +
             " under this scenario (a relation or an assignment downstream decides it); its points repeat the same value\n";
  return notes;
}

std::string uncertainty_text(const Registry& reg, const UncertaintyReport& r) {
  const Summary& sum = r.result.summary;
  const Variable& v = reg.var(r.result.target);
  auto q = [&](double x) { return format_quantity(reg.units(), v, x); };
  std::ostringstream out;
  out << v.name << " under " << r.inputs.size() << " uncertain input" << (r.inputs.size() == 1 ? "" : "s") << ", " << sum.samples
      << " samples (seed " << r.result.seed << ", " << format_number(r.result.seconds) << " s)\n";
  out << "  mean   " << q(sum.mean) << "\n  median " << q(sum.p50) << "\n  90% interval " << q(sum.p5) << " .. " << q(sum.p95) << "\n";
  if (sum.nonfinite) out << "  warning: " << sum.nonfinite << " samples gave no finite value\n";
  size_t peak = *std::max_element(sum.bin_counts.begin(), sum.bin_counts.end());
  for (size_t b = 0; b < sum.bin_counts.size(); ++b)
    out << "  " << q(sum.bin_edges[b]) << "\t" << std::string(peak ? sum.bin_counts[b] * 40 / peak : 0, '#') << "\n";
  return out.str();
}

std::string sensitivity_text(const SensitivityReport& r) {
  std::ostringstream out;
  out << "Sobol indices of " << r.target << " (" << r.evaluations << " evaluations, seed " << r.seed << ")\n";
  out << "  first   total   elasticity  input\n";
  for (const auto& in : r.inputs) {
    char line[160];
    std::snprintf(line, sizeof line, "  %6.3f  %6.3f  %+10.4f  ", in.first, in.total, in.elasticity);
    out << line << in.name << "\n";
  }
  return out.str();
}

}  // namespace gs::present
