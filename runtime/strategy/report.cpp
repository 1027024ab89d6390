#include "runtime/strategy/report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "runtime/format.h"

namespace gs::strategy {
namespace {

using json = nlohmann::ordered_json;

std::string layout_text(const StrategySpace& space, const StrategyResult& r, const Candidate& c) {
  std::string s;
  for (size_t i = 0; i < r.knob_names.size(); ++i) s += (i ? " " : "") + r.knob_names[i] + "=" + knob_value_text(space, i, c.knobs[i]);
  return s;
}

std::string quantity(const Registry& reg, uint32_t var, double v) { return format_quantity(reg.units(), reg.var(var), v); }

}  // namespace

std::string plan_text(const Registry& reg, const StrategySpace& space, const StrategyResult& r) {
  std::string out = fmt::format("plan: {} candidate layouts, {} passed the divisibility rules, {} fit and satisfy the model's constraints "
                                "(search {:.3f} s, cone ready in {:.0f} ms on the {})\n",
                                r.enumerated, r.evaluated, r.feasible, r.total_seconds, r.compile_ms, r.evaluator);
  out += "objective: " + r.objective + " (" + (r.maximize ? "maximise " : "minimise ") + reg.var(r.objective_var).name + ")\n";
  if (!r.limits.empty()) {
    std::string line;
    for (const auto& [name, value] : r.limits)
      if (const Limit* l = space.limit(name)) line += (line.empty() ? "" : ", ") + name + " = " + quantity(reg, l->var, value);
    out += "limits: " + line + "\n";
  }
  for (size_t i = 0; i < r.ranked.size(); ++i) {
    const Candidate& c = r.ranked[i];
    out += fmt::format("\n#{} {}\n", i + 1, layout_text(space, r, c));
    out += "   " + r.objective + " = " + quantity(reg, r.objective_var, c.objective) + "\n";
    std::string perf, mem;
    for (size_t k = 0; k < space.report.size(); ++k) {
      const auto& col = space.report[k];
      std::string item = col.name + " " + quantity(reg, col.var, c.report[k]);
      std::string& line = col.group == "memory" ? mem : perf;
      line += (line.empty() ? "" : ", ") + item;
    }
    if (!perf.empty()) out += "   " + perf + "\n";
    if (!mem.empty()) out += "   memory per GPU: " + mem + "\n";
  }
  if (r.ranked.empty()) out += "\nno layout is feasible: every candidate was rejected (see below); relax a --fix, add GPUs or memory\n";
  out += "\nrejected:\n";
  for (const auto& rej : r.rejections)
    if (rej.count) out += fmt::format("  {:>12}  {} ({}): {}\n", rej.count, rej.name, rej.kind, rej.description);
  return out;
}

std::string plan_json(const Registry& reg, const StrategySpace& space, const StrategyResult& r) {
  json j;
  j["objective"] = {{"name", r.objective}, {"variable", reg.var(r.objective_var).name}, {"sense", r.maximize ? "max" : "min"},
                    {"unit", reg.units().describe(reg.var(r.objective_var).dim)}};
  j["problem"] = r.problem;
  json limits = json::object();
  for (const auto& [name, value] : r.limits)
    if (const Limit* l = space.limit(name))
      limits[name] = {{"variable", reg.var(l->var).name}, {"value", value}, {"unit", reg.units().describe(reg.var(l->var).dim)}};
  j["limits"] = limits;
  j["enumerated"] = r.enumerated;
  j["evaluated"] = r.evaluated;
  j["feasible"] = r.feasible;
  j["seconds"] = r.total_seconds;
  j["evaluate_seconds"] = r.evaluate_seconds;
  j["compile_ms"] = r.compile_ms;
  j["evaluator"] = r.evaluator;
  json ranked = json::array();
  for (const Candidate& c : r.ranked) {
    json layout = json::object(), perf = json::object(), mem = json::object();
    for (size_t i = 0; i < r.knob_names.size(); ++i) {
      const std::string text = knob_value_text(space, i, c.knobs[i]);
      if (i < space.knobs.size() && !space.knobs[i].labels.empty()) layout[r.knob_names[i]] = text;
      else layout[r.knob_names[i]] = c.knobs[i];
    }
    for (size_t k = 0; k < space.report.size(); ++k) {
      const auto& col = space.report[k];
      json value = {{"variable", reg.var(col.var).name}, {"value", c.report[k]}, {"unit", reg.units().describe(reg.var(col.var).dim)}};
      (col.group == "memory" ? mem : perf)[col.name] = value;
    }
    ranked.push_back({{"layout", layout}, {"objective", c.objective}, {"metrics", perf}, {"memory_per_gpu", mem}});
  }
  j["ranked"] = ranked;
  json rej = json::array();
  for (const auto& x : r.rejections) rej.push_back({{"name", x.name}, {"kind", x.kind}, {"count", x.count}, {"description", x.description}});
  j["rejected"] = rej;
  return j.dump(2) + "\n";
}

}  // namespace gs::strategy
