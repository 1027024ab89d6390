#include "runtime/present/analysis.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/analysis/output.h"
#include "runtime/report.h"

namespace gs::present {
namespace {

using analysis_output::signed_number;

std::string percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

// ---- root-debt

std::string scope_phrase(const RootDebtReport& r) { return r.scope.empty() ? "" : " in system " + r.scope; }

const char* constraints_phrase(bool include) { return include ? "constraints followed" : "constraints not followed"; }

template <class Rows, class Name>
size_t column_width(const Rows& rows, Name name, size_t minimum) {
  size_t w = minimum;
  for (const auto& row : rows) w = std::max(w, name(row).size());
  return w;
}

std::string roots_text(const RootDebtReport& r) {
  std::string out = fmt::format("Root debt: {} root inputs{} by blast radius (transitive dependents; {})\n", r.total_roots, scope_phrase(r),
                                constraints_phrase(r.include_constraints));
  out += fmt::format("  shown {}\n\n", r.shown());
  const size_t fw = column_width(r.roots, [](const RootDebtLine& l) -> const std::string& { return l.family; }, 6);
  const size_t nw = column_width(r.roots, [](const RootDebtLine& l) -> const std::string& { return l.variable; }, 8);
  out += fmt::format("{:>10}  {:<{}}  {:<{}}  {}\n", "dependents", "family", fw, "variable", nw, "unit");
  for (const auto& row : r.roots) out += fmt::format("{:>10}  {:<{}}  {:<{}}  {}\n", row.dependents, row.family, fw, row.variable, nw, row.unit);
  return out;
}

std::string root_families_text(const RootDebtReport& r) {
  std::string out = fmt::format("Root-debt families: {} root inputs{} in {} families by name prefix ({})\n", r.total_roots, scope_phrase(r),
                                r.family_count, constraints_phrase(r.include_constraints));
  out += fmt::format("  shown {}\n\n", r.shown());
  const size_t fw = column_width(r.root_families, [](const RootFamilyLine& f) -> const std::string& { return f.family; }, 6);
  out += fmt::format("{:>12}  {:>5}  {:<{}}  {:<16}  {:<9}  {}\n", "total_weight", "roots", "family", fw, "boundary", "primitive",
                     "heaviest roots (name:dependents)");
  for (const auto& f : r.root_families) {
    std::string top;
    for (size_t i = 0; i < f.top.size(); ++i) top += (i ? ", " : "") + f.top[i].first + ":" + std::to_string(f.top[i].second);
    if (f.root_count > f.top.size()) top += fmt::format(", +{} more", f.root_count - f.top.size());
    out += fmt::format("{:>12}  {:>5}  {:<{}}  {:<16}  {:<9}  {}\n", f.total_weight, f.root_count, f.family, fw, f.boundary_category,
                       f.primitive_boundary ? "yes" : "no", top);
  }
  return out;
}

std::string influence_families_text(const RootDebtReport& r) {
  std::string out = fmt::format("  shown          {} of {} families\n\n", r.shown(), r.family_count);
  const size_t fw = column_width(r.families, [](const InfluenceFamilyLine& f) -> const std::string& { return f.family; }, 6);
  out += fmt::format("{:>8}  {:>6}  {:>10}  {:>9}  {:<{}}  {}\n", "blocking", "inputs", "sum|elast|", "var.share", "family", fw,
                     "top inputs (elasticity)");
  for (const auto& f : r.families) {
    std::string top;
    for (size_t k = 0; k < f.top.size(); ++k) {
      const auto& m = f.top[k];
      top += (k ? ", " : "") + m.variable + ":" +
             (m.status == "missing" ? std::string("MISSING") : m.elasticity ? signed_number(*m.elasticity) : "n/a");
    }
    if (f.input_count > f.top.size()) top += fmt::format(", +{} more", f.input_count - f.top.size());
    out += fmt::format("{:>8}  {:>6}  {:>10}  {:>9}  {:<{}}  {}\n", f.blocking, f.input_count, fmt::format("{:.6g}", f.abs_elasticity),
                       r.linear_sd ? percent(f.variance_share) : "-", f.family, fw, top);
  }
  return out;
}

std::string origin_text(const std::optional<Origin>& o) { return o ? o->layer + (o->sourced ? "" : " (no source)") : ""; }

std::string influence_rows_text(const RootDebtReport& r) {
  std::string out = fmt::format("  shown          {}\n\n", r.shown());
  const size_t nw = column_width(r.rows, [](const InfluenceLine& l) -> const std::string& { return l.variable; }, 5);
  std::vector<std::string> values, kinds;
  size_t vw = 5, kw = 4;
  for (const auto& in : r.rows) {
    values.push_back(in.status == "missing" ? "missing" : in.display.value_or("-"));
    kinds.push_back(in.status == "missing" ? in.boundary_category : in.status);
    vw = std::max(vw, values.back().size()), kw = std::max(kw, kinds.back().size());
  }
  out += fmt::format("{:>4}  {:>14}  {:>9}  {:>10}  {:<{}}  {:<{}}  {:<{}}  {}\n", "rank", "elasticity", "var.share", "dependents", "input", nw,
                     "value", vw, "kind", kw, "set by");
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto& in = r.rows[i];
    std::string e = in.status == "missing" ? "BLOCKS" : in.elasticity ? signed_number(*in.elasticity) : "n/a";
    std::string share = in.variance_share ? percent(*in.variance_share) : "-";
    std::string line = fmt::format("{:>4}  {:>14}  {:>9}  {:>10}  {:<{}}  {:<{}}  {:<{}}  {}", in.rank, e, share, in.dependents, in.variable, nw,
                                   values[i], vw, kinds[i], kw, origin_text(in.origin));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string influence_text(const RootDebtReport& r) {
  std::string out = "Influence on " + r.target + " under " + r.scenario + "\n";
  out += "  value          " +
         (r.display ? *r.display : "not determined (" + std::to_string(r.missing) + " missing input" + (r.missing == 1 ? ")" : "s)")) + "\n";
  out += fmt::format("  inputs         {} in the cone ({} missing); {} registry roots outside it (no influence)\n", r.inputs, r.missing,
                     r.roots_outside_cone);
  out += fmt::format("  elasticity     d ln y / d ln x at the scenario's point (GiNaC derivatives along {} relation{}{})\n",
                     r.relations_differentiated, r.relations_differentiated == 1 ? "" : "s",
                     r.numeric_partials ? fmt::format(", {} by finite difference", r.numeric_partials) : "");
  if (r.linear_sd)
    out += std::string("  variance share ") + kVarianceMethod + "; linear sd " + r.linear_sd_display + "\n";
  else
    out += "  variance share none (the scenario gives no input of this target a distribution)\n";
  if (!r.uncertain_outside_cone.empty())
    out += fmt::format("  note           {} input(s) with a distribution do not reach this target\n", r.uncertain_outside_cone.size());
  return out + (r.mode == RootDebtMode::influence_families ? influence_families_text(r) : influence_rows_text(r));
}

}  // namespace

std::string root_debt_text(const RootDebtReport& r) {
  switch (r.mode) {
    case RootDebtMode::blast_radius: return roots_text(r);
    case RootDebtMode::families: return root_families_text(r);
    case RootDebtMode::influence:
    case RootDebtMode::influence_families: return influence_text(r);
  }
  return "";
}

std::string verify_text(const VerifyReport& r) {
  std::string out = fmt::format("Verify profile {}: {} ({} variables, {} relations)\n", r.profile, r.image, r.variables, r.relations);
  constexpr size_t kShown = 20;  // details per check; --json has them all
  for (const auto& c : r.checks) {
    const std::string status = c.status == "fail" ? "FAIL" : c.status;
    out += fmt::format("  {:<5} {:<11} {}\n", status, c.name, c.summary);
    for (size_t i = 0; i < c.details.size() && i < kShown; ++i) out += "          - " + c.details[i] + "\n";
    if (c.details.size() > kShown) out += fmt::format("          ... {} more (see --json)\n", c.details.size() - kShown);
  }
  out += fmt::format("Summary: {} ok, {} warning{}, {} failed{} ({} checks) in {:.2f} s\n", r.ok, r.warnings, r.warnings == 1 ? "" : "s",
                     r.failed, r.skipped ? fmt::format(", {} skipped", r.skipped) : "", r.checks.size(), r.seconds);
  return out;
}

std::string scenario_audit_text(const ScenarioAuditReport& r, bool missing_families) {
  const size_t n = r.presets.size();
  std::string out = fmt::format("Scenario audit: {} preset{}: {} ok, {} with issues, {} without targets, {} not loading; {} without a source\n", n,
                                n == 1 ? "" : "s", r.ok, r.with_issues, r.no_targets, r.errors, r.unsourced);
  out += fmt::format("  issues {}\n", r.issues);
  for (const auto& e : r.presets) {
    out += fmt::format("\n  {}: {}  sourced={}  assignments={}  variants={}  uncertain={}  targets={}  issues={}\n", e.name, e.status,
                       e.source.empty() ? "no" : "yes", e.assignments, e.variants, e.uncertain, e.targets.size(), e.issues);
    if (!e.error.empty()) out += "    error: " + e.error + "\n";
    const size_t lw = column_width(e.targets, [](const AuditTarget& t) -> const std::string& { return t.label; }, 0);
    for (const auto& t : e.targets) {
      std::string line = fmt::format("    {:<{}}  {:<6}  {}", t.label, lw, t.status, t.name);
      if (t.display) line += " = " + *t.display;
      if (!t.missing.empty()) line += fmt::format("  missing={}", t.missing.size());
      if (t.violations) line += fmt::format("  violations={}", t.violations);
      out += line + "\n";
    }
    if (missing_families && !e.families.empty())
      out += "    missing families:\n" + missing_families_text(e.families, 6);
    else if (!e.families.empty())
      out += fmt::format("    missing families: {} (list them with --missing-families)\n", e.families.size());
  }
  return out;
}

std::string next_work_text(const NextWorkReport& r) {
  std::string targets;
  for (size_t i = 0; i < r.target_names.size() && i < 8; ++i) targets += (i ? ", " : "") + r.target_names[i];
  if (r.target_names.size() > 8) targets += fmt::format(", +{} more", r.target_names.size() - 8);
  std::string out = "Next work under " + r.preset + " for " + targets + "\n";
  out += fmt::format("  {} items, shown {}\n", r.items.size(), r.shown);
  for (size_t i = 0; i < r.shown && i < r.items.size(); ++i) {
    const auto& it = r.items[i];
    out += fmt::format("\n{:>3}. [{}] {}\n", i + 1, it.kind, it.title);
    out += "     evidence: " + it.evidence + "\n";
    if (!it.command.empty()) out += "     command: " + it.command + "\n";
  }
  if (!r.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& n : r.notes) out += "  - " + n + "\n";
  }
  return out;
}

}  // namespace gs::present
