#include "runtime/analysis/audit.h"

#include <algorithm>
#include <map>
#include <set>

#include "runtime/analysis/output.h"
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
      t.label = label, t.var = var, t.value = res.number, t.violations = res.violations();
      for (const auto& m : res.missing) {
        t.missing.push_back(m.var);
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

json entry_json(const Registry& reg, const AuditEntry& e) {
  json j{{"preset", e.name},       {"path", e.path},           {"status", e.status},           {"sourced", !e.source.empty()},
         {"source", e.source},     {"assignments", e.assignments}, {"variants", e.variants}, {"uncertain", e.uncertain},
         {"issue_count", e.issues}};
  if (!e.error.empty()) j["error"] = e.error;
  j["targets"] = json::array();
  for (const auto& t : e.targets) {
    json tj{{"label", t.label}, {"target", reg.var(t.var).name}, {"status", t.status}, {"value", optional_number(t.value)},
            {"unit", reg.var(t.var).unit}};
    if (t.value) tj["display"] = format_quantity(reg.units(), reg.var(t.var), *t.value);
    tj["missing"] = json::array();
    for (uint32_t v : t.missing) tj["missing"].push_back(reg.var(v).name);
    tj["violations"] = t.violations;
    j["targets"].push_back(tj);
  }
  j["missing_families"] = json::array();
  for (const auto& f : e.families) {
    json names_j = json::array();
    for (uint32_t v : f.vars) names_j.push_back(reg.var(v).name);
    j["missing_families"].push_back(json{{"family", f.family}, {"boundary_category", f.category},
                                         {"primitive_boundary", f.category == "primitive-root"}, {"count", f.vars.size()},
                                         {"variables", names_j}});
  }
  return j;
}

}  // namespace

std::vector<AuditEntry> scenario_audit(const Registry& reg, const AuditRequest& req) {
  PresetLibrary lib(reg, req.presets_dir);
  const auto forced = parse_targets(reg, req.targets);
  std::vector<AuditEntry> out;
  if (req.presets.empty()) {
    for (const PresetFile& f : preset_files(req.presets_dir))
      if (f.skipped.empty()) out.push_back(audit_one(reg, lib, f.name, f.path, forced));
  } else {
    for (const auto& name : req.presets) {
      lib.load(name);  // an unknown name is bad input (exit 2), not a finding
      out.push_back(audit_one(reg, lib, name, name, forced));
    }
  }
  return out;
}

int scenario_audit_command(const Registry& reg, const AuditRequest& req, std::ostream& out, std::ostream&) {
  auto entries = scenario_audit(reg, req);
  size_t issues = 0, with_issues = 0, errors = 0, no_targets = 0, ok = 0, unsourced = 0;
  for (const auto& e : entries) {
    issues += e.issues;
    with_issues += e.status == "issues";
    errors += e.status == "error";
    no_targets += e.status == "no-targets";
    ok += e.status == "ok";
    unsourced += e.status != "error" && e.source.empty();
  }
  if (req.json) {
    json j{{"preset_count", entries.size()}, {"ok", ok},           {"with_issues", with_issues}, {"errors", errors},
           {"no_targets", no_targets},       {"unsourced", unsourced}, {"issue_count", issues}};
    j["presets"] = json::array();
    for (const auto& e : entries) j["presets"].push_back(entry_json(reg, e));
    out << j.dump(2) << "\n";
  } else {
    out << fmt::format("Scenario audit: {} preset{}: {} ok, {} with issues, {} without targets, {} not loading; {} without a source\n",
                       entries.size(), entries.size() == 1 ? "" : "s", ok, with_issues, no_targets, errors, unsourced);
    out << fmt::format("  issues {}\n", issues);
    for (const auto& e : entries) {
      out << fmt::format("\n  {}: {}  sourced={}  assignments={}  variants={}  uncertain={}  targets={}  issues={}\n", e.name, e.status,
                         e.source.empty() ? "no" : "yes", e.assignments, e.variants, e.uncertain, e.targets.size(), e.issues);
      if (!e.error.empty()) out << "    error: " << e.error << "\n";
      size_t lw = 0;
      for (const auto& t : e.targets) lw = std::max(lw, t.label.size());
      for (const auto& t : e.targets) {
        std::string line = fmt::format("    {:<{}}  {:<6}  {}", t.label, lw, t.status, reg.var(t.var).name);
        if (t.value) line += " = " + format_quantity(reg.units(), reg.var(t.var), *t.value);
        if (!t.missing.empty()) line += fmt::format("  missing={}", t.missing.size());
        if (t.violations) line += fmt::format("  violations={}", t.violations);
        out << line << "\n";
      }
      if (req.missing_families && !e.families.empty()) {
        out << "    missing families:\n" << missing_families_text(reg, e.families, 6);
      } else if (!e.families.empty()) {
        out << fmt::format("    missing families: {} (list them with --missing-families)\n", e.families.size());
      }
    }
  }
  return req.fail_on_issues && issues > 0 ? 1 : 0;
}

}  // namespace gs
