#include "runtime/validate/search.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "runtime/format.h"
#include "runtime/presets.h"
#include "runtime/strategy/search.h"
#include "runtime/validate/mapping_table.h"

namespace gs::validate {
namespace {

// Whether the model constraint reads the HBM capacity (the memory check, counted apart from the others).
bool reads_capacity(const Registry& reg, const std::string& relation, uint32_t capacity) {
  auto id = reg.find_relation(relation);
  if (!id) return false;
  for (const Expr* e : {&reg.relation(*id).lhs, &reg.relation(*id).rhs})
    for (uint32_t v : expr_variables(*e))
      if (v == capacity) return true;
  return false;
}

// The narrowed space for the row: only the unstated knobs vary, the objective is the row's throughput
// while the job runs, and the one report column is the row's throughput comparison.
strategy::StrategySpace row_space(Engine& engine, const PresetLibrary& lib, const SearchProblem& p) {
  const Registry& reg = engine.registry();
  const MappingTable& M = mapping_table(lib.dir());
  std::map<std::string, std::vector<double>> free;
  for (const auto& k : p.knobs) free[k.knob] = k.values;
  strategy::StrategySpace space = strategy::narrow_space(engine.strategy_space(strategy::default_space_path(lib.dir())), free);
  space.objectives = {{"row_throughput", lookup_variable(reg, M.target("tokens_per_s"), "search objective"), true}};
  space.default_objective = "row_throughput";
  space.limits.clear();
  space.report.clear();
  if (p.scenario.primary)
    space.report.push_back({"primary", "", lookup_variable(reg, p.scenario.observations[*p.scenario.primary].target, "row comparison")});
  return space;
}

}  // namespace

SearchProblem search_problem(const PresetLibrary& lib, const RowScenario& s) {
  const MappingTable& M = mapping_table(lib.dir());
  SearchProblem p;
  p.scenario = s;
  for (const auto& [setting, note] : s.unstated) {
    (void)note;
    const auto& u = M.unstated_knob(setting);
    p.knobs.push_back({setting, u.knob, u.values});
  }
  return p;
}

SearchResult strategy_search(Engine& engine, const PresetLibrary& lib, const SearchProblem& p) {
  const Registry& reg = engine.registry();
  SearchResult r;
  try {
    const MappingTable& M = mapping_table(lib.dir());
    strategy::StrategySpace space = row_space(engine, lib, p);
    const ResolvedScenario rs = resolve_scenario(reg, lib, p.scenario);
    const ScenarioPoint point{rs.assignments, rs.variants, {}};
    strategy::StrategyRequest request;
    request.threads = 1;  // a few dozen candidates: threads would cost more than they save
    request.top = 1;
    for (const auto& k : p.knobs) request.top *= k.values.size();
    strategy::StrategyResult found;
    try {
      found = strategy::search_strategies(reg, point, space, request);
      r.memory_checked = true;
    } catch (const PresetError&) {
      // A scenario that cannot price its memory (or another constraint) is still searched, unchecked.
      space.constraints.clear();
      found = strategy::search_strategies(reg, point, space, request);
    }
    r.evaluated = found.evaluated;
    r.rejected_layout = found.enumerated - found.evaluated;
    const uint32_t capacity = lookup_variable(reg, M.var("hbm_capacity"), "search memory check");
    for (const auto& j : found.rejections) {
      if (j.kind == "constraint" && reads_capacity(reg, j.name, capacity)) r.rejected_memory += j.count;
      else if (j.kind != "rule") r.rejected_other += j.count;
    }
    for (const auto& [var, key] : found.variants) r.variants[reg.var(var).name] = key;
    std::map<std::string, std::string> setting_of;
    for (const auto& k : p.knobs) setting_of[k.knob] = k.setting;
    const double factor = p.scenario.primary ? p.scenario.observations[*p.scenario.primary].factor : 0;
    for (const auto& c : found.ranked) {
      RankedCandidate rc;
      for (size_t i = 0; i < space.knobs.size(); ++i)
        rc.settings[setting_of.at(space.knobs[i].name)] = strategy::knob_value_text(space, i, c.knobs[i]);
      for (size_t i = 0; i < c.knobs.size(); ++i)
        rc.assign[reg.var(i < space.knobs.size() ? space.knobs[i].var : space.derived[i - space.knobs.size()].var).name] = c.knobs[i];
      rc.tokens_per_s = c.objective;
      if (!c.report.empty()) rc.primary = c.report[0] * factor;
      if (rc.tokens_per_s > 0) r.ranked.push_back(std::move(rc));
    }
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

SearchChoice choose_unstated(const PresetLibrary& lib, const RowScenario& s, const SearchEngine& engine) {
  SearchChoice out;
  out.scenario = s;
  if (!s.unbuildable.empty() || s.unstated.empty() || !engine) return out;
  SearchProblem p = search_problem(lib, s);
  SearchResult r = engine(p);
  if (r.ranked.empty()) {
    out.scenario.assumptions.push_back("search over unstated settings found no feasible candidate" + (r.error.empty() ? "" : " (" + r.error.substr(0, 80) + ")") +
                                       ": the defaults stay");
    return out;
  }
  const MappingTable& M = mapping_table(lib.dir());
  const RankedCandidate& best = r.ranked.front();
  // The search's variants define their selectors now: a value the row assigned them gives way.
  for (const auto& [selector, key] : r.variants) {
    out.scenario.variants[selector] = key;
    out.scenario.assign.erase(selector);
  }
  for (const auto& [var, v] : best.assign) out.scenario.assign[var] = v;
  // The defaults' notes give way to the search's.
  auto& a = out.scenario.assumptions;
  for (const auto& [setting, note] : s.unstated)
    if (!note.empty()) a.erase(std::remove(a.begin(), a.end(), note), a.end());
  std::ostringstream os;
  os << "chosen by search:";
  for (const auto& [setting, text] : best.settings) os << " " << setting << " " << text << ";";
  double lo = best.primary, hi = best.primary;
  for (const auto& c : r.ranked)
    if (c.tokens_per_s >= best.tokens_per_s * (1 - M.near_best_pct / 100)) {
      ++out.near_best;
      lo = std::min(lo, c.primary), hi = std::max(hi, c.primary);
    }
  os << " " << r.ranked.size() << " feasible of " << (r.evaluated + r.rejected_layout) << " candidates (" << r.rejected_layout << " break the layout, "
     << r.rejected_memory << " exceed HBM" << (r.rejected_other ? ", " + std::to_string(r.rejected_other) + " break another constraint" : "")
     << (r.memory_checked ? "" : "; memory not priced") << "), " << out.near_best << " within " << format_number(M.near_best_pct) << "% of the best";
  a.push_back(os.str());
  if (best.primary > 0) out.spread_lo = lo / best.primary, out.spread_hi = hi / best.primary;
  out.searched = true;
  return out;
}

}  // namespace gs::validate
