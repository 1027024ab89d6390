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
#include "runtime/validate/mapping_table.h"
#include "runtime/validate/search.h"
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

std::vector<FitParameter> default_fit_parameters(const Registry& reg, const PresetLibrary& lib) {
  std::vector<FitParameter> out;
  for (const auto& f : mapping_table(lib.dir()).fit) {
    const Variable& v = reg.var(lookup_variable(reg, f.name, "fitted parameter"));
    out.push_back({f.name, f.share, f.start * (v.unit_scale > 0 ? v.unit_scale : 1), f.why});
  }
  return out;
}

std::vector<FitParameter> fit_parameters(const Registry& reg, const PresetLibrary& lib, const std::vector<std::string>& names) {
  std::vector<FitParameter> out;
  const std::vector<FitParameter> defaults = default_fit_parameters(reg, lib);
  for (const auto& name : names) {
    const Variable& v = reg.var(lookup_variable(reg, name, "fitted parameter"));
    auto it = std::find_if(defaults.begin(), defaults.end(), [&](const FitParameter& p) { return p.name == name; });
    if (it != defaults.end()) {
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

std::optional<FitUse> fit_use(const PreparedRow& p) {
  if (!p.ok() || !p.scenario.primary) return std::nullopt;
  const Observation& o = p.scenario.observations[*p.scenario.primary];
  return FitUse{&p, p.observation_out[*p.scenario.primary], o.reported, o.factor};
}

double fit_prediction(const Engine& engine, const FitUse& u, const std::vector<double>& values) {
  return engine.evaluate(*u.row, &values)[u.out] * u.factor;
}

// d ln(prediction) / d z_j by central differences in the fit's free space.
std::vector<double> log_gradient(const Engine& engine, const FitUse& u, const std::vector<FitParameter>& params, const std::vector<double>& values) {
  constexpr double h = 1e-3;
  std::vector<double> g(params.size(), 0);
  for (size_t j = 0; j < params.size(); ++j) {
    const double z = to_free(params[j], values[j]);
    std::vector<double> up = values, dn = values;
    up[j] = from_free(params[j], z + h);
    dn[j] = from_free(params[j], z - h);
    const double a = fit_prediction(engine, u, up), b = fit_prediction(engine, u, dn);
    g[j] = (a > 0 && b > 0) ? (std::log(a) - std::log(b)) / (2 * h) : 0;
  }
  return g;
}

// Which parameters move at least one of the rows' predictions. A parameter no row depends on (the score passes
// of materialising attention when the fit sees no such row, as in the fold that leaves out the only family that
// materialises its scores) has no value the data could choose: the fit keeps it at its documented start instead
// of wherever the simplex happens to leave it, so a held-out family is predicted with the physical prior.
std::vector<bool> constrained_parameters(const Engine& engine, const std::vector<FitUse>& uses, const std::vector<FitParameter>& params) {
  std::vector<double> start;
  for (const auto& p : params) start.push_back(p.start);
  std::vector<bool> moved(params.size(), false);
  for (const auto& u : uses) {
    const std::vector<double> g = log_gradient(engine, u, params, start);
    for (size_t j = 0; j < g.size(); ++j) moved[j] = moved[j] || std::fabs(g[j]) > 1e-9;
  }
  return moved;
}

FitValues fit_values(const Engine& engine, const std::vector<FitUse>& uses, const std::vector<FitParameter>& params) {
  if (uses.empty()) throw PresetError("no tier-A row could be built, so there is nothing to fit");
  FitValues fit;
  std::vector<double> z0;
  for (const auto& p : params) z0.push_back(to_free(p, p.start));
  // Only the parameters some row depends on are fitted; the others stay at their starts (see above).
  const std::vector<bool> constrained = constrained_parameters(engine, uses, params);
  std::vector<size_t> fitted;
  for (size_t i = 0; i < params.size(); ++i)
    if (constrained[i]) fitted.push_back(i);
  auto values_of = [&](const std::vector<double>& zf) {
    std::vector<double> z = z0;
    for (size_t k = 0; k < fitted.size(); ++k) z[fitted[k]] = zf[k];
    std::vector<double> v(z.size());
    for (size_t i = 0; i < z.size(); ++i) v[i] = from_free(params[i], z[i]);
    return v;
  };
  auto objective = [&](const std::vector<double>& zf) {
    std::vector<double> v = values_of(zf);
    double s = 0;
    for (const auto& u : uses) {
      double pred = fit_prediction(engine, u, v);
      if (!(pred > 0) || !std::isfinite(pred)) return double(INFINITY);
      s += std::fabs(std::log(pred / u.reported));
    }
    return s / double(uses.size());
  };
  std::vector<double> zf0;
  for (size_t i : fitted) zf0.push_back(z0[i]);
  fit.objective_start = objective(zf0);
  if (fitted.empty()) {
    fit.values = values_of(zf0);
    fit.objective = fit.objective_start;
    return fit;
  }
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
  std::vector<double> best = nelder_mead(objective, zf0, 0.5, 1500, 1e-10, &evals);
  double best_f = objective(best);
  for (size_t k = 1; k <= kStarts; ++k) {
    std::vector<double> zs(fitted.size());
    for (size_t m = 0; m < fitted.size(); ++m) {
      const size_t i = fitted[m];
      const double u = halton(k, primes[i % 12]);
      zs[m] = params[i].share ? -2.5 + 5 * u : z0[i] - 1.5 + 3 * u;
    }
    std::vector<double> z = nelder_mead(objective, zs, 0.5, 1500, 1e-10, &evals);
    const double f = objective(z);
    if (f < best_f - 1e-12) best_f = f, best = z;
  }
  std::vector<double> z = nelder_mead(objective, best, 0.1, 4000, 1e-12, &evals);
  fit.values = values_of(z);
  fit.objective = objective(z);
  fit.evaluations = evals;
  return fit;
}

FitUncertainty fit_uncertainty(const Engine& engine, const std::vector<FitUse>& uses, const std::vector<FitParameter>& params,
                               const std::vector<double>& values) {
  FitUncertainty u;
  u.parameters = params;
  u.values = values;
  const size_t k = params.size(), n = uses.size();
  std::vector<std::vector<double>> jtj(k, std::vector<double>(k, 0));
  double ss = 0;
  for (const auto& use : uses) {
    const double pred = fit_prediction(engine, use, values);
    const double r = std::log(pred / use.reported);
    ss += r * r;
    auto g = log_gradient(engine, use, params, values);
    for (size_t a = 0; a < k; ++a)
      for (size_t b = 0; b < k; ++b) jtj[a][b] += g[a] * g[b];
  }
  // The textbook scale: the root-mean-square residual over n - k degrees of freedom. (A robust scale,
  // 1.4826 x the median |residual|, covered only 67% of the cross-validated rows: the model's errors
  // out of family are heavier-tailed than its fit's core.)
  u.sigma = n > k ? std::sqrt(ss / double(n - k)) : std::sqrt(ss / double(std::max<size_t>(n, 1)));
  // Posterior covariance (J^T J / sigma^2 + I / tau^2)^-1 with a prior of tau = kPriorSd in the free space
  // (a factor e either way on a positive value, about +-0.25 on a share near one half): a parameter the
  // rows do not constrain (score passes when no materialising-attention row is fitted) keeps its prior
  // width instead of an unbounded variance.
  constexpr double kPriorSd = 1.0;
  const double s2 = std::max(u.sigma * u.sigma, 1e-12);
  std::vector<std::vector<double>> a = jtj, inv(k, std::vector<double>(k, 0));
  for (size_t i = 0; i < k; ++i) {
    for (size_t j = 0; j < k; ++j) a[i][j] /= s2;
    a[i][i] += 1 / (kPriorSd * kPriorSd), inv[i][i] = 1;
  }
  for (size_t c = 0; c < k; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < k; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    std::swap(a[c], a[piv]), std::swap(inv[c], inv[piv]);
    const double d = a[c][c];
    for (size_t j = 0; j < k; ++j) a[c][j] /= d, inv[c][j] /= d;
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = a[r][c];
      for (size_t j = 0; j < k; ++j) a[r][j] -= f * a[c][j], inv[r][j] -= f * inv[c][j];
    }
  }
  u.covariance = inv;
  return u;
}

double prediction_log_sd(const Engine& engine, const FitUse& use, const FitUncertainty& u) {
  auto g = log_gradient(engine, use, u.parameters, u.values);
  double v = u.sigma * u.sigma;
  for (size_t a = 0; a < g.size(); ++a)
    for (size_t b = 0; b < g.size(); ++b) v += g[a] * u.covariance[a][b] * g[b];
  return std::sqrt(std::max(v, 0.0));
}

std::vector<uint32_t> fit_variables(const Registry& reg, const std::vector<FitParameter>& params) {
  std::vector<uint32_t> vary;
  for (const auto& p : params) vary.push_back(lookup_variable(reg, p.name, "fitted parameter"));
  return vary;
}

SearchChoice scenario_for_fit(const Registry& reg, const PresetLibrary& lib, Engine& engine, const RunRow& r, const std::vector<FitParameter>& params,
                              bool search) {
  SearchChoice out;
  out.scenario = map_row(reg, lib, r);
  if (!search || !out.scenario.unbuildable.empty() || out.scenario.unstated.empty()) return out;
  // Unstated settings are chosen with the parameters at their documented starts, not at any fitted
  // value, so the choice does not depend on the rows a fit is later tested on.
  RowScenario probe = out.scenario;
  for (const auto& p : params) probe.assign[p.name] = p.start;
  SearchChoice c = choose_unstated(lib, probe, [&](const SearchProblem& q) { return strategy_search(engine, lib, q); });
  if (!c.searched) return out;
  for (const auto& p : params) {
    if (out.scenario.assign.count(p.name)) c.scenario.assign[p.name] = out.scenario.assign.at(p.name);
    else c.scenario.assign.erase(p.name);
  }
  return c;
}

FitResult calibrate(const Registry& reg, const PresetLibrary& lib, const std::vector<RunRow>& rows, const std::vector<FitParameter>& params) {
  FitResult fit;
  fit.parameters = params;
  const std::vector<uint32_t> vary = fit_variables(reg, params);
  Engine engine(reg, lib);
  std::vector<PreparedRow> prepared;
  prepared.reserve(rows.size());
  for (const auto& r : rows) {
    if (r.get("tier") != "A") continue;
    PreparedRow p = engine.prepare(scenario_for_fit(reg, lib, engine, r, params).scenario, vary);
    if (!p.ok()) {
      fit.skipped.push_back(p.scenario.id + ": " + p.error);
      continue;
    }
    if (!p.scenario.primary) {
      fit.skipped.push_back(p.scenario.id + ": no throughput reported");
      continue;
    }
    prepared.push_back(std::move(p));
  }
  std::vector<FitUse> uses;
  for (const auto& p : prepared) uses.push_back(*fit_use(p));
  FitValues v = fit_values(engine, uses, params);
  fit.values = v.values;
  fit.objective = v.objective;
  fit.objective_start = v.objective_start;
  fit.evaluations = v.evaluations;
  for (const auto& u : uses) fit.rows.push_back({u.row->scenario.id, u.row->scenario.group, u.reported, fit_prediction(engine, u, fit.values)});
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
  std::string ids;
  for (const auto& r : fit.rows) ids += (ids.empty() ? "" : ", ") + r.id;
  os << "  " << q("Rows used: " + ids + ".") << ",\n";
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

Calibration calibrate_runs(const Registry& reg, const PresetLibrary& lib, const CalibrateOptions& opt) {
  // Checked before the fit, which takes a while: a preset on disk is replaced only when asked to.
  if (!opt.out_path.empty() && !opt.force && (std::filesystem::exists(opt.out_path) || is_symlink(opt.out_path)))
    throw CsvError("'" + opt.out_path + "' exists; calibrate replaces a preset only with --force");
  const std::vector<std::string> paths = opt.runs_paths.empty() ? default_runs_paths(lib.dir(), opt.data_dir) : opt.runs_paths;
  // Provenance: every file's sha256, in order.
  std::vector<RunRow> rows;
  std::string runs_label, hashes;
  for (const auto& path : paths) {
    const std::string text = read_csv_text(path);
    std::vector<RunRow> part;
    try {
      part = runs_from_table(parse_csv(text));
    } catch (const CsvError& e) {
      throw CsvError(path + ": " + e.what());
    }
    for (auto& r : part) r.file = path;
    rows.insert(rows.end(), part.begin(), part.end());
    // Provenance names the published file the way a clone has it (data/runs/...), not this machine's path.
    const size_t at = path.rfind("data/runs/");
    runs_label += (runs_label.empty() ? "" : " + ") + (at == std::string::npos ? path : path.substr(at));
    hashes += (hashes.empty() ? "" : ", ") + sha256_hex(text.data(), text.size());
  }
  FitResult fit = calibrate(reg, lib, rows, opt.params.empty() ? default_fit_parameters(reg, lib) : fit_parameters(reg, lib, opt.params));
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::ostringstream date;
  date << std::put_time(&tm, "%Y-%m-%d");
  Calibration c;
  c.runs = paths;
  c.preset = fitted_preset_text(reg, fit, runs_label, hashes, date.str());
  c.fit = std::move(fit);
  if (!opt.out_path.empty()) {
    write_file_atomic(opt.out_path, c.preset);
    c.written = opt.out_path;
  }
  return c;
}

void to_json(nlohmann::ordered_json& j, const Calibration& c) {
  const FitResult& fit = c.fit;
  j = nlohmann::ordered_json::object();
  j["runs"] = c.runs;
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
}

}  // namespace gs::validate
