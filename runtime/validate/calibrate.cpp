#include "runtime/validate/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "image/atomic_file.h"
#include "image/image.h"
#include "runtime/format.h"
#include "runtime/validate/engine.h"
#include "runtime/validate/validate.h"

namespace gs::validate {
namespace {

double to_free(const FitParameter& p, double v) { return p.share ? std::log(v / (1 - v)) : std::log(v); }
double from_free(const FitParameter& p, double z) { return p.share ? 1 / (1 + std::exp(-z)) : std::exp(z); }

std::string num17(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

}  // namespace

const std::vector<FitParameter>& default_fit_parameters() {
  static const std::vector<FitParameter> p = {
      {"kernel.gemm.efficiency", true, 0.85, "share of the measured matmul ceiling the framework's GEMMs reach"},
      {"kernel.attn.compute_efficiency", true, 0.5, "fused attention kernel rate relative to a GEMM's"},
      {"kernel.attn.score_passes", false, 4, "HBM passes over the score matrix per forward pass of materialising attention"},
      {"col.dp.overlap_fraction", true, 0.8, "share of the compute window that data-parallel and FSDP traffic hides behind"},
      {"col.tp.overlap_fraction", true, 0.1, "share of a layer's compute that tensor-parallel all-reduces hide behind"},
  };
  return p;
}

std::vector<FitParameter> fit_parameters(const Registry& reg, const std::vector<std::string>& names) {
  std::vector<FitParameter> out;
  for (const auto& name : names) {
    const Variable& v = reg.var(lookup_variable(reg, name, "fitted parameter"));
    auto it = std::find_if(default_fit_parameters().begin(), default_fit_parameters().end(), [&](const FitParameter& p) { return p.name == name; });
    if (it != default_fit_parameters().end()) {
      out.push_back(*it);
      continue;
    }
    const bool share = v.assume.has_range && v.assume.lo == 0 && v.assume.hi == 1;
    out.push_back({name, share, share ? 0.5 : 1.0 * v.unit_scale, v.description});
  }
  return out;
}

std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0, double step,
                                size_t max_evals, double ftol, size_t* evals_out) {
  const size_t n = x0.size();
  size_t evals = 0;
  auto F = [&](const std::vector<double>& x) {
    ++evals;
    double v = f(x);
    return std::isfinite(v) ? v : INFINITY;
  };
  std::vector<std::vector<double>> pts(n + 1, x0);
  for (size_t i = 0; i < n; ++i) pts[i + 1][i] += step;
  std::vector<double> vals(n + 1);
  for (size_t i = 0; i <= n; ++i) vals[i] = F(pts[i]);
  std::vector<size_t> order(n + 1);
  while (evals < max_evals) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return vals[a] < vals[b]; });
    {
      std::vector<std::vector<double>> p2;
      std::vector<double> v2;
      for (size_t i : order) p2.push_back(pts[i]), v2.push_back(vals[i]);
      pts.swap(p2), vals.swap(v2);
    }
    if (std::fabs(vals[n] - vals[0]) <= ftol * (std::fabs(vals[0]) + 1e-12)) break;
    std::vector<double> c(n, 0);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) c[j] += pts[i][j] / double(n);
    auto along = [&](double t) {
      std::vector<double> x(n);
      for (size_t j = 0; j < n; ++j) x[j] = c[j] + t * (pts[n][j] - c[j]);
      return x;
    };
    auto xr = along(-1);
    double fr = F(xr);
    if (fr < vals[0]) {
      auto xe = along(-2);
      double fe = F(xe);
      if (fe < fr) pts[n] = xe, vals[n] = fe;
      else pts[n] = xr, vals[n] = fr;
    } else if (fr < vals[n - 1]) {
      pts[n] = xr, vals[n] = fr;
    } else {
      auto xc = fr < vals[n] ? along(-0.5) : along(0.5);
      double fc = F(xc);
      if (fc < std::min(fr, vals[n])) {
        pts[n] = xc, vals[n] = fc;
      } else {
        for (size_t i = 1; i <= n; ++i) {
          for (size_t j = 0; j < n; ++j) pts[i][j] = pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]);
          vals[i] = F(pts[i]);
        }
      }
    }
  }
  size_t best = size_t(std::min_element(vals.begin(), vals.end()) - vals.begin());
  if (evals_out) *evals_out += evals;
  return pts[best];
}

FitResult calibrate(const Registry& reg, const PresetLibrary& lib, const std::vector<RunRow>& rows, const std::vector<FitParameter>& params) {
  FitResult fit;
  fit.parameters = params;
  std::vector<uint32_t> vary;
  for (const auto& p : params) vary.push_back(lookup_variable(reg, p.name, "fitted parameter"));
  Engine engine(reg, lib);
  struct Use {
    PreparedRow row;
    size_t out = 0;
    double reported = 0, factor = 1;
  };
  std::vector<Use> uses;
  for (const auto& r : rows) {
    if (r.get("tier") != "A") continue;
    RowScenario s = map_row(reg, lib, r);
    PreparedRow p = engine.prepare(s, vary);
    if (!p.ok()) {
      fit.skipped.push_back(s.id + ": " + p.error);
      continue;
    }
    if (!s.primary) {
      fit.skipped.push_back(s.id + ": no throughput reported");
      continue;
    }
    const Observation& o = s.observations[*s.primary];
    Use u{std::move(p), 0, o.reported, o.factor};
    u.out = u.row.observation_out[*s.primary];
    uses.push_back(std::move(u));
  }
  if (uses.empty()) throw PresetError("no tier-A row could be built, so there is nothing to fit");
  auto values_of = [&](const std::vector<double>& z) {
    std::vector<double> v(z.size());
    for (size_t i = 0; i < z.size(); ++i) v[i] = from_free(params[i], z[i]);
    return v;
  };
  auto objective = [&](const std::vector<double>& z) {
    std::vector<double> v = values_of(z);
    double s = 0;
    for (const auto& u : uses) {
      double pred = engine.evaluate(u.row, &v)[u.out] * u.factor;
      if (!(pred > 0) || !std::isfinite(pred)) return double(INFINITY);
      s += std::fabs(std::log(pred / u.reported));
    }
    return s / double(uses.size());
  };
  std::vector<double> z0;
  for (const auto& p : params) z0.push_back(to_free(p, p.start));
  fit.objective_start = objective(z0);
  // The objective has kinks (exposed communication is max(0, ...)), so a single simplex can stop on a
  // ridge. Deterministic multi-start: the documented start plus kStarts points of a Halton sequence over
  // a box around it (shares: logit in [-2.5, 2.5]; positive values: a factor e^1.5 either way), a short
  // Nelder-Mead from each, then a long polish from the best.
  constexpr size_t kStarts = 16;
  auto halton = [](size_t i, size_t base) {
    double f = 1, r = 0;
    for (size_t k = i; k > 0; k /= base) f /= double(base), r += f * double(k % base);
    return r;
  };
  static const size_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  size_t evals = 0;
  std::vector<double> best = nelder_mead(objective, z0, 0.5, 1500, 1e-10, &evals);
  double best_f = objective(best);
  for (size_t k = 1; k <= kStarts; ++k) {
    std::vector<double> zs(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const double u = halton(k, primes[i % 12]);
      zs[i] = params[i].share ? -2.5 + 5 * u : z0[i] - 1.5 + 3 * u;
    }
    std::vector<double> z = nelder_mead(objective, zs, 0.5, 1500, 1e-10, &evals);
    const double f = objective(z);
    if (f < best_f - 1e-12) best_f = f, best = z;
  }
  std::vector<double> z = nelder_mead(objective, best, 0.1, 4000, 1e-12, &evals);
  fit.values = values_of(z);
  fit.objective = objective(z);
  fit.evaluations = evals;
  for (const auto& u : uses) {
    double pred = engine.evaluate(u.row, &fit.values)[u.out] * u.factor;
    fit.rows.push_back({u.row.scenario.id, u.row.scenario.group, u.reported, pred});
  }
  return fit;
}

std::string fitted_preset_text(const Registry& reg, const FitResult& fit, const std::string& runs_path, const std::string& runs_sha256,
                               const std::string& date) {
  std::vector<double> apes;
  std::map<std::string, std::vector<double>> groups;
  for (const auto& r : fit.rows) {
    apes.push_back(ape(r.predicted, r.reported));
    groups[r.group].push_back(ape(r.predicted, r.reported));
  }
  auto q = [](const std::string& s) {
    std::string o = "\"";
    for (char c : s) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return o + "\"";
  };
  std::ostringstream os;
  os << "# Written by `gpu-stack calibrate`; re-run the command rather than editing the values by hand.\n"
     << "# The validate scenarios layer this preset over presets/validate/base.toml (see docs/calibration.md).\n"
     << "name = \"fitted\"\n"
     << "description = " << q("Shared efficiency parameters of the kernel and collective systems, fitted to the tier-A throughput of published training runs") << "\n"
     << "source = " << q("gpu-stack calibrate --runs " + runs_path + " (sha256 " + runs_sha256 + "), " + std::to_string(fit.rows.size()) + " tier-A rows, " + date) << "\n"
     << "notes = [\n"
     << "  " << q("Fit date: " + date + " (UTC).") << ",\n"
     << "  " << q("Data: " + runs_path + ", sha256 " + runs_sha256 + "; the tier-A rows the validate mapping can build (" + std::to_string(fit.rows.size()) + "), each compared on its throughput as reported (tokens/s, else TFLOP/s per GPU in the source's own FLOP count, else MFU). Tier-A rows not built: " + std::to_string(fit.skipped.size()) + " (listed by `gpu-stack validate`).") << ",\n"
     << "  " << q("Method: Nelder-Mead over the parameters below (logit of each share, log of each positive value) from the documented start and 16 Halton points around it, then a polish from the best; " + std::to_string(fit.evaluations) + " evaluations of the JIT-compiled cones. Deterministic.") << ",\n"
     << "  " << q("Objective: mean |ln(predicted / reported)| over the rows; " + num17(fit.objective_start) + " at the start, " + num17(fit.objective) + " at the fit.") << ",\n"
     << "  " << q("Fit quality: median APE " + num17(median(apes)) + "%, mean APE " + num17(mean(apes)) + "% over the rows used.") << ",\n";
  for (const auto& [g, v] : groups)
    os << "  " << q("Group " + g + ": n " + std::to_string(v.size()) + ", median APE " + num17(median(v)) + "%, mean APE " + num17(mean(v)) + "%.") << ",\n";
  os << "]\n\n[assign]\n";
  for (size_t i = 0; i < fit.parameters.size(); ++i) {
    const auto& p = fit.parameters[i];
    const Variable& v = reg.var(*reg.find_var(p.name));
    os << q(p.name) << " = " << num17(fit.values[i] / (v.unit_scale > 0 ? v.unit_scale : 1)) << "  # fitted (start " << num17(p.start) << "): " << p.why << "\n";
  }
  return os.str();
}

int calibrate_command(const Registry& reg, const PresetLibrary& lib, const CalibrateOptions& opt, std::ostream& out, std::ostream& err) {
  // Checked before the fit, which takes a while: a preset on disk is replaced only when asked to.
  if (!opt.out_path.empty() && !opt.force && (std::filesystem::exists(opt.out_path) || is_symlink(opt.out_path)))
    throw CsvError("'" + opt.out_path + "' exists; calibrate replaces a preset only with --force");
  const std::string text = read_csv_text(opt.runs_path);
  std::vector<RunRow> rows = runs_from_table(parse_csv(text));
  FitResult fit = calibrate(reg, lib, rows, opt.params.empty() ? default_fit_parameters() : fit_parameters(reg, opt.params));
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::ostringstream date;
  date << std::put_time(&tm, "%Y-%m-%d");
  const std::string preset = fitted_preset_text(reg, fit, opt.runs_path, sha256_hex(text.data(), text.size()), date.str());
  if (!opt.out_path.empty()) {
    write_file_atomic(opt.out_path, preset);
    err << "wrote " << opt.out_path << "\n";
  }
  if (opt.json) {
    nlohmann::ordered_json j;
    j["runs"] = opt.runs_path;
    j["objective_start"] = fit.objective_start;
    j["objective"] = fit.objective;
    j["evaluations"] = fit.evaluations;
    nlohmann::ordered_json ps = nlohmann::ordered_json::object();
    for (size_t i = 0; i < fit.parameters.size(); ++i) ps[fit.parameters[i].name] = fit.values[i];
    j["parameters"] = ps;
    nlohmann::ordered_json rs = nlohmann::ordered_json::array();
    for (const auto& r : fit.rows)
      rs.push_back({{"id", r.id}, {"group", r.group}, {"reported", r.reported}, {"predicted", r.predicted}, {"ape", ape(r.predicted, r.reported)}});
    j["rows"] = rs;
    j["skipped"] = fit.skipped;
    out << j.dump(2) << "\n";
  } else {
    if (opt.out_path.empty()) out << preset;
    out << "fitted " << fit.parameters.size() << " parameters on " << fit.rows.size() << " tier-A rows (" << fit.skipped.size()
        << " skipped); mean |ln(predicted/reported)| " << num17(fit.objective_start) << " -> " << num17(fit.objective) << "\n";
    for (size_t i = 0; i < fit.parameters.size(); ++i) out << "  " << fit.parameters[i].name << " = " << num17(fit.values[i]) << "\n";
  }
  return 0;
}

}  // namespace gs::validate
