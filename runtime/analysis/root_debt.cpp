#include "runtime/analysis/root_debt.h"

#include "image/suggest.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "runtime/analysis/influence.h"
#include "runtime/analysis/output.h"
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

std::string scope_phrase(const RootDebtRequest& req) { return req.scope.empty() ? "" : " in system " + req.scope; }

const char* constraints_phrase(bool include) { return include ? "constraints followed" : "constraints not followed"; }

std::string top_list(const Registry& reg, const std::vector<RootDebtRow>& members) {
  std::string s;
  for (size_t i = 0; i < members.size() && i < 4; ++i)
    s += (i ? ", " : "") + reg.var(members[i].var).name + ":" + std::to_string(members[i].dependents);
  if (members.size() > 4) s += fmt::format(", +{} more", members.size() - 4);
  return s;
}

size_t width_of(const Registry& reg, const std::vector<uint32_t>& vars, size_t minimum) {
  size_t w = minimum;
  for (uint32_t v : vars) w = std::max(w, reg.var(v).name.size());
  return w;
}

// ---- blast radius of every registry root

void print_roots(const Registry& reg, const std::vector<RootDebtRow>& rows, const RootDebtRequest& req, std::ostream& out) {
  const size_t shown = std::min(req.limit, rows.size());
  if (req.json) {
    json j{{"mode", "blast-radius"}, {"total_roots", rows.size()}, {"include_constraints", req.include_constraints}, {"shown", shown}};
    j["scope"] = req.scope.empty() ? json(nullptr) : json(req.scope);
    j["rows"] = json::array();
    for (size_t i = 0; i < shown; ++i) {
      const auto& r = rows[i];
      const Variable& v = reg.var(r.var);
      j["rows"].push_back(json{{"variable", v.name}, {"system", reg.image().systems[v.system].name}, {"family", r.family},
                               {"unit", v.unit}, {"dependents", r.dependents}, {"boundary_category", r.boundary_category},
                               {"primitive_boundary", r.primitive_boundary}});
    }
    out << j.dump(2) << "\n";
    return;
  }
  out << fmt::format("Root debt: {} root inputs{} by blast radius (transitive dependents; {})\n", rows.size(), scope_phrase(req),
                     constraints_phrase(req.include_constraints));
  out << fmt::format("  shown {}\n\n", shown);
  std::vector<uint32_t> vars;
  size_t fw = 6;
  for (size_t i = 0; i < shown; ++i) vars.push_back(rows[i].var), fw = std::max(fw, rows[i].family.size());
  const size_t nw = width_of(reg, vars, 8);
  out << fmt::format("{:>10}  {:<{}}  {:<{}}  {}\n", "dependents", "family", fw, "variable", nw, "unit");
  for (size_t i = 0; i < shown; ++i)
    out << fmt::format("{:>10}  {:<{}}  {:<{}}  {}\n", rows[i].dependents, rows[i].family, fw, reg.var(rows[i].var).name, nw,
                       reg.var(rows[i].var).unit);
}

void print_root_families(const Registry& reg, const std::vector<RootDebtRow>& rows, const RootDebtRequest& req, std::ostream& out) {
  auto families = root_families(reg, rows);
  const size_t shown = std::min(req.limit, families.size());
  if (req.json) {
    json j{{"mode", "families"},         {"total_roots", rows.size()}, {"include_constraints", req.include_constraints},
           {"family_count", families.size()}, {"shown", shown}};
    j["scope"] = req.scope.empty() ? json(nullptr) : json(req.scope);
    j["families"] = json::array();
    for (size_t i = 0; i < shown; ++i) {
      const auto& f = families[i];
      json top = json::array();
      for (size_t k = 0; k < f.members.size() && k < 4; ++k)
        top.push_back(json{{"variable", reg.var(f.members[k].var).name}, {"dependents", f.members[k].dependents}});
      j["families"].push_back(json{{"family", f.family}, {"total_weight", f.total_weight}, {"root_count", f.members.size()},
                                   {"boundary_category", f.boundary_category}, {"primitive_boundary", f.primitive_boundary},
                                   {"top_roots", top}});
    }
    out << j.dump(2) << "\n";
    return;
  }
  out << fmt::format("Root-debt families: {} root inputs{} in {} families by name prefix ({})\n", rows.size(), scope_phrase(req),
                     families.size(), constraints_phrase(req.include_constraints));
  out << fmt::format("  shown {}\n\n", shown);
  size_t fw = 6;
  for (size_t i = 0; i < shown; ++i) fw = std::max(fw, families[i].family.size());
  out << fmt::format("{:>12}  {:>5}  {:<{}}  {:<16}  {:<9}  {}\n", "total_weight", "roots", "family", fw, "boundary", "primitive",
                     "heaviest roots (name:dependents)");
  for (size_t i = 0; i < shown; ++i) {
    const auto& f = families[i];
    out << fmt::format("{:>12}  {:>5}  {:<{}}  {:<16}  {:<9}  {}\n", f.total_weight, f.members.size(), f.family, fw,
                       f.boundary_category, f.primitive_boundary ? "yes" : "no", top_list(reg, f.members));
  }
}

// ---- influence on one target

std::string origin_text(const AnalysisScenario& s, uint32_t var) {
  auto it = s.origins.find(var);
  if (it == s.origins.end()) return "";
  return it->second.layer + (it->second.sourced ? "" : " (no source)");
}

json origin_json(const AnalysisScenario& s, uint32_t var) {
  auto it = s.origins.find(var);
  if (it == s.origins.end()) return nullptr;
  return json{{"layer", it->second.layer}, {"path", it->second.path}, {"sourced", it->second.sourced}};
}

json input_json(const Registry& reg, const AnalysisScenario& s, const InputInfluence& in, size_t rank) {
  const Variable& v = reg.var(in.var);
  json j{{"rank", rank},
         {"variable", v.name},
         {"status", in.status},
         {"blocks_target", in.status == "missing"},
         {"family", family_of(v.name)},
         {"boundary_category", in.category},
         {"primitive_boundary", in.category == "primitive-root"},
         {"value", optional_number(in.value)},
         {"unit", v.unit},
         {"si_unit", reg.units().describe(v.dim)}};
  if (in.value) j["display"] = format_quantity(reg.units(), v, *in.value);
  j["derivative"] = optional_number(in.derivative);
  j["elasticity"] = optional_number(in.elasticity);
  j["variance_share"] = optional_number(in.variance_share);
  j["distribution"] = in.distribution ? json(in.distribution->describe()) : json(nullptr);
  j["dependents"] = in.dependents;
  j["origin"] = origin_json(s, in.var);
  return j;
}

struct InputFamily {
  std::string family;
  size_t blocking = 0;
  double abs_elasticity = 0, variance_share = 0;
  std::vector<const InputInfluence*> members;  // in rank order
};

std::vector<InputFamily> input_families(const Registry& reg, const InfluenceResult& r) {
  std::map<std::string, InputFamily> groups;
  for (const auto& in : r.inputs) {
    InputFamily& f = groups[family_of(reg.var(in.var).name)];
    f.family = family_of(reg.var(in.var).name);
    f.blocking += in.status == "missing";
    if (in.elasticity) f.abs_elasticity += std::fabs(*in.elasticity);
    if (in.variance_share) f.variance_share += *in.variance_share;
    f.members.push_back(&in);
  }
  std::vector<InputFamily> out;
  for (auto& [k, f] : groups) out.push_back(std::move(f));
  std::sort(out.begin(), out.end(), [](const InputFamily& a, const InputFamily& b) {
    if (a.blocking != b.blocking) return a.blocking > b.blocking;
    if (a.abs_elasticity != b.abs_elasticity) return a.abs_elasticity > b.abs_elasticity;
    return a.family < b.family;
  });
  return out;
}

void print_influence(const Registry& reg, const AnalysisScenario& s, const RootDebtRequest& req, const InfluenceResult& r,
                     size_t roots_outside, std::ostream& out) {
  const Variable& t = reg.var(r.target);
  const bool have_shares = r.linear_sd.has_value();
  const std::string method = "first-order Taylor: (dy/dx)^2 Var(x), normalised";
  if (req.json) {
    json j{{"mode", req.families ? "influence-families" : "influence"},
           {"target", t.name},
           {"scenario", s.label},
           {"value", optional_number(r.value)},
           {"unit", t.unit},
           {"si_unit", reg.units().describe(t.dim)}};
    if (r.value) j["display"] = format_quantity(reg.units(), t, *r.value);
    // The formula in the missing inputs can be very long (GiNaC prints shared subexpressions in full);
    // its start is enough to see what it depends on, and `resolve --json` gives the whole of it.
    else j["formula"] = r.formula.size() > 400 ? r.formula.substr(0, 400) + " ..." : r.formula;
    j["complete"] = r.missing == 0 && r.value.has_value();
    j["include_constraints"] = req.include_constraints;
    j["inputs"] = r.inputs.size();
    j["missing"] = r.missing;
    j["roots_outside_cone"] = roots_outside;
    j["relations_differentiated"] = r.steps;
    j["numeric_partials"] = r.numeric_partials;
    j["elasticity"] = "d ln y / d ln x at the scenario's point";
    j["variance_method"] = have_shares ? json(method) : json(nullptr);
    j["linear_sd"] = optional_number(r.linear_sd);
    j["uncertain_outside_cone"] = json::array();
    for (uint32_t v : r.uncertain_outside) j["uncertain_outside_cone"].push_back(reg.var(v).name);
    if (req.families) {
      auto fams = input_families(reg, r);
      const size_t shown = std::min(req.limit, fams.size());
      j["family_count"] = fams.size();
      j["shown"] = shown;
      j["families"] = json::array();
      for (size_t i = 0; i < shown; ++i) {
        json top = json::array();
        for (size_t k = 0; k < fams[i].members.size() && k < 4; ++k)
          top.push_back(json{{"variable", reg.var(fams[i].members[k]->var).name}, {"status", fams[i].members[k]->status},
                             {"elasticity", optional_number(fams[i].members[k]->elasticity)}});
        j["families"].push_back(json{{"family", fams[i].family}, {"blocking", fams[i].blocking},
                                     {"input_count", fams[i].members.size()}, {"abs_elasticity", fams[i].abs_elasticity},
                                     {"variance_share", have_shares ? json(fams[i].variance_share) : json(nullptr)},
                                     {"top_inputs", top}});
      }
    } else {
      const size_t shown = std::min(req.limit, r.inputs.size());
      j["shown"] = shown;
      j["rows"] = json::array();
      for (size_t i = 0; i < shown; ++i) j["rows"].push_back(input_json(reg, s, r.inputs[i], i + 1));
    }
    out << j.dump(2) << "\n";
    return;
  }

  out << "Influence on " << t.name << " under " << s.label << "\n";
  out << "  value          "
      << (r.value ? format_quantity(reg.units(), t, *r.value) : "not determined (" + std::to_string(r.missing) + " missing input" + (r.missing == 1 ? ")" : "s)"))
      << "\n";
  out << fmt::format("  inputs         {} in the cone ({} missing); {} registry roots outside it (no influence)\n", r.inputs.size(),
                     r.missing, roots_outside);
  out << fmt::format("  elasticity     d ln y / d ln x at the scenario's point (GiNaC derivatives along {} relation{}{})\n", r.steps,
                     r.steps == 1 ? "" : "s",
                     r.numeric_partials ? fmt::format(", {} by finite difference", r.numeric_partials) : "");
  if (have_shares)
    out << "  variance share " << method << "; linear sd " << format_quantity(reg.units(), t, *r.linear_sd) << "\n";
  else
    out << "  variance share none (the scenario gives no input of this target a distribution)\n";
  if (!r.uncertain_outside.empty())
    out << fmt::format("  note           {} input(s) with a distribution do not reach this target\n", r.uncertain_outside.size());

  if (req.families) {
    auto fams = input_families(reg, r);
    const size_t shown = std::min(req.limit, fams.size());
    out << fmt::format("  shown          {} of {} families\n\n", shown, fams.size());
    size_t fw = 6;
    for (size_t i = 0; i < shown; ++i) fw = std::max(fw, fams[i].family.size());
    out << fmt::format("{:>8}  {:>6}  {:>10}  {:>9}  {:<{}}  {}\n", "blocking", "inputs", "sum|elast|", "var.share", "family", fw,
                       "top inputs (elasticity)");
    for (size_t i = 0; i < shown; ++i) {
      const auto& f = fams[i];
      std::string top;
      for (size_t k = 0; k < f.members.size() && k < 4; ++k) {
        const auto* m = f.members[k];
        top += (k ? ", " : "") + reg.var(m->var).name + ":" +
               (m->status == "missing" ? std::string("MISSING") : m->elasticity ? analysis_output::signed_number(*m->elasticity) : "n/a");
      }
      if (f.members.size() > 4) top += fmt::format(", +{} more", f.members.size() - 4);
      out << fmt::format("{:>8}  {:>6}  {:>10}  {:>9}  {:<{}}  {}\n", f.blocking, f.members.size(), fmt::format("{:.6g}", f.abs_elasticity),
                         have_shares ? analysis_output::percent(f.variance_share) : "-", f.family, fw, top);
    }
    return;
  }

  const size_t shown = std::min(req.limit, r.inputs.size());
  out << fmt::format("  shown          {}\n\n", shown);
  std::vector<uint32_t> vars;
  for (size_t i = 0; i < shown; ++i) vars.push_back(r.inputs[i].var);
  const size_t nw = width_of(reg, vars, 5);
  std::vector<std::string> values, kinds;
  size_t vw = 5, kw = 4;
  for (size_t i = 0; i < shown; ++i) {
    const auto& in = r.inputs[i];
    values.push_back(in.status == "missing" ? "missing" : analysis_output::quantity(reg, in.var, in.value));
    kinds.push_back(in.status == "missing" ? in.category : in.status);
    vw = std::max(vw, values.back().size()), kw = std::max(kw, kinds.back().size());
  }
  out << fmt::format("{:>4}  {:>14}  {:>9}  {:>10}  {:<{}}  {:<{}}  {:<{}}  {}\n", "rank", "elasticity", "var.share", "dependents", "input",
                     nw, "value", vw, "kind", kw, "set by");
  for (size_t i = 0; i < shown; ++i) {
    const auto& in = r.inputs[i];
    std::string e = in.status == "missing" ? "BLOCKS" : in.elasticity ? analysis_output::signed_number(*in.elasticity) : "n/a";
    std::string share = in.variance_share ? analysis_output::percent(*in.variance_share) : "-";
    std::string line = fmt::format("{:>4}  {:>14}  {:>9}  {:>10}  {:<{}}  {:<{}}  {:<{}}  {}", i + 1, e, share, in.dependents,
                                   reg.var(in.var).name, nw, values[i], vw, kinds[i], kw, origin_text(s, in.var));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

}  // namespace

int root_debt_command(const Registry& reg, const AnalysisScenario& scenario, const RootDebtRequest& req, std::ostream& out,
                      std::ostream&) {
  const Graph graph(reg, req.include_constraints);
  if (req.target.empty()) {
    auto rows = root_debt_rows(reg, graph);
    if (!req.scope.empty()) rows = rows_in_scope(reg, rows, req.scope);
    if (req.families) print_root_families(reg, rows, req, out);
    else print_roots(reg, rows, req, out);
    return 0;
  }
  if (!req.scope.empty()) throw PresetError("--scope ranks one system's roots by blast radius; it does not combine with --target");
  const uint32_t target = lookup_variable(reg, req.target, "target variable");
  InfluenceResult r = influence(reg, scenario.assignments, scenario.variants, target, graph, scenario.uncertain);
  size_t outside = 0;
  for (uint32_t v : reg.roots())
    if (std::none_of(r.inputs.begin(), r.inputs.end(), [&](const InputInfluence& in) { return in.var == v; })) ++outside;
  print_influence(reg, scenario, req, r, outside, out);
  return 0;
}

}  // namespace gs
