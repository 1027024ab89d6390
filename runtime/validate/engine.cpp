#include "runtime/validate/engine.h"

#include <algorithm>
#include <cmath>

#include "runtime/strategy/space.h"
#include "runtime/uq/plan.h"
#include "runtime/validate/mapping_table.h"

namespace gs::validate {

Engine::Engine(const Registry& reg, const PresetLibrary& lib) : reg_(reg), lib_(lib) {}
Engine::~Engine() = default;

const strategy::StrategySpace& Engine::strategy_space(const std::string& path) {
  std::lock_guard<std::mutex> lock(spaces_mutex_);
  auto& space = spaces_[path];
  if (!space) space = std::make_shared<const strategy::StrategySpace>(strategy::load_strategy_space(reg_, path));
  return *space;
}

PreparedRow Engine::prepare(const RowScenario& scenario, const std::vector<uint32_t>& vary, const std::vector<std::string>& extra) {
  PreparedRow p;
  p.scenario = scenario;
  if (!scenario.unbuildable.empty()) {
    p.error = scenario.unbuildable;
    return p;
  }
  try {
    ResolvedScenario rs = resolve_scenario(reg_, lib_, scenario);
    auto add_output = [&](const std::string& name) {
      uint32_t v = lookup_variable(reg_, name, "prediction target");
      auto it = std::find(p.outputs.begin(), p.outputs.end(), v);
      if (it != p.outputs.end()) return size_t(it - p.outputs.begin());
      p.outputs.push_back(v);
      return p.outputs.size() - 1;
    };
    for (const auto& o : scenario.observations) p.observation_out.push_back(add_output(o.target));
    for (const auto& b : mapping_table(lib_.dir()).breakdown) add_output(b);
    for (const auto& e : extra) p.extra_out.push_back(add_output(e));
    // Assignments other than `vary` are baked in, so the interpreter folds everything the calibration's
    // parameters do not reach; a row's cone is then a handful of operations, and no row pays for LLVM.
    Plan plan(reg_, rs.assignments, rs.variants, p.outputs, vary);
    if (!plan.complete()) {
      std::string names;
      for (size_t i = 0; i < plan.missing().size() && i < 24; ++i) names += (i ? ", " : "") + reg_.var(plan.missing()[i]).name;
      if (plan.missing().size() > 24) names += ", ... (" + std::to_string(plan.missing().size()) + " in all)";
      p.error = "the scenario leaves model inputs unassigned: " + names;
      return p;
    }
    for (uint32_t v : vary) p.vary_inputs.push_back(plan.column(v).value_or(plan.base().size()));  // size(): outside the cone
    p.base = plan.base();
    p.cone = plan.cone_for_rows(1);  // one row at a time: the interpreter (unless `--evaluator jit`)
  } catch (const std::exception& e) {
    p.error = e.what();
  }
  return p;
}

std::vector<double> Engine::evaluate(const PreparedRow& row, const std::vector<double>* vary_values) const {
  std::vector<double> in = row.base, out(row.outputs.size(), NAN);
  if (vary_values)
    for (size_t i = 0; i < row.vary_inputs.size() && i < vary_values->size(); ++i)
      if (row.vary_inputs[i] < in.size()) in[row.vary_inputs[i]] = (*vary_values)[i];
  row.cone.one(in.data(), out.data());
  return out;
}

}  // namespace gs::validate
