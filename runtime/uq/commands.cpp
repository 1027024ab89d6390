#include "runtime/uq/commands.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "image/atomic_file.h"
#include "runtime/dist/dist.h"
#include "runtime/format.h"
#include "runtime/jit/object_cache.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/uq/plan.h"
#include "runtime/uq/parallel.h"
#include "runtime/uq/sweep_spec.h"
#include "runtime/uq/uncertainty.h"
#include "runtime/workers.h"

namespace gs {
namespace {

using json = nlohmann::ordered_json;

std::string base_unit(const Registry& reg, uint32_t var) { return reg.units().describe(reg.var(var).dim); }

// The plan of the targets with `vary` as extra inputs; exits through PresetError when the scenario
// leaves inputs missing (bad input, exit 2), naming them.
Plan complete_plan(const Registry& reg, const ScenarioPoint& s, const std::vector<uint32_t>& targets, const std::vector<uint32_t>& vary) {
  Plan plan(reg, s.assignments, s.variants, targets, vary);
  if (!plan.complete()) throw PresetError(plan.describe_missing());
  return plan;
}

// The unit a swept input's CSV column is written in: the one its --vary text used, else its declared unit.
const std::string& axis_unit(const Registry& reg, const SweepAxis& a) { return a.unit.empty() ? reg.var(a.var).unit : a.unit; }
double axis_scale(const Registry& reg, const SweepAxis& a) { return a.unit.empty() ? reg.var(a.var).unit_scale : a.scale; }

std::string csv_number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

void write_sweep_file(const Registry& reg, const std::string& path, const SweepResult& r) {
  std::string text;
  const bool as_json = path.size() >= 5 && path.substr(path.size() - 5) == ".json";
  const size_t nt = r.targets.size();
  if (as_json) {
    json j;
    json units = json::object();
    for (const auto& a : r.axes) units[reg.var(a.var).name] = base_unit(reg, a.var);
    for (uint32_t t : r.targets) units[reg.var(t).name] = base_unit(reg, t);
    j["units"] = units;
    json rows = json::array();
    for (size_t p = 0; p < r.points; ++p) {
      json row = json::object();
      for (size_t a = 0; a < r.axes.size(); ++a) row[reg.var(r.axes[a].var).name] = r.axis_value(a, p);
      for (size_t t = 0; t < nt; ++t) row[reg.var(r.targets[t]).name] = r.y[p * nt + t];
      if (!r.fits.empty()) row[r.fits_column] = r.fits[p] != 0;
      rows.push_back(row);
    }
    j["rows"] = rows;
    text = j.dump(1) + "\n";
  } else {
    // CSV for people and spreadsheets, each column headed "name[unit]": a swept input in the unit its
    // --vary gave (else its declared unit), a target in its declared unit, so headers do not depend on
    // the values. JSON above stays in SI base units.
    std::vector<std::string> head;
    for (const auto& a : r.axes) head.push_back(reg.var(a.var).name + "[" + axis_unit(reg, a) + "]");
    for (uint32_t t : r.targets) head.push_back(reg.var(t).name + "[" + reg.var(t).unit + "]");
    if (!r.fits.empty()) head.push_back(r.fits_column);  // 1: the layout fits in HBM, 0: it does not
    for (size_t i = 0; i < head.size(); ++i) text += (i ? "," : "") + head[i];
    text += "\n";
    for (size_t p = 0; p < r.points; ++p) {
      for (size_t a = 0; a < r.axes.size(); ++a) text += (a ? "," : "") + csv_number(r.axis_value(a, p) / axis_scale(reg, r.axes[a]));
      for (size_t t = 0; t < nt; ++t)
        text += (r.axes.empty() && t == 0 ? "" : ",") + csv_number(r.y[p * nt + t] / reg.var(r.targets[t]).unit_scale);
      if (!r.fits.empty()) text += r.fits[p] ? ",1" : ",0";
      text += "\n";
    }
  }
  write_file_atomic(path, text);
}

// The uncertain inputs that the compiled cone reads (the others cannot move the target), as columns.
std::vector<UncertainInput> uncertain_columns(const ScenarioPoint& s, const Plan& c) {
  std::vector<UncertainInput> inputs;
  for (const auto& [var, dist] : s.uncertain)
    if (auto col = c.column(var)) inputs.push_back({*col, dist});
  return inputs;
}

std::vector<uint32_t> uncertain_vars(const ScenarioPoint& s) {
  std::vector<uint32_t> v;
  for (const auto& [var, dist] : s.uncertain) v.push_back(var);
  return v;
}

// Names of the uncertain inputs that reach the cone, in the order of uncertain_columns().
std::vector<uint32_t> uncertain_vars_in(const ScenarioPoint& s, const Plan& c) {
  std::vector<uint32_t> v;
  for (const auto& [var, dist] : s.uncertain)
    if (c.column(var)) v.push_back(var);
  return v;
}

void require_uncertainty(const ScenarioPoint& s) {
  if (s.uncertain.empty())
    throw PresetError("the scenario gives no uncertain inputs; add an [uncertainty] table to the preset (see docs/presets.md)");
}

// Points of the sweep: the grid's size (checked: 65536^4 does not wrap to 0) or the zipped lists' length.
size_t sweep_points(const std::vector<SweepAxis>& axes, bool zip, size_t targets) {
  size_t points = axes.empty() ? 1 : (zip ? axes[0].values.size() : 1);
  for (const auto& a : axes) {
    if (zip && a.values.size() != points) throw PresetError("--zip needs lists of equal length");
    if (!zip && __builtin_mul_overflow(points, a.values.size(), &points)) points = SIZE_MAX;
  }
  size_t values = 0;
  if (__builtin_mul_overflow(points, std::max<size_t>(targets, 1), &values) || values > kMaxSweepValues) {
    std::string size = points == SIZE_MAX ? "more than 2^64 points" : std::to_string(points) + " points";
    throw PresetError("the sweep has " + size + (targets > 1 ? " x " + std::to_string(targets) + " targets" : "") +
                      ", more than the " + std::to_string(kMaxSweepValues) + " values a sweep may hold; use fewer values per --vary, or --zip");
  }
  return points;
}

// Worker threads for a request: 0 means every core; more than kMaxThreads is refused (CLI checks too).
unsigned thread_count(unsigned requested) {
  if (requested > kMaxThreads) throw PresetError("--threads " + std::to_string(requested) + " is more than " + std::to_string(kMaxThreads));
  return requested ? requested : default_threads();
}

// Monte Carlo and Sobol sizes, refused before any allocation: zero samples would summarise nothing
// (and print zeros as an answer); the Sobol design evaluates N x (k + 2) rows.
void check_samples(size_t samples, size_t rows_per_sample, const char* what) {
  if (samples == 0) throw PresetError(std::string("--samples must be at least 1 for ") + what);
  size_t rows = 0;
  if (__builtin_mul_overflow(samples, rows_per_sample, &rows) || rows > kMaxSamples)
    throw PresetError("--samples " + std::to_string(samples) + " asks for more than " + std::to_string(kMaxSamples) + " evaluations for " +
                      what + (rows_per_sample > 1 ? " (N x " + std::to_string(rows_per_sample) + ")" : "") + "; use fewer samples");
}

}  // namespace

double SweepResult::axis_value(size_t a, size_t p) const {
  if (zip) return axes[a].values[p];
  for (size_t b = axes.size(); b-- > a + 1;) p /= axes[b].values.size();
  return axes[a].values[p % axes[a].values.size()];
}

std::vector<SweepAxis> parse_sweep_axes(const Registry& reg, const std::vector<std::string>& specs, size_t max_values) {
  std::vector<SweepAxis> axes;
  for (const auto& text : specs) {
    const auto eq = text.find('=');
    if (eq == std::string::npos) throw PresetError("bad --vary '" + text + "': expected NAME=SPEC");
    const uint32_t var = lookup_variable(reg, text.substr(0, eq), "swept variable");
    const Variable& v = reg.var(var);
    SweepValues values = parse_sweep_spec(text.substr(eq + 1), reg.units(), v.dim, v.unit_scale, v.unit, max_values);
    if (!values.error.empty()) throw PresetError("bad --vary for " + v.name + ": " + values.error);
    axes.push_back({var, std::move(values.values), values.unit, values.scale});
  }
  return axes;
}

SweepResult run_sweep(const Registry& reg, const ScenarioPoint& s, const std::vector<uint32_t>& asked, std::vector<SweepAxis> axes,
                      bool zip, const std::string& engine, unsigned requested_threads, const std::function<void(size_t, size_t)>& progress,
                      const MemoryFitCheck* fit) {
  SweepResult r;
  // The memory check rides in the same cone: its two sides are evaluated as two more targets per point
  // and taken out of the result below. Only when the scenario prices its memory at all.
  std::vector<uint32_t> targets = asked;
  const bool check_fit = fit && check_memory_fit(reg, *fit, s.assignments, s.variants).has_value();
  if (check_fit) targets.push_back(fit->required), targets.push_back(fit->capacity);
  r.targets = targets, r.axes = std::move(axes), r.zip = zip, r.engine = engine;
  for (const auto& a : r.axes)
    if (a.values.empty()) throw PresetError("the sweep of " + reg.var(a.var).name + " has no values");
  r.points = sweep_points(r.axes, zip, targets.size());
  const unsigned threads = thread_count(requested_threads);
  const size_t points = r.points;
  r.y.assign(points * targets.size(), 0.0);
  std::function<void(size_t)> bar;
  if (progress) bar = [&](size_t done) { progress(done, points); };
  auto start = std::chrono::steady_clock::now();  // reset after a JIT compile: `seconds` times evaluation only
  std::vector<uint32_t> vary;
  for (const auto& a : r.axes) vary.push_back(a.var);
  if (engine == "ginac") {
    r.threads = 1;
    const Plan shape(reg, s.assignments, s.variants, targets, vary);
    for (const auto& a : r.axes)
      if (!shape.column(a.var)) r.inputs_not_read.push_back(a.var);
    // The reference evaluator: one exact symbolic resolution per point, on one thread (per MPI rank:
    // under mpirun each rank resolves its block of points and the blocks are shared, runtime/dist).
    const size_t nt = targets.size();
    dist::share_blocks(
        points,
        [&](dist::Block mine) {
          std::vector<double> y(mine.size() * nt);
          for (size_t p = mine.begin; p < mine.end; ++p) {
            auto assignments = s.assignments;
            for (size_t a = 0; a < r.axes.size(); ++a) assignments[r.axes[a].var] = r.axis_value(a, p);
            Resolver resolver(reg, assignments, s.variants);
            for (size_t t = 0; t < nt; ++t) y[(p - mine.begin) * nt + t] = resolver.resolve(targets[t]).number.value_or(NAN);
            if (bar && p % 256 == 0) bar(p);
          }
          return y;
        },
        [&](dist::Block block, const std::vector<double>& y) { std::copy(y.begin(), y.end(), r.y.begin() + long(block.begin * nt)); });
    if (bar) bar(points);
  } else if (engine == "jit") {
    r.threads = threads;
    // `--engine jit` is a request for machine code whatever the sweep's size.
    Plan c = complete_plan(reg, s, targets, vary);
    const CompiledCone& cone = c.cone(Evaluator::Jit);
    r.compile_ms = cone.compile_ms;
    start = std::chrono::steady_clock::now();
    // An axis outside the targets' cone has no column: the targets do not depend on it, so its points
    // repeat the same values (reported rather than refused: in a multi-target sweep, or a sweep kept for
    // its table, that is an answer, not an error).
    std::vector<std::pair<size_t, size_t>> columns;  // (axis, input column) for the axes the cone reads
    for (size_t a = 0; a < r.axes.size(); ++a)
      if (auto col = c.column(r.axes[a].var)) columns.emplace_back(a, *col);
      else r.inputs_not_read.push_back(r.axes[a].var);
    const size_t n_in = cone.n_inputs, n_out = cone.n_outputs;
    parallel_evaluate(
        cone, points, threads,
        [&](RowBlock& b) {
          for (size_t i = 0; i < b.rows; ++i) {
            std::copy(c.base().begin(), c.base().end(), b.inputs + i * n_in);
            for (const auto& [a, col] : columns) b.inputs[i * n_in + col] = r.axis_value(a, b.first_row + i);
          }
        },
        [&](const RowBlock& b) { std::copy(b.outputs, b.outputs + b.rows * n_out, r.y.begin() + long(b.first_row * n_out)); },
        bar);
  } else {
    throw PresetError("unknown --engine '" + engine + "': use jit or ginac");
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (check_fit) {
    const size_t n = targets.size(), k = asked.size();
    std::vector<double> y(points * k);
    r.fits.resize(points);
    for (size_t p = 0; p < points; ++p) {
      std::copy(r.y.begin() + long(p * n), r.y.begin() + long(p * n + k), y.begin() + long(p * k));
      const double required = r.y[p * n + k], capacity = r.y[p * n + k + 1];
      r.fits[p] = std::isfinite(required) && std::isfinite(capacity) && required <= capacity;
      r.not_fitting += !r.fits[p];
    }
    r.y.swap(y);
    r.targets = asked;
    r.fits_column = fit->column;
  }
  for (double v : r.y) r.nonfinite += !std::isfinite(v);
  return r;
}

JitCacheReport jit_cache_report() { return {jit_cache_dir(), jit_cache_stats()}; }

void to_json(json& j, const JitCacheReport& r) {
  j = json::object();
  j["dir"] = r.dir.empty() ? json(nullptr) : json(r.dir);
  j["loaded"] = r.stats.loaded, j["compiled"] = r.stats.compiled, j["stored"] = r.stats.stored, j["rejected"] = r.stats.rejected;
}

SweepReport sweep_report(const Registry& reg, const SweepResult& r, bool with_points) {
  SweepReport rep;
  rep.engine = r.engine, rep.threads = r.threads, rep.points = r.points, rep.seconds = r.seconds, rep.compile_ms = r.compile_ms;
  rep.jit_cache = jit_cache_report();
  rep.nonfinite = r.nonfinite;
  for (uint32_t v : r.inputs_not_read) rep.inputs_not_read.push_back(reg.var(v).name);
  for (size_t t = 0; t < r.targets.size(); ++t) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t p = 0; p < r.points; ++p)
      if (double v = r.y[p * r.targets.size() + t]; std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    SweepTargetRange range{r.targets[t], reg.var(r.targets[t]).name, base_unit(reg, r.targets[t]), std::nullopt, std::nullopt};
    if (std::isfinite(lo)) range.min = lo;
    if (std::isfinite(hi)) range.max = hi;
    rep.targets.push_back(std::move(range));
  }
  rep.with_points = with_points;
  if (with_points) {
    for (size_t a = 0; a < r.axes.size(); ++a) {
      SweepAxisValues axis{reg.var(r.axes[a].var).name, base_unit(reg, r.axes[a].var), {}};
      for (size_t p = 0; p < r.points; ++p) axis.values.push_back(r.axis_value(a, p));
      rep.axes.push_back(std::move(axis));
    }
    for (size_t t = 0; t < r.targets.size(); ++t) {
      std::vector<double> col;
      for (size_t p = 0; p < r.points; ++p) col.push_back(r.y[p * r.targets.size() + t]);
      rep.values.push_back(std::move(col));
    }
  }
  return rep;
}

void to_json(json& j, const SweepReport& r) {
  const auto number = [](const std::optional<double>& x) { return x ? json(*x) : json(nullptr); };
  j = json::object();
  j["engine"] = r.engine;
  j["threads"] = r.threads;
  j["points"] = r.points;
  j["seconds"] = r.seconds;
  j["evaluations_per_second"] = r.seconds > 0 ? double(r.points) / r.seconds : 0.0;
  j["compile_ms"] = r.compile_ms;
  j["jit_cache"] = r.jit_cache;
  j["nonfinite"] = r.nonfinite;
  j["inputs_not_read"] = r.inputs_not_read;
  json tj = json::array();
  for (const auto& t : r.targets) tj.push_back({{"name", t.name}, {"unit", t.unit}, {"min", number(t.min)}, {"max", number(t.max)}});
  j["targets"] = tj;
  if (!r.out.empty()) j["out"] = r.out;
  if (r.fits) j["fits"] = {{"column", r.fits->column}, {"constraint", r.fits->constraint}, {"points_not_fitting", r.fits->points_not_fitting}};
  if (r.with_points) {
    json axes = json::array();
    for (const auto& a : r.axes) axes.push_back({{"name", a.name}, {"unit", a.unit}, {"values", a.values}});
    j["axes"] = axes;
    json ys = json::array();
    for (const auto& values : r.values) {
      json col = json::array();
      for (double v : values)
        if (std::isfinite(v)) col.push_back(v);
        else col.push_back(nullptr);
      ys.push_back(col);
    }
    j["values"] = ys;
  }
}

SweepReport sweep(const Registry& reg, const ScenarioPoint& s, const SweepRequest& req, const std::function<void(size_t, size_t)>& progress) {
  std::vector<uint32_t> targets;
  for (const auto& t : req.targets) targets.push_back(lookup_variable(reg, t, "target variable"));
  std::vector<SweepAxis> axes = parse_sweep_axes(reg, req.vary);
  const SweepResult r = run_sweep(reg, s, targets, std::move(axes), req.zip, req.engine, req.threads, progress, req.fit ? &*req.fit : nullptr);
  if (!req.out_path.empty() && dist::root()) write_sweep_file(reg, req.out_path, r);  // under mpirun, rank 0 alone writes
  SweepReport rep = sweep_report(reg, r, false);
  rep.out = req.out_path;
  if (!r.fits.empty()) rep.fits = SweepFitNote{r.fits_column, reg.relation(req.fit->constraint).name, r.not_fitting};
  return rep;
}

std::optional<Interval> interval_of(const Registry& reg, const ScenarioPoint& s, uint32_t target, size_t samples, uint64_t seed) {
  require_uncertainty(s);
  check_samples(samples, 1, "an uncertainty interval");
  Plan c = complete_plan(reg, s, {target}, uncertain_vars(s));
  auto inputs = uncertain_columns(s, c);
  if (inputs.empty()) return std::nullopt;  // no uncertain input reaches this target: it is a point value
  const RqmcSummary q = rqmc_summary(c.cone_for_rows(samples), c.base(), inputs, 0, samples, seed, default_threads());
  Interval i;
  i.p5 = q.pooled.p5, i.p50 = q.pooled.p50, i.p95 = q.pooled.p95, i.mean = q.pooled.mean;
  i.p5_se = q.p5_se, i.p50_se = q.p50_se, i.p95_se = q.p95_se;
  i.samples = q.pooled.samples, i.nonfinite = q.pooled.nonfinite, i.replicates = q.replicates;
  return i;
}

std::map<std::string, double> evaluate_in_units(const Registry& reg, const ScenarioPoint& s,
                                                const std::vector<std::pair<std::string, std::string>>& names_and_units) {
  std::vector<uint32_t> targets;
  std::vector<double> scales;
  std::vector<std::string> names;
  for (const auto& [name, unit] : names_and_units) {
    auto id = reg.find_var(name);
    if (!id) continue;
    std::string error;
    auto q = reg.units().parse(unit, &error);
    if (!q || !(q->dim == reg.var(*id).dim))
      throw PresetError("cannot express " + name + " (" + reg.var(*id).unit + ") in " + unit + (error.empty() ? "" : ": " + error));
    // A variable the scenario cannot compute (an input is missing) is left to the caller to supply.
    if (!Plan(reg, s.assignments, s.variants, {*id}).complete()) continue;
    targets.push_back(*id), scales.push_back(q->scale), names.push_back(name);
  }
  std::map<std::string, double> out;
  if (targets.empty()) return out;
  const std::vector<double> y = complete_plan(reg, s, targets, {}).evaluate_base();
  for (size_t i = 0; i < targets.size(); ++i) out[names[i]] = y[i] / scales[i];
  return out;
}

UncertaintyResult run_uncertainty(const Registry& reg, const ScenarioPoint& s, uint32_t target, size_t samples, uint64_t seed,
                                  unsigned requested_threads, bool keep_samples, bool streaming) {
  require_uncertainty(s);
  check_samples(samples, 1, "an uncertainty interval");
  const unsigned threads = thread_count(requested_threads);
  const auto start = std::chrono::steady_clock::now();
  Plan c = complete_plan(reg, s, {target}, uncertain_vars(s));
  UncertaintyResult r;
  r.target = target, r.seed = seed;
  r.streamed = !keep_samples && (streaming || samples >= kStreamingSamples);
  const CompiledCone& cone = c.cone_for_rows(r.streamed ? 3 * samples : samples);
  if (r.streamed) {
    r.summary = monte_carlo_summary(cone, c.base(), uncertain_columns(s, c), 0, samples, seed, threads);
  } else {
    auto y = monte_carlo(cone, c.base(), uncertain_columns(s, c), samples, seed, threads);
    if (keep_samples) r.samples = y[0];
    r.summary = summarize(std::move(y[0]));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

SensitivityResult run_sensitivity(const Registry& reg, const ScenarioPoint& s, uint32_t target, size_t samples, uint64_t seed,
                                  unsigned requested_threads) {
  require_uncertainty(s);
  check_samples(samples, s.uncertain.size() + 2, "Sobol indices");
  const unsigned threads = thread_count(requested_threads);
  Plan c = complete_plan(reg, s, {target}, uncertain_vars(s));
  auto inputs = uncertain_columns(s, c);
  if (inputs.empty()) throw PresetError("none of the preset's uncertain inputs reaches " + reg.var(target).name);
  const CompiledCone& cone = c.cone_for_rows(samples * (inputs.size() + 2));
  SobolIndices sob = sobol(cone, c.base(), inputs, 0, samples, seed, threads);
  if (!(sob.variance > 0) || !std::isfinite(sob.variance))
    throw PresetError(reg.var(target).name + " does not vary (or is not finite) under the preset's uncertain inputs; Sobol indices are undefined");
  // Local elasticities d ln y / d ln x at each input's mean, by a central difference on the compiled cone.
  std::vector<double> point = c.base();
  for (const auto& u : inputs) point[u.column] = u.dist.mean();
  double y0 = 0;
  cone.one(point.data(), &y0);
  const std::vector<uint32_t> vars = uncertain_vars_in(s, c);
  SensitivityResult r;
  r.target = target, r.samples = samples, r.seed = seed, r.evaluations = sob.evaluations, r.variance = sob.variance;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& u = inputs[i];
    const double x = point[u.column], h = 1e-6;
    auto p = point;
    double up = 0, down = 0;
    p[u.column] = x * (1 + h);
    cone.one(p.data(), &up);
    p[u.column] = x * (1 - h);
    cone.one(p.data(), &down);
    r.inputs.push_back({vars[i], u.dist, sob.first[i], sob.total[i], (up - down) / (2 * h * y0)});
  }
  std::stable_sort(r.inputs.begin(), r.inputs.end(), [](const SensitivityInput& a, const SensitivityInput& b) { return a.total > b.total; });
  return r;
}

void to_json(json& j, const UncertaintyReport& r) {
  const Summary& sum = r.result.summary;
  j = json::object();
  j["target"] = r.target, j["unit"] = r.unit, j["samples"] = sum.samples, j["seed"] = r.result.seed;
  j["nonfinite"] = sum.nonfinite, j["mean"] = sum.mean, j["sd"] = sum.sd, j["median"] = sum.p50;
  j["p5"] = sum.p5, j["p95"] = sum.p95, j["min"] = sum.min, j["max"] = sum.max, j["seconds"] = r.result.seconds;
  j["summary"] = r.result.streamed ? "streaming" : "selection";
  j["jit_cache"] = r.jit_cache;
  json inputs = json::array();
  for (const auto& in : r.inputs) inputs.push_back({{"name", in.name}, {"distribution", in.distribution}, {"unit", in.unit}});
  j["inputs"] = inputs;
  j["histogram"] = {{"edges", sum.bin_edges}, {"counts", sum.bin_counts}};
}

UncertaintyReport uncertainty(const Registry& reg, const ScenarioPoint& s, const SamplingRequest& req) {
  const uint32_t target = lookup_variable(reg, req.target, "target variable");
  UncertaintyReport rep;
  rep.result = run_uncertainty(reg, s, target, req.samples, req.seed, req.threads, false, req.streaming);
  rep.target = reg.var(target).name, rep.unit = base_unit(reg, target);
  rep.jit_cache = jit_cache_report();
  for (const auto& [var, dist] : s.uncertain) rep.inputs.push_back({reg.var(var).name, dist.describe(), base_unit(reg, var)});
  return rep;
}

void to_json(json& j, const SensitivityReport& r) {
  j = json::object();
  j["target"] = r.target, j["samples"] = r.samples, j["seed"] = r.seed, j["evaluations"] = r.evaluations;
  j["variance"] = r.variance;
  j["estimators"] = {{"first_order", "Saltelli et al. 2010"}, {"total_order", "Jansen 1999"}};
  json rows = json::array();
  for (const auto& in : r.inputs)
    rows.push_back({{"name", in.name}, {"first_order", in.first}, {"total_order", in.total}, {"elasticity", in.elasticity},
                    {"distribution", in.distribution}});
  j["inputs"] = rows;
}

SensitivityReport sensitivity(const Registry& reg, const ScenarioPoint& s, const SamplingRequest& req) {
  const uint32_t target = lookup_variable(reg, req.target, "target variable");
  const SensitivityResult r = run_sensitivity(reg, s, target, req.samples, req.seed, req.threads);
  SensitivityReport rep;
  rep.target = reg.var(target).name, rep.samples = req.samples, rep.seed = req.seed, rep.evaluations = r.evaluations, rep.variance = r.variance;
  for (const auto& in : r.inputs) rep.inputs.push_back({reg.var(in.var).name, in.first, in.total, in.elasticity, in.dist.describe()});
  return rep;
}

}  // namespace gs
