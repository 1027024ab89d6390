#include "runtime/analysis/root_debt.h"

#include "image/suggest.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "runtime/analysis/influence.h"
#include "runtime/analysis/output.h"
#include "runtime/format.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"

namespace gs {

using analysis_output::json;
using analysis_output::optional_number;

std::vector<RootDebtRow> root_debt_rows(const Registry& reg, const Graph& graph) {
  std::vector<RootDebtRow> rows;
  for (uint32_t v : reg.roots()) {
    RootDebtRow r;
    r.var = v, r.dependents = graph.dependent_count(v), r.family = family_of(reg.var(v).name);
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end(), [&](const RootDebtRow& a, const RootDebtRow& b) {
    if (a.dependents != b.dependents) return a.dependents > b.dependents;
    return reg.var(a.var).name < reg.var(b.var).name;
  });
  return rows;
}

std::vector<RootFamily> root_families(const Registry&, const std::vector<RootDebtRow>& rows) {
  std::map<std::tuple<std::string, std::string, bool>, RootFamily> groups;
  for (const auto& r : rows) {  // rows are already heaviest first, so members stay in that order
    RootFamily& f = groups[{r.family, r.boundary_category, r.primitive_boundary}];
    f.family = r.family, f.boundary_category = r.boundary_category, f.primitive_boundary = r.primitive_boundary;
    f.total_weight += r.dependents;
    f.members.push_back(r);
  }
  std::vector<RootFamily> out;
  for (auto& [key, f] : groups) out.push_back(std::move(f));
  std::sort(out.begin(), out.end(), [](const RootFamily& a, const RootFamily& b) {
    if (a.total_weight != b.total_weight) return a.total_weight > b.total_weight;
    if (a.members.size() != b.members.size()) return a.members.size() > b.members.size();
    return a.family < b.family;
  });
  return out;
}

namespace {

// The rows whose variable belongs to the system `scope`; an unknown system is bad input.
std::vector<RootDebtRow> rows_in_scope(const Registry& reg, const std::vector<RootDebtRow>& rows, const std::string& scope) {
  auto system = reg.find_system(scope);
  if (!system) {
    std::vector<std::string> names;
    for (const auto& s : reg.image().systems) names.push_back(s.name);
    std::string hint = did_you_mean(scope, names);
    throw PresetError("unknown system '" + scope + "' for --scope" + (hint.empty() ? "" : "\n  hint: " + hint));
  }
  std::vector<RootDebtRow> out;
  for (const auto& r : rows)
    if (reg.var(r.var).system == *system) out.push_back(r);
  return out;
}

// ---- the report's lines

RootDebtLine root_line(const Registry& reg, const RootDebtRow& r) {
  const Variable& v = reg.var(r.var);
  return RootDebtLine{v.name, reg.image().systems[v.system].name, r.family, v.unit, r.dependents, r.boundary_category, r.primitive_boundary};
}

RootFamilyLine root_family_line(const Registry& reg, const RootFamily& f) {
  RootFamilyLine line{f.family, f.boundary_category, f.primitive_boundary, f.total_weight, f.members.size(), {}};
  for (size_t k = 0; k < f.members.size() && k < 4; ++k) line.top.emplace_back(reg.var(f.members[k].var).name, f.members[k].dependents);
  return line;
}

InfluenceLine influence_line(const Registry& reg, const AnalysisScenario& s, const InputInfluence& in, size_t rank) {
  const Variable& v = reg.var(in.var);
  InfluenceLine line;
  line.rank = rank, line.variable = v.name, line.status = in.status, line.family = family_of(v.name);
  line.boundary_category = in.category, line.primitive_boundary = in.category == "primitive-root";
  line.value = in.value, line.unit = v.unit, line.si_unit = reg.units().describe(v.dim);
  if (in.value) line.display = format_quantity(reg.units(), v, *in.value);
  line.derivative = in.derivative, line.elasticity = in.elasticity, line.variance_share = in.variance_share;
  if (in.distribution) line.distribution = in.distribution->describe();
  line.dependents = in.dependents;
  if (auto it = s.origins.find(in.var); it != s.origins.end()) line.origin = it->second;
  return line;
}

// Families of the target's inputs, blocking ones first, then by summed |elasticity|.
std::vector<InfluenceFamilyLine> input_families(const Registry& reg, const InfluenceResult& r) {
  std::map<std::string, InfluenceFamilyLine> groups;
  for (const auto& in : r.inputs) {
    InfluenceFamilyLine& f = groups[family_of(reg.var(in.var).name)];
    f.family = family_of(reg.var(in.var).name);
    f.blocking += in.status == "missing";
    if (in.elasticity) f.abs_elasticity += std::fabs(*in.elasticity);
    if (in.variance_share) f.variance_share += *in.variance_share;
    if (f.top.size() < 4) f.top.push_back({reg.var(in.var).name, in.status, in.elasticity});
    ++f.input_count;
  }
  std::vector<InfluenceFamilyLine> out;
  for (auto& entry : groups) out.push_back(std::move(entry.second));
  std::sort(out.begin(), out.end(), [](const InfluenceFamilyLine& a, const InfluenceFamilyLine& b) {
    if (a.blocking != b.blocking) return a.blocking > b.blocking;
    if (a.abs_elasticity != b.abs_elasticity) return a.abs_elasticity > b.abs_elasticity;
    return a.family < b.family;
  });
  return out;
}

RootDebtReport blast_radius(const Registry& reg, const std::vector<RootDebtRow>& rows, const RootDebtRequest& req) {
  RootDebtReport rep;
  rep.mode = req.families ? RootDebtMode::families : RootDebtMode::blast_radius;
  rep.include_constraints = req.include_constraints, rep.scope = req.scope, rep.total_roots = rows.size();
  if (req.families) {
    const auto families = root_families(reg, rows);
    rep.family_count = families.size();
    for (size_t i = 0; i < families.size() && i < req.limit; ++i) rep.root_families.push_back(root_family_line(reg, families[i]));
  } else {
    for (size_t i = 0; i < rows.size() && i < req.limit; ++i) rep.roots.push_back(root_line(reg, rows[i]));
  }
  return rep;
}

RootDebtReport influence_report(const Registry& reg, const AnalysisScenario& s, const RootDebtRequest& req, const InfluenceResult& r,
                                size_t roots_outside) {
  const Variable& t = reg.var(r.target);
  RootDebtReport rep;
  rep.mode = req.families ? RootDebtMode::influence_families : RootDebtMode::influence;
  rep.include_constraints = req.include_constraints;
  rep.target = t.name, rep.scenario = s.label, rep.unit = t.unit, rep.si_unit = reg.units().describe(t.dim);
  rep.value = r.value;
  if (r.value) rep.display = format_quantity(reg.units(), t, *r.value);
  // The formula in the missing inputs can be very long (GiNaC prints shared subexpressions in full);
  // its start is enough to see what it depends on, and `resolve --json` gives the whole of it.
  else rep.formula = r.formula.size() > 400 ? r.formula.substr(0, 400) + " ..." : r.formula;
  rep.inputs = r.inputs.size(), rep.missing = r.missing, rep.roots_outside_cone = roots_outside;
  rep.relations_differentiated = r.steps, rep.numeric_partials = r.numeric_partials;
  rep.linear_sd = r.linear_sd;
  if (r.linear_sd) rep.linear_sd_display = format_quantity(reg.units(), t, *r.linear_sd);
  for (uint32_t v : r.uncertain_outside) rep.uncertain_outside_cone.push_back(reg.var(v).name);
  if (req.families) {
    auto families = input_families(reg, r);
    rep.family_count = families.size();
    if (families.size() > req.limit) families.resize(req.limit);
    rep.families = std::move(families);
  } else {
    for (size_t i = 0; i < r.inputs.size() && i < req.limit; ++i) rep.rows.push_back(influence_line(reg, s, r.inputs[i], i + 1));
  }
  return rep;
}

json origin_json(const std::optional<Origin>& o) {
  if (!o) return nullptr;
  return json{{"layer", o->layer}, {"path", o->path}, {"sourced", o->sourced}};
}

json influence_line_json(const InfluenceLine& in) {
  json j{{"rank", in.rank},
         {"variable", in.variable},
         {"status", in.status},
         {"blocks_target", in.status == "missing"},
         {"family", in.family},
         {"boundary_category", in.boundary_category},
         {"primitive_boundary", in.primitive_boundary},
         {"value", optional_number(in.value)},
         {"unit", in.unit},
         {"si_unit", in.si_unit}};
  if (in.display) j["display"] = *in.display;
  j["derivative"] = optional_number(in.derivative);
  j["elasticity"] = optional_number(in.elasticity);
  j["variance_share"] = optional_number(in.variance_share);
  j["distribution"] = in.distribution ? json(*in.distribution) : json(nullptr);
  j["dependents"] = in.dependents;
  j["origin"] = origin_json(in.origin);
  return j;
}

void influence_json(json& j, const RootDebtReport& r) {
  j = json{{"mode", to_string(r.mode)}, {"target", r.target}, {"scenario", r.scenario},
           {"value", optional_number(r.value)}, {"unit", r.unit}, {"si_unit", r.si_unit}};
  if (r.display) j["display"] = *r.display;
  else j["formula"] = r.formula;
  j["complete"] = r.missing == 0 && r.value.has_value();
  j["include_constraints"] = r.include_constraints;
  j["inputs"] = r.inputs;
  j["missing"] = r.missing;
  j["roots_outside_cone"] = r.roots_outside_cone;
  j["relations_differentiated"] = r.relations_differentiated;
  j["numeric_partials"] = r.numeric_partials;
  j["elasticity"] = "d ln y / d ln x at the scenario's point";
  j["variance_method"] = r.linear_sd ? json(kVarianceMethod) : json(nullptr);
  j["linear_sd"] = optional_number(r.linear_sd);
  j["uncertain_outside_cone"] = r.uncertain_outside_cone;
  if (r.mode == RootDebtMode::influence_families) {
    j["family_count"] = r.family_count;
    j["shown"] = r.shown();
    j["families"] = json::array();
    for (const auto& f : r.families) {
      json top = json::array();
      for (const auto& m : f.top) top.push_back(json{{"variable", m.variable}, {"status", m.status}, {"elasticity", optional_number(m.elasticity)}});
      j["families"].push_back(json{{"family", f.family}, {"blocking", f.blocking}, {"input_count", f.input_count},
                                   {"abs_elasticity", f.abs_elasticity},
                                   {"variance_share", r.linear_sd ? json(f.variance_share) : json(nullptr)}, {"top_inputs", top}});
    }
  } else {
    j["shown"] = r.shown();
    j["rows"] = json::array();
    for (const auto& in : r.rows) j["rows"].push_back(influence_line_json(in));
  }
}

}  // namespace

std::string to_string(RootDebtMode m) {
  switch (m) {
    case RootDebtMode::blast_radius: return "blast-radius";
    case RootDebtMode::families: return "families";
    case RootDebtMode::influence: return "influence";
    case RootDebtMode::influence_families: return "influence-families";
  }
  return "";
}

size_t RootDebtReport::shown() const {
  switch (mode) {
    case RootDebtMode::blast_radius: return roots.size();
    case RootDebtMode::families: return root_families.size();
    case RootDebtMode::influence: return rows.size();
    case RootDebtMode::influence_families: return families.size();
  }
  return 0;
}

void to_json(json& j, const RootDebtReport& r) {
  if (r.mode == RootDebtMode::influence || r.mode == RootDebtMode::influence_families) return influence_json(j, r);
  const json scope = r.scope.empty() ? json(nullptr) : json(r.scope);
  if (r.mode == RootDebtMode::families) {
    j = json{{"mode", "families"},         {"total_roots", r.total_roots}, {"include_constraints", r.include_constraints},
             {"family_count", r.family_count}, {"shown", r.shown()}};
    j["scope"] = scope;
    j["families"] = json::array();
    for (const auto& f : r.root_families) {
      json top = json::array();
      for (const auto& [name, dependents] : f.top) top.push_back(json{{"variable", name}, {"dependents", dependents}});
      j["families"].push_back(json{{"family", f.family}, {"total_weight", f.total_weight}, {"root_count", f.root_count},
                                   {"boundary_category", f.boundary_category}, {"primitive_boundary", f.primitive_boundary},
                                   {"top_roots", top}});
    }
    return;
  }
  j = json{{"mode", "blast-radius"}, {"total_roots", r.total_roots}, {"include_constraints", r.include_constraints}, {"shown", r.shown()}};
  j["scope"] = scope;
  j["rows"] = json::array();
  for (const auto& row : r.roots)
    j["rows"].push_back(json{{"variable", row.variable}, {"system", row.system}, {"family", row.family}, {"unit", row.unit},
                             {"dependents", row.dependents}, {"boundary_category", row.boundary_category},
                             {"primitive_boundary", row.primitive_boundary}});
}

RootDebtReport root_debt(const Registry& reg, const AnalysisScenario& scenario, const RootDebtRequest& req) {
  const Graph graph(reg, req.include_constraints);
  if (req.target.empty()) {
    auto rows = root_debt_rows(reg, graph);
    if (!req.scope.empty()) rows = rows_in_scope(reg, rows, req.scope);
    return blast_radius(reg, rows, req);
  }
  if (!req.scope.empty()) throw PresetError("--scope ranks one system's roots by blast radius; it does not combine with --target");
  const uint32_t target = lookup_variable(reg, req.target, "target variable");
  InfluenceResult r = influence(reg, scenario.assignments, scenario.variants, target, graph, scenario.uncertain);
  size_t outside = 0;
  for (uint32_t v : reg.roots())
    if (std::none_of(r.inputs.begin(), r.inputs.end(), [&](const InputInfluence& in) { return in.var == v; })) ++outside;
  return influence_report(reg, scenario, req, r, outside);
}

}  // namespace gs
