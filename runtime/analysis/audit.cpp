#include "runtime/analysis/audit.h"

#include <algorithm>
#include <map>
#include <set>

#include "runtime/analysis/output.h"
#include "runtime/format.h"
#include "runtime/analysis/scenario.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"

namespace gs {

using analysis_output::json;
using analysis_output::optional_number;

namespace {

std::vector<std::pair<std::string, uint32_t>> parse_targets(const Registry& reg, const std::vector<std::string>& args) {
  std::vector<std::pair<std::string, uint32_t>> out;
  for (const auto& t : args) {
    auto eq = t.find('=');
    std::string name = eq == std::string::npos ? t : t.substr(eq + 1);
    std::string label = eq == std::string::npos ? name.substr(name.find_last_of('.') + 1) : t.substr(0, eq);
    if (label.empty() || name.empty()) throw PresetError("bad --target '" + t + "': expected [LABEL=]NAME");
    out.emplace_back(label, lookup_variable(reg, name, "target variable"));
  }
  return out;
}

AuditEntry audit_one(const Registry& reg, const PresetLibrary& lib, const std::string& name, const std::string& path,
                     const std::vector<std::pair<std::string, uint32_t>>& forced_targets) {
  AuditEntry e;
  e.name = name, e.path = path;
  Preset p;
  try {
    p = lib.load(path);
  } catch (const std::exception& ex) {
    e.status = "error", e.error = ex.what(), e.issues = 1;
    return e;
  }
  e.source = p.source;
  e.assignments = p.assignments.size(), e.variants = p.variants.size(), e.uncertain = p.uncertain.size();
  const auto& targets = forced_targets.empty() ? p.targets : forced_targets;
  if (targets.empty()) {
    e.status = "no-targets";
    return e;
  }
  e.status = "ok";
  std::vector<MissingInput> missing;
  try {
    Resolver resolver(reg, p.assignments, p.variants);
    for (const auto& [label, var] : targets) {
      Resolution res = resolver.resolve(var);
      AuditTarget t;
      t.label = label, t.var = var, t.name = reg.var(var).name, t.unit = reg.var(var).unit;
      t.value = res.number, t.violations = res.violations();
      if (t.value) t.display = format_quantity(reg.units(), reg.var(var), *t.value);
      for (const auto& m : res.missing) {
        t.missing.push_back(reg.var(m.var).name);
        missing.push_back(m);
      }
      // A value that is no real number with nothing missing (a complex result) is an issue too.
      const size_t odd = !res.number && res.missing.empty() ? 1 : 0;
      const size_t issues = t.missing.size() + t.violations + odd;
      t.status = issues ? "issues" : "ok";
      e.issues += issues;
      if (issues) e.status = "issues";
      e.targets.push_back(std::move(t));
    }
  } catch (const std::exception& ex) {
    e.status = "error", e.error = ex.what(), e.issues += 1;
  }
  e.families = missing_families(reg, missing);
  return e;
}

json entry_json(const AuditEntry& e) {
  json j{{"preset", e.name},       {"path", e.path},           {"status", e.status},           {"sourced", !e.source.empty()},
         {"source", e.source},     {"assignments", e.assignments}, {"variants", e.variants}, {"uncertain", e.uncertain},
         {"issue_count", e.issues}};
  if (!e.error.empty()) j["error"] = e.error;
  j["targets"] = json::array();
  for (const auto& t : e.targets) {
    json tj{{"label", t.label}, {"target", t.name}, {"status", t.status}, {"value", optional_number(t.value)}, {"unit", t.unit}};
    if (t.display) tj["display"] = *t.display;
    tj["missing"] = t.missing;
    tj["violations"] = t.violations;
    j["targets"].push_back(tj);
  }
  j["missing_families"] = json::array();
  for (const auto& f : e.families)
    j["missing_families"].push_back(json{{"family", f.family}, {"boundary_category", f.category},
                                         {"primitive_boundary", f.category == "primitive-root"}, {"count", f.names.size()},
                                         {"variables", f.names}});
  return j;
}

}  // namespace

ScenarioAuditReport scenario_audit(const Registry& reg, const AuditRequest& req) {
  PresetLibrary lib(reg, req.presets_dir);
  const auto forced = parse_targets(reg, req.targets);
  ScenarioAuditReport rep;
  std::vector<AuditEntry>& out = rep.presets;
  if (req.presets.empty()) {
    for (const PresetFile& f : preset_files(req.presets_dir))
      if (f.skipped.empty()) out.push_back(audit_one(reg, lib, f.name, f.path, forced));
  } else {
    for (const auto& name : req.presets) {
      lib.load(name);  // an unknown name is bad input (exit 2), not a finding
      out.push_back(audit_one(reg, lib, name, name, forced));
    }
  }
  for (const auto& e : out) {
    rep.issues += e.issues;
    rep.with_issues += e.status == "issues";
    rep.errors += e.status == "error";
    rep.no_targets += e.status == "no-targets";
    rep.ok += e.status == "ok";
    rep.unsourced += e.status != "error" && e.source.empty();
  }
  return rep;
}

void to_json(json& j, const ScenarioAuditReport& r) {
  j = json{{"preset_count", r.presets.size()}, {"ok", r.ok},           {"with_issues", r.with_issues}, {"errors", r.errors},
           {"no_targets", r.no_targets},       {"unsourced", r.unsourced}, {"issue_count", r.issues}};
  j["presets"] = json::array();
  for (const auto& e : r.presets) j["presets"].push_back(entry_json(e));
}

}  // namespace gs
