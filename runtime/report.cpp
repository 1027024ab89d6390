#include "runtime/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "image/escape.h"
#include "runtime/format.h"
#include "runtime/graph.h"
#include "runtime/headline.h"

namespace gs {

using json = nlohmann::ordered_json;

namespace {

// An [expected] value is met when the model reproduces it to this relative difference (presets state
// expected values to the digits their sources give, so a looser tolerance belongs in the preset's value).
constexpr double kExpectedTolerance = 1e-9;

// ---- shared pieces

// json::dump(2) without recursion, for trees as deep as the model's longest chain of relations. Beyond
// 40 levels lines keep the same indentation (still valid JSON) so the text stays linear in size.
std::string dump_deep(const json& root) {
  auto pad = [](size_t depth) { return std::string(std::min<size_t>(depth, 40) * 2, ' '); };
  auto scalar = [](const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); };
  struct Frame {
    const json* v;
    json::const_iterator it;
  };
  std::string out;
  std::vector<Frame> stack;
  auto open = [&](const json& v) {
    if (!v.is_structured() || v.empty()) {
      out += v.is_structured() ? (v.is_object() ? "{}" : "[]") : scalar(v);
      return;
    }
    out += v.is_object() ? "{\n" : "[\n";
    stack.push_back({&v, v.begin()});
  };
  open(root);
  while (!stack.empty()) {
    Frame& f = stack.back();
    const size_t depth = stack.size();
    if (f.it == f.v->end()) {
      out += "\n" + pad(depth - 1) + (f.v->is_object() ? "}" : "]");
      stack.pop_back();
      continue;
    }
    if (f.it != f.v->begin()) out += ",\n";
    out += pad(depth);
    if (f.v->is_object()) out += scalar(json(f.it.key())) + ": ";
    const json& item = *f.it;
    ++f.it;
    open(item);  // may invalidate `f`
  }
  return out;
}

std::string value_text(const Registry& reg, uint32_t var, const GiNaC::ex& value) {
  if (auto x = sym::to_double(value)) return format_quantity(reg.units(), reg.var(var), *x);
  return sym::to_string(value);
}

std::string names(const Registry& reg, const std::vector<uint32_t>& vars, size_t limit = 6) {
  std::string s;
  for (size_t i = 0; i < vars.size() && i < limit; ++i) s += (i ? ", " : "") + reg.var(vars[i]).name;
  if (vars.size() > limit) s += fmt::format(", +{} more", vars.size() - limit);
  return s;
}

std::string relation_label(const Registry& reg, uint32_t r) {
  const Relation& rel = reg.relation(r);
  std::string role = role_name(rel.role);
  if (rel.role == Role::Variant) role += " " + rel.variant_key;
  return rel.name + " (" + role + ")";
}

// Value, display unit, SI unit and the human form, as every JSON quantity carries them.
void put_quantity(json& j, const Registry& reg, uint32_t var, std::optional<double> si) {
  const Variable& v = reg.var(var);
  j["value"] = si ? json(*si) : json(nullptr);
  j["unit"] = v.unit;
  j["si_unit"] = reg.units().describe(v.dim);
  if (si) j["display"] = format_quantity(reg.units(), v, *si);
}

json name_list(const Registry& reg, const std::vector<uint32_t>& vars) {
  json a = json::array();
  for (uint32_t v : vars) a.push_back(reg.var(v).name);
  return a;
}

json relation_json(const Registry& reg, uint32_t r) {
  const Relation& rel = reg.relation(r);
  json j{{"name", rel.name}, {"role", role_name(rel.role)}};
  if (rel.role == Role::Variant) j["variant"] = rel.variant_key;
  j["location"] = reg.location(rel.span);
  return j;
}

json missing_json(const Registry& reg, const MissingInput& m) {
  const Variable& v = reg.var(m.var);
  json j{{"variable", v.name},
         {"unit", v.unit},
         {"si_unit", reg.units().describe(v.dim)},
         {"system", reg.image().systems[v.system].name},
         {"family", m.family},
         {"category", m.category},
         {"reason", m.reason},
         {"variant_keys", m.variant_keys},
         {"definitions", json::array()},
         {"direct_dependents", name_list(reg, m.direct_dependents)},
         {"dependents_count", m.dependents_count},
         {"location", reg.location(v.span)}};
  for (uint32_t r : m.definitions) j["definitions"].push_back(reg.relation(r).name);
  return j;
}

json check_json(const Registry& reg, const Check& c) {
  json j{{"name", c.name}, {"kind", c.kind}, {"variable", reg.var(c.var).name}, {"condition", c.text},
         {"status", check_status_name(c.status)}, {"missing", name_list(reg, c.missing)}, {"inputs", json::object()}};
  for (const auto& [v, x] : c.inputs) j["inputs"][reg.var(v).name] = x;
  if (c.relation >= 0) j["location"] = reg.location(reg.relation(uint32_t(c.relation)).span);
  return j;
}

json override_json(const Registry& reg, const Override& o) {
  json j{{"variable", reg.var(o.var).name}};
  put_quantity(j, reg, o.var, o.value);
  j["relation"] = o.relation >= 0 ? json(reg.relation(uint32_t(o.relation)).name) : json(nullptr);
  if (o.checked) {
    json c{{"status", o.status == CheckStatus::Satisfied ? "agrees" : o.status == CheckStatus::Violated ? "disagrees" : "unchecked"}};
    c["relation_value"] = o.relation_value ? json(*o.relation_value) : json(nullptr);
    if (o.relation_value) c["relative_difference"] = o.relative_difference;
    c["missing"] = name_list(reg, o.missing);
    j["check"] = c;
  }
  return j;
}

std::string override_text(const Registry& reg, const Override& o) {
  std::string s = "  " + reg.var(o.var).name + " = " + format_quantity(reg.units(), reg.var(o.var), o.value);
  s += o.relation >= 0 ? " replaces " + reg.relation(uint32_t(o.relation)).name : " replaces an unselected variant family";
  if (!o.checked || o.relation < 0) return s + "\n";
  if (o.status == CheckStatus::Satisfied) return s + fmt::format(": agrees (relative difference {:.2g})\n", o.relative_difference);
  if (o.status == CheckStatus::Violated)
    return s + ": DISAGREES: the relation gives " + format_quantity(reg.units(), reg.var(o.var), *o.relation_value) +
           fmt::format(" (relative difference {:.3g})\n", o.relative_difference);
  return s + (o.missing.empty() ? ": not checked (the relation could not be evaluated)\n"
                                : ": not checked, the relation needs " + names(reg, o.missing) + "\n");
}

std::string check_text(const Registry& reg, const Check& c) {
  std::string s = "  " + c.name + " [" + check_status_name(c.status) + "] " + c.text;
  if (c.status == CheckStatus::Violated && !c.inputs.empty()) {
    s += "  (";
    for (size_t i = 0; i < c.inputs.size(); ++i)
      s += (i ? ", " : "") + reg.var(c.inputs[i].first).name + " = " + format_quantity(reg.units(), reg.var(c.inputs[i].first), c.inputs[i].second);
    s += ")";
  }
  if (c.status == CheckStatus::Undetermined && !c.missing.empty()) s += "  (needs " + names(reg, c.missing) + ")";
  return s + "\n";
}

// A formula in many missing inputs can run to hundreds of kilobytes; text output shows its start and
// says where the whole of it is.
constexpr size_t kMaxFormulaChars = 2000;

std::string capped_formula(const std::string& formula) {
  if (formula.size() <= kMaxFormulaChars) return formula;
  size_t cut = 400;
  while (cut > 0 && (static_cast<unsigned char>(formula[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return formula.substr(0, cut) + " ... (" + std::to_string(formula.size()) +
         " characters in all; --json prints the whole formula, or assign the missing inputs below)";
}

}  // namespace

// ---- resolve

std::string resolution_text(const Registry& reg, const Resolution& res, const ResolveView& view) {
  const Variable& target = reg.var(res.target);
  std::string out;
  if (res.number) {
    out += target.name + " = " + format_quantity(reg.units(), target, *res.number) + "\n";
  } else {
    out += target.name + " is not determined: " + std::to_string(res.missing.size()) + " missing input" +
           (res.missing.size() == 1 ? "" : "s") + "\n";
    // A target that is itself the only unknown has no formula worth printing.
    if (sym::has_symbols(res.value) && !(res.missing.size() == 1 && res.missing[0].var == res.target))
      out += "  formula: " + target.name + " = " + capped_formula(sym::to_string(res.value)) + "\n";
  }
  if (!res.missing.empty()) {
    std::vector<uint32_t> vars;
    for (const auto& m : res.missing) vars.push_back(m.var);
    out += "  missing: " + names(reg, vars, vars.size()) + "\n";
    // A variable whose relation failed is no input to assign: say why, even without --missing.
    if (!view.missing && !view.diagnostics)
      for (const auto& m : res.missing)
        if (m.category == "unevaluable") out += "  " + reg.var(m.var).name + " is unevaluable: " + m.reason + "\n";
  }
  if ((view.missing || view.diagnostics) && !res.missing.empty()) {
    out += "\nmissing inputs:\n";
    for (const auto& m : res.missing) {
      const Variable& v = reg.var(m.var);
      out += "  " + v.name + " [" + v.unit + "] family " + m.family + ", " + m.category + ": " + m.reason + "\n";
      out += "    read by: " + (m.direct_dependents.empty() ? std::string("(nothing)") : names(reg, m.direct_dependents)) +
             fmt::format(" ({} dependent{} in all)\n", m.dependents_count, m.dependents_count == 1 ? "" : "s");
      if (!m.definitions.empty()) {
        std::string defs;
        for (size_t i = 0; i < m.definitions.size(); ++i) defs += (i ? ", " : "") + relation_label(reg, m.definitions[i]);
        out += "    relations: " + defs + "\n";
      }
      out += "    hint: --assign " + v.name + "=VALUE[ UNIT]";
      if (!m.variant_keys.empty()) {
        std::string keys;
        for (size_t i = 0; i < m.variant_keys.size(); ++i) keys += (i ? "|" : "") + m.variant_keys[i];
        out += " or --variant " + v.name + "=" + keys;
      }
      out += "\n";
    }
  }
  if (view.missing_families && !res.missing.empty())
    out += "\nmissing families:\n" + missing_families_text(missing_families(reg, res.missing), 2);
  if (!res.overrides.empty()) {
    out += "\noverrides (assignments that replace a relation):\n";
    for (const auto& o : res.overrides) out += override_text(reg, o);
  }
  if (view.trace) {
    out += "\ntrace:\n";
    for (const Step& s : res.steps) {
      out += "  " + labeled_name(reg.var(s.var)) + " = " + value_text(reg, s.var, s.value) + "  <- " + relation_label(reg, s.relation) +
             "  " + reg.location(reg.relation(s.relation).span);
      if (s.fallback_from >= 0) out += "  [fallback from " + reg.relation(uint32_t(s.fallback_from)).name + "]";
      if (!s.system_peers.empty())
        out += "  [system: " + names(reg, s.system_peers, s.system_peers.size()) +
               (s.system_iterations < 0 ? std::string() : fmt::format("; solved numerically, {} iterations", s.system_iterations)) + "]";
      out += "\n";
      if (!s.reason.empty()) out += "    why: " + s.reason + "\n";
    }
  }
  if (view.constraints) {
    out += "\nconstraints:\n";
    if (res.constraints.empty()) out += "  (none on the variables used)\n";
    for (const auto& c : res.constraints) out += check_text(reg, c);
  }
  if (view.constraints || view.validity) {
    out += "\napproximation validity:\n";
    if (res.validity.empty()) out += "  (no approximation used)\n";
    for (const auto& c : res.validity) out += check_text(reg, c);
  }
  // A violated constraint (a layout that does not fit in HBM, say) must not read as a normal answer, so
  // the violations print unless every check already has.
  if (res.violations() > 0 && !view.constraints) {
    out += fmt::format("\nVIOLATED: {} (all checks with --constraints)\n", res.violations());
    for (const auto* list : {&res.constraints, &res.validity})
      for (const auto& c : *list)
        if (c.status == CheckStatus::Violated) out += check_text(reg, c);
  }
  if (view.diagnostics) {
    size_t undecided = 0;
    for (const auto* list : {&res.constraints, &res.validity})
      for (const auto& c : *list) undecided += c.status == CheckStatus::Undetermined;
    out += fmt::format("\ndiagnostics: {} missing input{}, {} violated check{}, {} undecided check{} (they need a missing input)\n",
                       res.missing.size(), res.missing.size() == 1 ? "" : "s", res.violations(), res.violations() == 1 ? "" : "s",
                       undecided, undecided == 1 ? "" : "s");
    if (res.missing.empty() && res.violations() == 0) out += "  no missing inputs or violated checks\n";
  }
  return out;
}

namespace {

// The resolution document; `steps` (the trace) only when `full`.
json resolution_object(const Registry& reg, const ResolutionFacts& res, const std::vector<Step>& steps, bool full) {
  json j{{"target", reg.var(res.target).name}, {"complete", res.number.has_value()}};
  put_quantity(j, reg, res.target, res.number);
  if (!res.number) {
    j["formula"] = res.formula;
  }
  j["missing"] = json::array();
  for (const auto& m : res.missing) j["missing"].push_back(missing_json(reg, m));
  j["steps"] = json::array();
  for (const Step& s : full ? steps : std::vector<Step>{}) {
    json step{{"variable", reg.var(s.var).name}};
    if (!reg.var(s.var).symbol.empty()) step["symbol"] = reg.var(s.var).symbol;
    put_quantity(step, reg, s.var, sym::to_double(s.value));
    if (!sym::to_double(s.value)) step["formula"] = sym::to_string(s.value);
    step["relation"] = relation_json(reg, s.relation);
    if (!s.reason.empty()) step["reason"] = s.reason;
    if (s.fallback_from >= 0) step["fallback_from"] = reg.relation(uint32_t(s.fallback_from)).name;
    if (!s.system_peers.empty()) {
      step["system_peers"] = json::array();
      for (uint32_t p : s.system_peers) step["system_peers"].push_back(reg.var(p).name);
      step["system_solution"] = s.system_iterations < 0 ? "exact" : "numeric";
      if (s.system_iterations >= 0) step["system_iterations"] = s.system_iterations;
    }
    j["steps"].push_back(step);
  }
  j["assigned"] = name_list(reg, res.assigned);
  j["overrides"] = json::array();
  for (const auto& o : res.overrides) j["overrides"].push_back(override_json(reg, o));
  j["constraints"] = json::array();
  for (const auto& c : res.constraints)
    if (full || c.status == CheckStatus::Violated) j["constraints"].push_back(check_json(reg, c));
  j["validity"] = json::array();
  for (const auto& c : res.validity)
    if (full || c.status == CheckStatus::Violated) j["validity"].push_back(check_json(reg, c));
  j["violations"] = count_violations(res.constraints, res.validity);
  return j;
}

}  // namespace

ResolutionFacts resolution_facts(const Resolution& res) {
  ResolutionFacts f{res.target, res.number, res.number ? "" : sym::to_string(res.value), res.missing, res.assigned, res.overrides,
                    res.constraints, res.validity};
  return f;
}

json resolution_document(const Registry& reg, const Resolution& res, bool full) {
  return resolution_object(reg, resolution_facts(res), res.steps, full);
}

std::string resolution_json(const Registry& reg, const Resolution& res, bool full) { return resolution_document(reg, res, full).dump(2); }

std::string resolution_json(const Registry& reg, const ResolutionFacts& facts) { return resolution_object(reg, facts, {}, false).dump(2); }

// ---- trace tree

namespace {

class TreeWalker {
 public:
  TreeWalker(const Registry& reg, const Resolution& res) : reg_(reg), res_(res) {
    for (const auto& m : res.missing) missing_[m.var] = &m;
    for (const auto& o : res.overrides) overrides_[o.var] = &o;
  }

  // Both walks are preorder with an explicit stack, so a chain of tens of thousands of relations cannot
  // exhaust the call stack.
  void text(uint32_t root, std::string& out) {
    std::vector<std::pair<uint32_t, int>> pending{{root, 0}};
    while (!pending.empty()) {
      const auto [v, depth] = pending.back();
      pending.pop_back();
      const Variable& var = reg_.var(v);
      std::string line = indentation(depth) + labeled_name(var) + " = " + value_of(v);
      const Step* step = res_.step_for(v);
      const bool repeated = !seen_.insert(v).second;
      if (step) {
        line += "  <- " + relation_label(reg_, step->relation) + "  " + reg_.location(reg_.relation(step->relation).span);
      } else {
        line += "  [" + status(v) + "]  " + reg_.location(var.span);
      }
      if (repeated && step) line += "  (shown above)";
      const bool cut = step && !repeated && max_depth_ >= 0 && depth >= max_depth_;
      if (cut) line += "  (" + std::to_string(relation_value_deps(reg_.relation(step->relation)).size()) + " inputs below)";
      out += line + "\n";
      if (step && !repeated && !cut) {
        const auto deps = relation_value_deps(reg_.relation(step->relation));
        for (auto it = deps.rbegin(); it != deps.rend(); ++it) pending.push_back({*it, depth + 1});
      }
    }
  }

  void limit_depth(int max_depth) { max_depth_ = max_depth; }

  json tree(uint32_t root) {
    std::vector<Node> stack;
    stack.push_back(visit(root));
    while (true) {
      Node& top = stack.back();
      if (top.next < top.children.size()) {
        const uint32_t child = top.children[top.next++];
        stack.push_back(visit(child));  // invalidates `top`
        continue;
      }
      json done = std::move(top.j);
      stack.pop_back();
      if (stack.empty()) return done;
      stack.back().j["children"].push_back(std::move(done));
    }
  }

 private:
  // Deep trees keep a bounded indentation; the depth is then written out instead.
  static std::string indentation(int depth) {
    constexpr int kMaxIndent = 40;
    if (depth <= kMaxIndent) return std::string(size_t(depth) * 2, ' ');
    return std::string(size_t(kMaxIndent) * 2, ' ') + "[depth " + std::to_string(depth) + "] ";
  }

  // One node of the JSON tree without its children, and the children still to visit.
  struct Node {
    json j;
    std::vector<uint32_t> children;
    size_t next = 0;
  };

  Node visit(uint32_t v) {
    const Variable& var = reg_.var(v);
    json j{{"variable", var.name}};
    if (!var.symbol.empty()) j["symbol"] = var.symbol;
    auto value = res_.values.find(v);
    std::optional<double> x = value == res_.values.end() ? std::nullopt : sym::to_double(value->second);
    put_quantity(j, reg_, v, x);
    if (value != res_.values.end() && !x) j["formula"] = sym::to_string(value->second);
    const Step* step = res_.step_for(v);
    const bool repeated = !seen_.insert(v).second;
    if (step) {
      j["source"] = "relation";
      j["relation"] = relation_json(reg_, step->relation);
    } else {
      j["source"] = source(v);
      j["status"] = status(v);
      j["location"] = reg_.location(var.span);
    }
    if (step && repeated) j["repeated"] = true;
    std::vector<uint32_t> children;
    if (step && !repeated) {
      j["children"] = json::array();
      children = relation_value_deps(reg_.relation(step->relation));
    }
    return Node{std::move(j), std::move(children), 0};
  }

 private:
  int max_depth_ = -1;  // -1: the whole cone

  std::string value_of(uint32_t v) const {
    auto it = res_.values.find(v);
    return it == res_.values.end() ? "?" : value_text(reg_, v, it->second);
  }

  std::string source(uint32_t v) const {
    if (reg_.var(v).is_constant) return "constant";
    if (std::binary_search(res_.assigned.begin(), res_.assigned.end(), v)) return "assigned";
    if (res_.values.count(v)) return "relation";
    return "missing";
  }

  std::string status(uint32_t v) const {
    std::string s = source(v);
    if (s == "assigned") {
      auto o = overrides_.find(v);
      if (o != overrides_.end() && o->second->relation >= 0) s += ", replaces " + reg_.relation(uint32_t(o->second->relation)).name;
    } else if (s == "missing") {
      auto m = missing_.find(v);
      s += ": " + (m == missing_.end() ? std::string("not expanded") : m->second->reason);
    }
    return s;
  }

  const Registry& reg_;
  const Resolution& res_;
  std::set<uint32_t> seen_;
  std::map<uint32_t, const MissingInput*> missing_;
  std::map<uint32_t, const Override*> overrides_;
};

}  // namespace

std::string trace_text(const Registry& reg, const Resolution& res, int max_depth) {
  std::string out;
  TreeWalker walker(reg, res);
  walker.limit_depth(max_depth);
  walker.text(res.target, out);
  return out;
}

std::string trace_json(const Registry& reg, const Resolution& res) {
  json j{{"target", reg.var(res.target).name}, {"complete", res.number.has_value()}};
  j["tree"] = TreeWalker(reg, res).tree(res.target);
  j["missing"] = json::array();
  for (const auto& m : res.missing) j["missing"].push_back(missing_json(reg, m));
  return dump_deep(j);
}

// ---- stats

namespace {

// Per system: what the system's page in docs/model/ quotes (variables it declares, how many of them are
// root inputs, its value relations and constraints).
json systems_object(const Registry& reg) {
  const auto& systems = reg.image().systems;
  std::vector<size_t> vars(systems.size()), roots(systems.size()), values(systems.size()), constraints(systems.size());
  for (uint32_t v = 0; v < reg.var_count(); ++v) {
    ++vars[reg.var(v).system];
    if (reg.kind(v) == VarKind::Root) ++roots[reg.var(v).system];
  }
  for (uint32_t r = 0; r < reg.relation_count(); ++r)
    ++(reg.relation(r).role == Role::Constraint ? constraints : values)[reg.relation(r).system];
  json out = json::array();
  for (size_t i = 0; i < systems.size(); ++i)
    out.push_back({{"system", systems[i].name}, {"variables", vars[i]}, {"root_inputs", roots[i]},
                   {"value_relations", values[i]}, {"constraints", constraints[i]}});
  return out;
}

json stats_object(const Registry& reg, const std::string& image_path) {
  RegistryStats s = reg.stats();
  RegistryCoverage c = reg.coverage();
  json roles = json::object();
  for (int r = 0; r < 6; ++r) roles[role_name(Role(r))] = c.by_role[r];
  Graph g(reg);
  const HeadlineCoverage headline = headline_coverage(reg, g);
  return json{{"image", image_path},
              {"stats", {{"systems", s.systems}, {"variables", s.variables}, {"constants", s.constants}, {"relations", s.relations},
                         {"root_inputs", s.root_inputs}, {"leaves", s.leaves}}},
              {"relations_by_role", roles},
              {"coverage", {{"non_constant_variables", c.non_constant_variables}, {"with_references", c.with_references},
                            {"with_description", c.with_description}, {"relations", c.relations},
                            {"relations_with_references", c.relations_with_references},
                            {"relations_unit_checked", c.relations_unit_checked}}},
              {"graph", {{"cycles", g.cycles().size()}, {"topological_order_length", g.topological_order().order.size()}}},
              {"headline", {{"targets", headline.targets_found}, {"relations_in_cones", headline.relations_in_cones}}},
              {"relations_in_headline_cones", headline.share()},
              {"by_system", systems_object(reg)}};
}

}  // namespace

std::string stats_text(const Registry& reg, const std::string& image_path) {
  json j = stats_object(reg, image_path);
  std::string out = "Registry image: " + image_path + "\n";
  for (const char* section : {"stats", "relations_by_role", "coverage", "graph", "headline"}) {
    out += std::string("\n") + section + ":\n";
    for (const auto& [k, v] : j[section].items()) out += fmt::format("  {:<28} {}\n", k, v.get<size_t>());
  }
  out += fmt::format("  {:<28} {:.3f}\n", "share_of_all_relations", j["relations_in_headline_cones"].get<double>());
  return out;
}

std::string stats_json(const Registry& reg, const std::string& image_path) { return stats_object(reg, image_path).dump(2); }

// ---- scenario report

std::vector<MissingFamily> missing_families(const Registry& reg, const std::vector<MissingInput>& missing) {
  std::map<std::pair<std::string, std::string>, std::set<uint32_t>> groups;
  for (const auto& m : missing) groups[{m.family, m.category}].insert(m.var);
  std::vector<MissingFamily> out;
  for (auto& [key, vars] : groups) {
    MissingFamily f{key.first, key.second, std::vector<uint32_t>(vars.begin(), vars.end()), {}};
    std::sort(f.vars.begin(), f.vars.end(), [&](uint32_t a, uint32_t b) { return reg.var(a).name < reg.var(b).name; });
    for (uint32_t v : f.vars) f.names.push_back(reg.var(v).name);
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const MissingFamily& a, const MissingFamily& b) {
    if (a.vars.size() != b.vars.size()) return a.vars.size() > b.vars.size();
    return std::tie(a.family, a.category) < std::tie(b.family, b.category);
  });
  return out;
}

std::string missing_families_text(const std::vector<MissingFamily>& families, size_t indent) {
  std::string out;
  for (const auto& f : families) {
    std::string names;
    for (size_t i = 0; i < f.names.size() && i < 4; ++i) names += (i ? ", " : "") + f.names[i];
    if (f.names.size() > 4) names += fmt::format(", +{} more", f.names.size() - 4);
    out += fmt::format("{:{}}family={} category={} count={} names={}\n", "", indent, f.family, f.category, f.names.size(), names);
  }
  return out;
}

ScenarioReport scenario_report(const Registry& reg, const Preset& preset,
                               const std::vector<std::pair<std::string, uint32_t>>& targets, ResolveOptions options) {
  ScenarioReport rep;
  rep.preset = preset;
  Resolver resolver(reg, preset.assignments, preset.variants, options);
  rep.status = "ok";
  for (const auto& [label, var] : targets) {
    TargetReport t{label, var, "ok", resolver.resolve(var)};
    // A value that is not a real number with nothing missing (a complex result) is an issue of its own.
    const bool odd_value = !t.resolution.number && t.resolution.missing.empty();
    // A value the preset states as [expected] and the model does not reproduce is an issue too.
    const auto e = preset.expected.find(var);
    const bool unmet = e != preset.expected.end() && t.resolution.number &&
                       relative_difference(*t.resolution.number, e->second) > kExpectedTolerance;
    size_t issues = t.resolution.missing.size() + t.resolution.violations() + (odd_value ? 1 : 0) + (unmet ? 1 : 0);
    if (issues) t.status = "issues", rep.status = "issues";
    rep.issue_count += issues;
    rep.targets.push_back(std::move(t));
  }
  rep.overrides = resolver.overrides();
  return rep;
}

std::string scenario_text(const Registry& reg, const ScenarioReport& rep, const ScenarioView& view) {
  const Preset& p = rep.preset;
  std::string out = "Scenario report: " + p.name + "\n";
  if (!p.description.empty()) out += "  description : " + escape_control(p.description) + "\n";
  out += "  source      : " + (p.source.empty() ? std::string("(none given)") : p.source) + "\n";
  if (p.layers.size() > 1) {
    std::string layers;
    for (size_t i = 0; i < p.layers.size(); ++i) layers += (i ? " > " : "") + p.layers[i];
    out += "  layers      : " + layers + "\n";
  }
  out += fmt::format("  assignments : {} (overrides of a relation: {})\n", p.assignments.size(), rep.overrides.size());
  out += fmt::format("  variants    : {}\n", p.variants.size());
  for (const auto& n : p.notes) out += "  note        : " + escape_control(n) + "\n";
  out += "\ntargets:\n";
  size_t width = 0;
  for (const auto& t : rep.targets) width = std::max(width, t.label.size());
  for (const auto& t : rep.targets) {
    const Resolution& r = t.resolution;
    std::string line = fmt::format("  {:<{}}  {:<6}  {} = ", t.label, width, t.status, reg.var(t.var).name);
    line += r.number ? format_quantity(reg.units(), reg.var(t.var), *r.number) : sym::to_string(r.value);
    if (!r.missing.empty()) line += fmt::format("  (missing {})", r.missing.size());
    if (r.violations()) line += fmt::format("  (violations {})", r.violations());
    if (auto e = p.expected.find(t.var); e != p.expected.end() && r.number && relative_difference(*r.number, e->second) > kExpectedTolerance)
      line += "  [expected " + format_quantity(reg.units(), reg.var(t.var), e->second) + "]";
    out += line + "\n";
    if (view.details) {
      std::vector<uint32_t> missing;
      for (const auto& m : r.missing) missing.push_back(m.var);
      std::string names;
      for (auto m : missing) names += (names.empty() ? "" : ", ") + reg.var(m).name;
      if (!missing.empty()) out += "      missing: " + names + "\n";
      for (const auto* list : {&r.constraints, &r.validity})
        for (const auto& c : *list)
          if (c.status == CheckStatus::Violated) out += "      violated: " + c.name + "\n";
    }
  }
  if (view.missing_families) {
    std::vector<MissingInput> missing;
    for (const auto& t : rep.targets) missing.insert(missing.end(), t.resolution.missing.begin(), t.resolution.missing.end());
    auto families = missing_families(reg, missing);
    out += families.empty() ? "\nmissing families: none\n" : "\nmissing families:\n" + missing_families_text(families, 2);
  }
  if (!rep.overrides.empty()) {
    out += "\noverrides (assignments that replace a relation):\n";
    for (const auto& o : rep.overrides) out += override_text(reg, o);
  }
  out += fmt::format("\nstatus: {} ({} issue{})\n", rep.status, rep.issue_count, rep.issue_count == 1 ? "" : "s");
  return out;
}

std::string scenario_json(const Registry& reg, const ScenarioReport& rep) {
  const Preset& p = rep.preset;
  json j{{"preset", p.name},        {"description", p.description}, {"source", p.source},
         {"path", p.path},          {"notes", p.notes},             {"layers", p.layers},
         {"assignment_count", p.assignments.size()}, {"variant_count", p.variants.size()},
         {"status", rep.status},    {"issue_count", rep.issue_count}};
  j["target_count"] = rep.targets.size();
  j["targets"] = json::array();
  for (const auto& t : rep.targets) {
    const Resolution& r = t.resolution;
    json tj{{"label", t.label}, {"target", reg.var(t.var).name}, {"status", t.status}};
    put_quantity(tj, reg, t.var, r.number);
    if (!r.number) tj["formula"] = sym::to_string(r.value);
    if (auto e = p.expected.find(t.var); e != p.expected.end()) {
      tj["expected"] = e->second;
      if (r.number) tj["expected_relative_difference"] = relative_difference(*r.number, e->second);
    }
    std::vector<uint32_t> missing;
    for (const auto& m : r.missing) missing.push_back(m.var);
    tj["missing"] = name_list(reg, missing);
    tj["violated"] = json::array();
    for (const auto* list : {&r.constraints, &r.validity})
      for (const auto& c : *list)
        if (c.status == CheckStatus::Violated) tj["violated"].push_back(c.name);
    tj["trace_steps"] = r.steps.size();
    j["targets"].push_back(tj);
  }
  j["overrides"] = json::array();
  for (const auto& o : rep.overrides) j["overrides"].push_back(override_json(reg, o));
  std::vector<MissingInput> missing;
  for (const auto& t : rep.targets) missing.insert(missing.end(), t.resolution.missing.begin(), t.resolution.missing.end());
  j["missing_families"] = json::array();
  for (const auto& f : missing_families(reg, missing))
    j["missing_families"].push_back({{"family", f.family}, {"boundary_category", f.category}, {"count", f.vars.size()}, {"names", name_list(reg, f.vars)}});
  return j.dump(2);
}

}  // namespace gs
