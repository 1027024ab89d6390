#include "runtime/site/charts.h"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "runtime/format.h"
#include "runtime/resolver.h"
#include "runtime/strategy/search.h"
#include "runtime/strategy/space.h"
#include "runtime/symbolic.h"
#include "runtime/toml_file.h"
#include "runtime/uq/commands.h"

namespace gs::site {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// Chart work runs on two threads: exports happen beside other work, and results do not depend on the count.
constexpr unsigned kThreads = 2;

[[noreturn]] void fail(const std::string& path, const toml::node& where, const std::string& message) {
  const auto& s = where.source();
  throw PresetError(path + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column) + ": " + message +
                    "; hint: see the comments at the top of presets/site/charts.toml");
}

const toml::node& need(const std::string& path, const toml::table& t, const char* key, const std::string& what) {
  const toml::node* n = t.get(key);
  if (!n) fail(path, t, what + " needs '" + key + "'");
  return *n;
}

uint32_t variable(const Registry& reg, const std::string& path, const toml::node& n, const std::string& what) {
  auto s = n.value<std::string>();
  if (!s) fail(path, n, what + " must be a variable name (a string)");
  try {
    return lookup_variable(reg, *s, what);
  } catch (const PresetError& e) {
    fail(path, n, e.what());
  }
}

double number(const std::string& path, const toml::node& n, const std::string& what, double lo, double hi) {
  auto v = n.value<double>();
  if (!v || !std::isfinite(*v) || *v < lo || *v > hi)
    fail(path, n, what + " must be a number from " + format_number(lo) + " to " + format_number(hi));
  return *v;
}

ChartAxis axis(const Registry& reg, const std::string& path, const toml::table& t, const std::string& what) {
  ChartAxis a;
  a.var = variable(reg, path, need(path, t, "vary", what), what + ".vary");
  a.from = number(path, need(path, t, "from", what), what + ".from", 1e-6, 1e6);
  a.to = number(path, need(path, t, "to", what), what + ".to", 1e-6, 1e6);
  a.points = size_t(number(path, need(path, t, "points", what), what + ".points", 2, 200));
  if (const toml::node* s = t.get("spacing")) {
    auto text = s->value<std::string>();
    if (!text || (*text != "log" && *text != "linear")) fail(path, *s, what + ".spacing must be \"log\" or \"linear\"");
    a.log = *text == "log";
  }
  return a;
}

std::optional<double> finite_number(std::optional<double> d) { return d && std::isfinite(*d) ? d : std::nullopt; }

// The preset's value of `var`: its assignment, else what the model resolves it to.
std::optional<double> preset_value(const Registry& reg, const Preset& p, uint32_t var) {
  if (auto it = p.assignments.find(var); it != p.assignments.end()) return it->second;
  Resolver resolver(reg, p.assignments, p.variants);
  return finite_number(resolver.resolve(var).number);
}

SweepAxis sweep_axis(const Registry& reg, const Preset& p, const ChartAxis& a) {
  auto base = preset_value(reg, p, a.var);
  if (!base) throw PresetError("the preset leaves " + reg.var(a.var).name + " unresolved, so it cannot be swept around its value");
  SweepAxis out;
  out.var = a.var;
  for (double f : a.factors()) out.values.push_back(*base * f);
  return out;
}

json sweep_json(const Registry& reg, const Preset& p, const ScenarioPoint& sp, const ChartSweep& s) {
  SweepAxis ax = sweep_axis(reg, p, s.axis);
  std::vector<double> factors = s.axis.factors();
  SweepResult r = run_sweep(reg, sp, s.targets, {ax}, false, "jit", kThreads);
  json series = json::array();
  for (size_t t = 0; t < r.targets.size(); ++t) {
    json y = json::array();
    for (size_t i = 0; i < r.points; ++i) {
      double v = r.y[i * r.targets.size() + t];
      y.push_back(std::isfinite(v) ? json(v) : json(nullptr));
    }
    series.push_back({{"target", r.targets[t]}, {"y", y}});
  }
  json not_read = json::array();
  for (uint32_t v : r.inputs_not_read) not_read.push_back(v);
  return {{"vary", ax.var}, {"base", ax.values[0] / factors[0]}, {"factors", factors}, {"x", ax.values},
          {"series", series}, {"inputs_not_read", not_read}};
}

json heatmap_json(const Registry& reg, const Preset& p, const ScenarioPoint& sp, const ChartSettings& c) {
  SweepAxis x = sweep_axis(reg, p, *c.heat_x), y = sweep_axis(reg, p, *c.heat_y);
  // The grid varies the last axis fastest: y outer, x inner, so row j of z is one value of y.
  SweepResult r = run_sweep(reg, sp, {c.heat_target}, {y, x}, false, "jit", kThreads);
  json z = json::array();
  for (size_t j = 0; j < y.values.size(); ++j) {
    json row = json::array();
    for (size_t i = 0; i < x.values.size(); ++i) {
      double v = r.y[j * x.values.size() + i];
      row.push_back(std::isfinite(v) ? json(v) : json(nullptr));
    }
    z.push_back(std::move(row));
  }
  return {{"target", c.heat_target}, {"x", {{"vary", x.var}, {"values", x.values}, {"factors", c.heat_x->factors()}}},
          {"y", {{"vary", y.var}, {"values", y.values}, {"factors", c.heat_y->factors()}}}, {"z", z}};
}

json distribution_json(const Registry& reg, const ScenarioPoint& sp, const ChartSettings& c) {
  UncertaintyResult r = run_uncertainty(reg, sp, c.target, c.distribution_samples, c.seed, kThreads);
  const Summary& s = r.summary;
  return {{"target", c.target}, {"samples", s.samples}, {"seed", c.seed}, {"nonfinite", s.nonfinite},
          {"mean", s.mean}, {"sd", s.sd}, {"p5", s.p5}, {"p50", s.p50}, {"p95", s.p95}, {"min", s.min}, {"max", s.max},
          {"edges", s.bin_edges}, {"counts", s.bin_counts}};
}

json sobol_json(const Registry& reg, const ScenarioPoint& sp, const ChartSettings& c) {
  SensitivityResult r = run_sensitivity(reg, sp, c.target, c.sobol_samples, c.seed, kThreads);
  json inputs = json::array();
  for (const auto& in : r.inputs)
    inputs.push_back({{"var", in.var}, {"distribution", in.dist.describe()}, {"first", in.first}, {"total", in.total},
                      {"elasticity", in.elasticity}});
  return {{"target", c.target}, {"samples", r.samples}, {"seed", r.seed}, {"evaluations", r.evaluations},
          {"variance", r.variance}, {"inputs", inputs}};
}

json plan_json(const Registry& reg, const std::string& presets_dir, const ScenarioPoint& sp, const ChartSettings& c) {
  const strategy::StrategySpace space = strategy::load_strategy_space(reg, strategy::default_space_path(presets_dir));
  std::optional<size_t> throughput, memory;
  for (size_t i = 0; i < space.report.size(); ++i) {
    if (space.report[i].name == c.plan_throughput) throughput = i;
    if (space.report[i].name == c.plan_memory) memory = i;
  }
  if (!throughput || !memory)
    throw PresetError(c.path + ": [plan] names the report columns '" + c.plan_throughput + "' and '" + c.plan_memory +
                      "', which " + space.path + " does not both have");
  strategy::StrategyRequest req;
  req.top = c.plan_top;
  req.threads = kThreads;
  strategy::StrategyResult r = strategy::search_strategies(reg, sp, space, req);
  json cands = json::array();
  for (const auto& cand : r.ranked) {
    json layout = json::object();
    for (size_t k = 0; k < r.knob_names.size() && k < cand.knobs.size(); ++k)
      layout[r.knob_names[k]] = strategy::knob_value_text(space, k, cand.knobs[k]);
    cands.push_back({{"rank", cands.size() + 1}, {"layout", layout}, {"objective", cand.objective},
                     {"throughput", cand.report[*throughput]}, {"memory", cand.report[*memory]}});
  }
  return {{"objective", r.objective}, {"objective_var", r.objective_var}, {"maximize", r.maximize},
          {"throughput_var", space.report[*throughput].var}, {"memory_var", space.report[*memory].var},
          {"enumerated", r.enumerated}, {"feasible", r.feasible}, {"top", c.plan_top}, {"candidates", cands}};
}

// Runs one chart; a failure becomes {"error": why} and a note, so one missing input never empties the site.
template <class F>
json attempt(const std::string& preset, const char* chart, std::vector<std::string>& notes, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    std::string why = std::string(e.what()).substr(0, 400);
    notes.push_back("preset " + preset + ": " + chart + " chart empty: " + why);
    return {{"error", why}};
  }
}

}  // namespace

std::vector<double> ChartAxis::factors() const {
  std::vector<double> out;
  for (size_t i = 0; i < points; ++i) {
    double t = points > 1 ? double(i) / double(points - 1) : 0;
    out.push_back(log ? from * std::pow(to / from, t) : from + (to - from) * t);
  }
  return out;
}

std::string chart_settings_path(const std::string& presets_dir) { return (fs::path(presets_dir) / "site" / "charts.toml").string(); }

ChartSettings load_chart_settings(const Registry& reg, const std::string& path) {
  const toml::table doc = read_toml_file(path);
  ChartSettings c;
  c.path = path;
  const std::string P = path;
  c.target = variable(reg, P, need(P, doc, "target", "the file"), "target");
  if (const toml::node* n = doc.get("distribution_samples")) c.distribution_samples = size_t(number(P, *n, "distribution_samples", 100, 1e6));
  if (const toml::node* n = doc.get("sobol_samples")) c.sobol_samples = size_t(number(P, *n, "sobol_samples", 64, 1e5));
  if (const toml::node* n = doc.get("seed")) c.seed = uint64_t(number(P, *n, "seed", 0, 9e15));
  if (const toml::node* n = doc.get("sweep")) {
    const toml::array* a = n->as_array();
    if (!a) fail(P, *n, "[[sweep]] must be an array of tables");
    for (const auto& item : *a) {
      if (!item.is_table()) fail(P, item, "each [[sweep]] must be a table");
      ChartSweep s;
      s.axis = axis(reg, P, *item.as_table(), "[[sweep]]");
      const toml::node& ts = need(P, *item.as_table(), "targets", "[[sweep]]");
      if (!ts.is_array() || ts.as_array()->empty()) fail(P, ts, "[[sweep]].targets must be a non-empty array of variable names");
      for (const auto& t : *ts.as_array()) s.targets.push_back(variable(reg, P, t, "[[sweep]].targets"));
      c.sweeps.push_back(std::move(s));
    }
  }
  if (const toml::node* n = doc.get("heatmap")) {
    if (!n->is_table()) fail(P, *n, "[heatmap] must be a table");
    const toml::table& h = *n->as_table();
    c.heat_target = variable(reg, P, need(P, h, "target", "[heatmap]"), "[heatmap].target");
    for (auto [key, slot] : {std::pair{"x", &c.heat_x}, std::pair{"y", &c.heat_y}}) {
      const toml::node& a = need(P, h, key, "[heatmap]");
      if (!a.is_table()) fail(P, a, std::string("[heatmap].") + key + " must be a table");
      *slot = axis(reg, P, *a.as_table(), std::string("[heatmap].") + key);
    }
  }
  const toml::node& w = need(P, doc, "waterfall", "the file");
  if (!w.is_table()) fail(P, w, "[waterfall] must be a table");
  c.waterfall_total = variable(reg, P, need(P, *w.as_table(), "total", "[waterfall]"), "[waterfall].total");
  c.waterfall_tokens = variable(reg, P, need(P, *w.as_table(), "tokens", "[waterfall]"), "[waterfall].tokens");
  c.waterfall_per_token = variable(reg, P, need(P, *w.as_table(), "per_token", "[waterfall]"), "[waterfall].per_token");
  const toml::node& pl = need(P, doc, "plan", "the file");
  if (!pl.is_table()) fail(P, pl, "[plan] must be a table");
  const toml::table& pt = *pl.as_table();
  c.plan_top = size_t(number(P, need(P, pt, "top", "[plan]"), "[plan].top", 1, 1000));
  auto text = [&](const char* key) {
    const toml::node& n = need(P, pt, key, "[plan]");
    auto s = n.value<std::string>();
    if (!s) fail(P, n, std::string("[plan].") + key + " must be a string");
    return *s;
  };
  c.plan_throughput = text("throughput");
  c.plan_memory = text("memory");
  return c;
}

json charts_json(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir, const std::vector<std::string>& presets,
                 const ChartSettings& c, std::vector<std::string>& notes) {
  json scen = json::array();
  for (const auto& name : presets) {
    const Preset p = lib.load(name);
    const ScenarioPoint sp{p.assignments, p.variants, p.uncertain};
    json j = {{"name", p.name}};
    json sweeps = json::array();
    for (const auto& s : c.sweeps) sweeps.push_back(attempt(name, "sweep", notes, [&] { return sweep_json(reg, p, sp, s); }));
    j["sweeps"] = sweeps;
    if (c.heat_x && c.heat_y) j["heatmap"] = attempt(name, "heat map", notes, [&] { return heatmap_json(reg, p, sp, c); });
    const std::string no_spread = "the preset gives no input a range or a distribution, so the answer is a point value";
    if (p.uncertain.empty()) {
      j["distribution"] = {{"error", no_spread}};
      j["sobol"] = {{"error", no_spread + "; the tornado shows elasticities instead"}};
    } else {
      j["distribution"] = attempt(name, "distribution", notes, [&] { return distribution_json(reg, sp, c); });
      j["sobol"] = attempt(name, "Sobol", notes, [&] { return sobol_json(reg, sp, c); });
    }
    j["plan"] = attempt(name, "plan", notes, [&] { return plan_json(reg, presets_dir, sp, c); });
    scen.push_back(std::move(j));
  }
  return {{"schema", "gpu-stack.site.charts.v1"},
          {"settings", fs::path(c.path).filename().string()},
          {"target", c.target},
          {"waterfall", {{"total", c.waterfall_total}, {"tokens", c.waterfall_tokens}, {"per_token", c.waterfall_per_token}}},
          {"scenarios", scen}};
}

}  // namespace gs::site
