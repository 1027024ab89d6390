#include "runtime/validate/search.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "runtime/format.h"
#include "runtime/validate/mapping_table.h"

namespace gs::validate {
namespace {

bool whole(double v) { return std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, std::fabs(v)); }

double assigned(const RowScenario& s, const std::string& var, double fallback) {
  auto it = s.assign.find(var);
  return it == s.assign.end() ? fallback : it->second;
}

// Every combination of the knobs' candidates.
std::vector<std::map<std::string, double>> grid(const std::vector<KnobChoices>& knobs) {
  std::vector<std::map<std::string, double>> out = {{}};
  for (const auto& k : knobs) {
    std::vector<std::map<std::string, double>> next;
    for (const auto& partial : out)
      for (double v : k.values) {
        auto c = partial;
        c[k.knob] = v;
        next.push_back(std::move(c));
      }
    out.swap(next);
  }
  return out;
}

std::string describe(const std::string& knob, double v) {
  if (knob == "recompute") return v >= 1 ? "full" : v > 0 ? format_number(v) : "none";
  return format_number(v);
}

}  // namespace

SearchProblem search_problem(const PresetLibrary& lib, const RowScenario& s) {
  const MappingTable& M = mapping_table(lib.dir());
  SearchProblem p;
  p.scenario = s;
  for (const auto& [knob, note] : s.unstated) {
    (void)note;
    p.knobs.push_back({knob, M.candidates(knob)});
  }
  return p;
}

RowScenario with_knobs(const PresetLibrary& lib, const RowScenario& s, const std::map<std::string, double>& knobs, std::string* why) {
  const MappingTable& M = mapping_table(lib.dir());
  RowScenario out = s;
  why->clear();
  for (const auto& [knob, v] : knobs) {
    if (knob == "micro_batch") {
      const double micro0 = assigned(s, M.var("micro_batch"), 1), m0 = assigned(s, M.var("grad_accum"), 1);
      const double m = micro0 * m0 / v;  // the sequences per replica stay as stated
      if (!whole(m) || m < 1) {
        *why = "micro-batch " + format_number(v) + " does not divide the " + format_number(micro0 * m0) + " sequences per replica";
        return out;
      }
      out.assign[M.var("micro_batch")] = v;
      out.assign[M.var("grad_accum")] = m;
    } else if (knob == "interleave") {
      const double layers = assigned(s, M.var("layers"), 0), pp = assigned(s, M.var("pp"), 1);
      if (v > 1 && !whole(layers / (pp * v))) {
        *why = "interleave " + format_number(v) + " does not divide " + format_number(layers) + " layers over " + format_number(pp) + " stages";
        return out;
      }
      out.assign[M.var("vp")] = v;
      if (v > 1)
        for (const char* sel : {"pipeline_schedule", "pipeline_in_flight"}) out.variants[M.variant(sel)] = M.variant("interleaved");
    } else if (knob == "recompute") {
      out.assign[M.var("recompute")] = v;
      for (const char* sel : {"activation_values", "score_values"}) out.variants[M.variant(sel)] = M.variant(v >= 1 ? "recompute_full" : "recompute_none");
    } else {
      *why = "unknown knob '" + knob + "'";
      return out;
    }
  }
  return out;
}

SearchResult exhaustive_search(Engine& engine, const PresetLibrary& lib, const SearchProblem& p) {
  const MappingTable& M = mapping_table(lib.dir());
  SearchResult r;
  // Candidates grouped by variant signature: one compiled cone per group, the knobs as free inputs.
  const std::vector<std::string> knob_vars = {M.var("micro_batch"), M.var("grad_accum"), M.var("vp"), M.var("recompute")};
  struct Group {
    RowScenario scenario;
    std::vector<std::pair<std::map<std::string, double>, RowScenario>> members;
  };
  std::map<std::map<std::string, std::string>, Group> groups;
  for (const auto& c : grid(p.knobs)) {
    std::string why;
    RowScenario s = with_knobs(lib, p.scenario, c, &why);
    if (!why.empty()) {
      ++r.rejected_layout;
      continue;
    }
    auto& g = groups[s.variants];
    if (g.members.empty()) g.scenario = s;
    g.members.emplace_back(c, std::move(s));
  }
  const std::string tput = M.target("tokens_per_s");
  const std::vector<std::string> memory = {M.var("hbm_required"), M.var("hbm_capacity")};
  bool memory_ok = true;
  for (auto& [variants, g] : groups) {
    (void)variants;
    std::vector<uint32_t> vary;
    for (const auto& name : knob_vars) vary.push_back(lookup_variable(engine.registry(), name, "search knob"));
    for (const auto& name : knob_vars)
      if (!g.scenario.assign.count(name)) g.scenario.assign[name] = assigned(g.members.front().second, name, name == M.var("vp") ? 1 : 0);
    // Outputs beyond the row's own: the memory the layout needs, the capacity, and the objective. A
    // scenario that cannot price its memory is still searched, without the memory check.
    PreparedRow row = engine.prepare(g.scenario, vary, {memory[0], memory[1], tput});
    if (!row.ok()) {
      memory_ok = false;
      row = engine.prepare(g.scenario, vary, {tput});
    }
    if (!row.ok()) {
      r.error = row.error;
      continue;
    }
    const bool has_memory = row.extra_out.size() == 3;
    for (const auto& [knobs, s] : g.members) {
      std::vector<double> v;
      for (const auto& name : knob_vars) v.push_back(assigned(s, name, name == M.var("vp") ? 1 : 0));
      std::vector<double> out = engine.evaluate(row, &v);
      ++r.evaluated;
      if (has_memory && out[row.extra_out[0]] > out[row.extra_out[1]]) {
        ++r.rejected_memory;
        continue;
      }
      RankedCandidate c;
      c.knobs = knobs;
      c.tokens_per_s = out[row.extra_out.back()];
      if (s.primary) c.primary = out[row.observation_out[*s.primary]] * s.observations[*s.primary].factor;
      if (std::isfinite(c.tokens_per_s) && c.tokens_per_s > 0) r.ranked.push_back(std::move(c));
    }
  }
  r.memory_checked = memory_ok && !groups.empty();
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [](const RankedCandidate& a, const RankedCandidate& b) { return a.tokens_per_s > b.tokens_per_s; });
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
  std::string why;
  out.scenario = with_knobs(lib, s, best.knobs, &why);
  // The defaults' notes give way to the search's.
  auto& a = out.scenario.assumptions;
  for (const auto& [knob, note] : s.unstated)
    if (!note.empty()) a.erase(std::remove(a.begin(), a.end(), note), a.end());
  std::ostringstream os;
  os << "chosen by search:";
  for (const auto& [knob, v] : best.knobs) os << " " << knob << " " << describe(knob, v) << ";";
  double lo = best.primary, hi = best.primary;
  for (const auto& c : r.ranked)
    if (c.tokens_per_s >= best.tokens_per_s * (1 - M.near_best_pct / 100)) {
      ++out.near_best;
      lo = std::min(lo, c.primary), hi = std::max(hi, c.primary);
    }
  os << " " << r.ranked.size() << " feasible of " << (r.evaluated + r.rejected_layout) << " candidates (" << r.rejected_layout << " break the layout, "
     << r.rejected_memory << " exceed HBM" << (r.memory_checked ? "" : "; memory not priced") << "), " << out.near_best << " within "
     << format_number(M.near_best_pct) << "% of the best";
  a.push_back(os.str());
  if (best.primary > 0) out.spread_lo = lo / best.primary, out.spread_hi = hi / best.primary;
  out.searched = true;
  return out;
}

}  // namespace gs::validate
