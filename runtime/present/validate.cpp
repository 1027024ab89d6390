#include "runtime/present/validate.h"

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "runtime/format.h"

namespace gs::present {
namespace {

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s += std::string(w - s.size(), ' ');
  return s;
}

// A signed percentage with one decimal: "+12.3%", "-0.4%".
std::string signed_percent(double e) {
  std::ostringstream os;
  os << std::showpos << std::fixed << std::setprecision(1) << e << "%";
  return os.str();
}

// The prediction's error relative to the reported value; "-" when there is none to give.
std::string signed_error(double predicted, double reported) {
  if (!std::isfinite(predicted) || reported == 0) return "-";
  return signed_percent((predicted - reported) / std::fabs(reported) * 100);
}

}  // namespace

std::string percent_text(double v) {
  if (!std::isfinite(v)) return "-";
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << v << "%";
  return os.str();
}

std::string validation_text(const validate::ValidationReport& r) {
  std::ostringstream os;
  size_t built = 0;
  for (const auto& row : r.rows) built += row.built();
  os << "Validation against published training runs: " << r.runs_path << "\n";
  os << "  rows: " << r.rows_read << " read, " << built << " built, " << (r.rows.size() - built) << " not built\n";
  if (!r.calibration.empty()) {
    os << "  calibration (" << r.calibration_source << "):";
    for (const auto& [k, v] : r.calibration) os << " " << k << " = " << format_number(v) << ";";
    os << "\n";
  }
  os << "\n" << pad("row", 34) << pad("tier", 5) << pad("metric", 22) << pad("reported", 19) << pad("predicted", 14) << "error\n";
  for (const auto& row : r.rows) {
    if (!row.built()) continue;
    for (size_t i = 0; i < row.metrics.size(); ++i) {
      const auto& m = row.metrics[i];
      std::string metric = m.observation.metric + (row.primary && *row.primary == i ? " *" : "");
      os << pad(i == 0 ? row.scenario.id : "", 34) << pad(i == 0 ? row.scenario.tier : "", 5) << pad(metric, 22)
         << pad(format_number(m.observation.reported) + " " + m.observation.unit, 19) << pad(format_number(m.predicted), 14)
         << signed_error(m.predicted, m.observation.reported);
      if (row.primary && *row.primary == i && std::isfinite(row.interval_lo))
        os << "  [" << format_number(row.interval_lo) << ", " << format_number(row.interval_hi) << "]";
      os << "\n";
    }
  }
  os << "  (* the row's throughput comparison, with its 90% interval in brackets)\n";
  if (built < r.rows.size()) {
    os << "\nRows not built (" << (r.rows.size() - built) << "):\n";
    for (const auto& row : r.rows)
      if (!row.built()) os << "  " << pad(row.scenario.id.empty() ? "(line " + std::to_string(row.scenario.line) + ")" : row.scenario.id, 32) << row.reason << "\n";
  }
  std::map<std::string, size_t> assumptions;
  for (const auto& row : r.rows)
    if (row.built())
      for (const auto& a : row.scenario.assumptions) ++assumptions[a];
  if (!assumptions.empty()) {
    os << "\nAssumptions where rows are silent (rows):\n";
    for (const auto& [a, n] : assumptions) os << "  " << pad(std::to_string(n), 4) << a << "\n";
  }
  os << "\nSummary: absolute percentage error of the prediction\n";
  os << "  " << pad("metric", 22) << pad("n", 5) << pad("median", 9) << pad("mean", 9) << "| tier A: " << pad("n", 5) << pad("median", 9) << "mean\n";
  for (const auto& name : validate::metric_order()) {
    auto it = r.summary.find(name);
    if (it == r.summary.end()) continue;
    os << "  " << pad(name, 22) << pad(std::to_string(it->second.n), 5) << pad(percent_text(it->second.median_ape), 9) << pad(percent_text(it->second.mean_ape), 9)
       << "|         ";
    if (auto a = r.summary_tier_a.find(name); a != r.summary_tier_a.end())
      os << pad(std::to_string(a->second.n), 5) << pad(percent_text(a->second.median_ape), 9) << percent_text(a->second.mean_ape);
    else
      os << "-";
    os << "\n";
  }
  if (!r.throughput_by_group.empty()) {
    os << "\nThroughput by source group:\n";
    for (const auto& [g, s] : r.throughput_by_group)
      os << "  " << pad(g, 40) << pad("n " + std::to_string(s.n), 7) << "median " << pad(percent_text(s.median_ape), 8) << "mean " << percent_text(s.mean_ape) << "\n";
  }
  return os.str();
}

std::string cross_validation_text(const validate::CrossValidation& cv) {
  std::ostringstream os;
  os << "Leave-one-family-out cross-validation: " << cv.runs << "\n";
  os << "  rows: " << cv.rows_read << " read, " << cv.rows_built << " built with a throughput comparison, " << cv.rows.size() << " predicted out of sample\n";
  os << "  each family is predicted with parameters fitted on the tier-A rows of all other families; the baseline is\n"
     << "  tokens/s = mfu x peak x GPUs / (6N + 12 L d s) with mfu fitted on the same rows the same way\n";
  os << "  unstated settings: " << (cv.searched ? "chosen by search" : "defaults (micro-batch 1, no interleaving, no recomputation)") << "\n\n";
  os << "  " << pad("family", 48) << pad("n", 4) << pad("median", 8) << pad("mean", 8) << "| " << pad("MFU rule: median", 17) << pad("mean", 8)
     << pad("mfu", 7) << "| 90% coverage\n";
  auto line = [&](const std::string& name, const validate::CvSummary& s) {
    std::ostringstream mfu;
    if (std::isfinite(s.baseline_mfu)) mfu << std::fixed << std::setprecision(3) << s.baseline_mfu;
    os << "  " << pad(name.substr(0, 46), 48) << pad(std::to_string(s.n), 4) << pad(percent_text(s.median_ape), 8) << pad(percent_text(s.mean_ape), 8) << "| "
       << pad(percent_text(s.baseline_median_ape), 17) << pad(percent_text(s.baseline_mean_ape), 8) << pad(mfu.str(), 7) << "| " << percent_text(s.coverage * 100) << "\n";
  };
  for (const auto& f : cv.families) line(f.family, f.summary);
  line("overall", cv.overall);
  if (!cv.not_predicted.empty()) {
    os << "\nFamilies not predicted:\n";
    for (const auto& n : cv.not_predicted) os << "  " << n << "\n";
  }
  os << "\nRows (out of sample):\n";
  os << "  " << pad("row", 36) << pad("reported", 16) << pad("predicted", 12) << pad("90% interval", 24) << pad("error", 9) << "MFU rule\n";
  for (const auto& r : cv.rows) {
    const std::string e = signed_percent((r.predicted - r.reported) / r.reported * 100);
    const std::string b = signed_percent((r.baseline - r.reported) / r.reported * 100);
    os << "  " << pad(r.id.substr(0, 34), 36) << pad(format_number(r.reported) + " " + r.unit, 16) << pad(format_number(r.predicted), 12)
       << pad(format_number(r.interval_lo) + " - " + format_number(r.interval_hi) + (r.covered ? "" : " !"), 24) << pad(e, 9) << b << "\n";
  }
  os << "  (! the reported value lies outside the interval)\n";
  return os.str();
}

std::string serving_validation_text(const validate::ServingValidation& v) {
  std::string out = fmt::format("serving validation: {} rows of {}\n", v.rows.size(), v.runs_path);
  out += "every APE is out of sample: no serving row was used to fit any parameter (the serving model's efficiencies are the kernel's, fitted on training rows)\n\n";
  for (const auto& r : v.rows) {
    if (!r.reason.empty()) {
      out += fmt::format("  {:<40} {}\n", r.id, r.reason);
      continue;
    }
    for (const auto& m : r.metrics)
      out += fmt::format("  {:<40} {:<14} measured {:>12.6g}  model {:>12.6g}  APE {:6.2f} %  ({})\n", r.id, m.column, m.measured, m.predicted,
                         m.ape, v.sample);
  }
  out += "\nsummary (out of sample):\n";
  for (const auto& s : v.summary)
    out += fmt::format("  {:<14} n {:>3}  median APE {:6.2f} %  mean APE {:6.2f} %\n", s.column, s.n, s.median_ape, s.mean_ape);
  if (v.summary.empty()) out += "  no modelled row has a comparable measurement\n";
  if (!v.by_group.empty()) out += fmt::format("\nby {} (out of sample):\n", v.group_by);
  for (const auto& s : v.by_group)
    out += fmt::format("  {:<16} {:<14} n {:>3}  median APE {:6.2f} %  mean APE {:6.2f} %\n", s.group, s.column, s.n, s.median_ape, s.mean_ape);
  return out;
}


std::string calibration_text(const validate::Calibration& c) {
  const validate::FitResult& fit = c.fit;
  std::string out = c.written.empty() ? c.preset : "";
  out += fmt::format("fitted {} parameters on {} tier-A rows ({} skipped); mean |ln(predicted/reported)| {:.6g} -> {:.6g}\n",
                     fit.parameters.size(), fit.rows.size(), fit.skipped.size(), fit.objective_start, fit.objective);
  for (size_t i = 0; i < fit.parameters.size(); ++i) out += fmt::format("  {} = {:.6g}\n", fit.parameters[i].name, fit.values[i]);
  return out;
}

std::string validate_gate_text(double median_ape, double gate) {
  return "gpu-stack: tier-A throughput median APE " + percent_text(median_ape) + " exceeds the gate of " +
         percent_text(gate) + "\n";
}

}  // namespace gs::present
