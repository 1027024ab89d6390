// resolve, trace and scenario-report: a variable (or a preset's targets) computed under a scenario, with
// the override checks that guard a user's preset.
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "runtime/format.h"
#include "runtime/uq/memory_fit.h"
#include "runtime/report.h"
#include "runtime/resolver.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

struct ResolveFlags {
  bool trace = false, missing = false, constraints = false, explain = false, check_overrides = false, fail_on_violated = false;
  bool no_check_overrides = false;
  bool missing_families = false, fallback = false, solve_systems = false;
  bool diagnostics = false, validity = false, fail_on_violated_validity = false;
  double tolerance = 1e-6;
};

struct ReportFlags {
  bool details = false, missing_families = false, fail_on_issues = false;
};

void add_checks(CLI::App* cmd, ResolveFlags& f) {
  cmd->add_flag("--check-overrides", f.check_overrides, "evaluate the relation each assignment replaces and warn where they disagree "
                "(on by default, with a one-line summary, when a preset file outside the presets directory is used)");
  cmd->add_flag("--no-check-overrides", f.no_check_overrides, "do not check a user preset's overrides");
  cmd->add_option("--tolerance", f.tolerance, "relative difference allowed by --check-overrides (default 1e-6)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--fail-on-violated-constraints", f.fail_on_violated, "exit 1 when a constraint, domain or validity condition is violated");
  cmd->add_flag("--fail-on-violated-approximation-validity", f.fail_on_violated_validity,
                "exit 1 when a used approximation's validity condition is definitely violated (an undecided one does not fail)");
}

gs::ResolveOptions options_of(const ResolveFlags& f) {
  gs::ResolveOptions o;
  o.explain = f.explain, o.check_overrides = f.check_overrides, o.override_tolerance = f.tolerance;
  o.fallback_on_violated_validity = f.fallback, o.solve_systems = f.solve_systems;
  return o;
}

// A user's preset is checked by default: its assignments may pin values the model derives, and a pin
// written for another scenario is the commonest silent error. Shipped presets are checked by the tests
// and `verify`, so they stay quiet unless asked.
bool check_user_presets(ResolveFlags& f, const std::vector<std::string>& user_presets) {
  if (f.check_overrides || f.no_check_overrides || user_presets.empty()) return false;
  f.check_overrides = true;
  return true;
}

void summarize_overrides(const std::vector<gs::Override>& overrides, const std::vector<std::string>& user_presets) {
  size_t agree = 0, disagree = 0, unchecked = 0;
  for (const auto& o : overrides) {
    if (o.checked && o.status == gs::CheckStatus::Satisfied) ++agree;
    else if (o.checked && o.status == gs::CheckStatus::Violated) ++disagree;
    else ++unchecked;
  }
  std::string names;
  for (const auto& n : user_presets) names += (names.empty() ? "" : ", ") + n;
  std::cerr << "gpu-stack: checked overrides of user preset " << names << ": " << overrides.size()
            << " assignments replace a relation; " << agree << " agree, " << disagree << " disagree, " << unchecked
            << " cannot be checked (--check-overrides lists them, --no-check-overrides skips this)\n";
}

void warn_disagreements(const gs::Registry& reg, const std::vector<gs::Override>& overrides) {
  for (const auto& o : overrides) {
    if (!o.checked || o.status != gs::CheckStatus::Violated) continue;
    std::cerr << "warning: the value assigned to " << reg.var(o.var).name << " disagrees with "
              << reg.relation(uint32_t(o.relation)).name << " (relative difference " << o.relative_difference << ")\n";
  }
}

// Exit 1 when asked to fail on a kind of violation and there is one; the count goes to stderr.
// `violations` counts every violated check, `validity` those of approximation validity alone.
int finish_violations(size_t violations, size_t validity, const ResolveFlags& f) {
  if (f.fail_on_violated && violations > 0) {
    std::cerr << "gpu-stack: " << violations << " violated constraint" << (violations == 1 ? "" : "s")
              << " (constraints, declared domains or approximation validity)\n";
    return 1;
  }
  if (f.fail_on_violated_validity && validity > 0) {
    std::cerr << "gpu-stack: " << validity << " approximation" << (validity == 1 ? " is" : "s are")
              << " used outside " << (validity == 1 ? "its" : "their") << " validity range (--approximation-validity lists them)\n";
    return 1;
  }
  return 0;
}

int run_resolve(const Common& c, const std::string& target_name, const ScenarioInputs& in, ResolveFlags f) {
  gs::Registry reg = load_registry(c);
  uint32_t target = gs::lookup_variable(reg, target_name, "target variable");
  std::vector<std::string> user_presets;
  gs::ScenarioPoint s = gs::api::build_scenario(reg, library(reg, c), in, &user_presets);
  const bool summarize = check_user_presets(f, user_presets);
  const gs::api::ResolveAnswer answer = gs::api::resolve(reg, s, target, options_of(f));
  const gs::Resolution& res = answer.resolution;
  const std::optional<gs::Interval>& interval = answer.interval;
  // Whether the layout fits in HBM: an answer for a layout that cannot run is flagged, never plain.
  const auto fit_check = gs::load_memory_fit_check(reg, library(reg, c).dir());
  const auto fit = fit_check ? gs::check_memory_fit(reg, *fit_check, s.assignments, s.variants) : std::nullopt;
  if (fit && !fit->fits) std::cerr << "gpu-stack: warning: this layout " << gs::memory_fit_text(reg, *fit_check, *fit);
  if (c.json) {
    nlohmann::ordered_json j = gs::api::resolve_document(reg, answer);
    if (fit) {
      nlohmann::ordered_json parts = nlohmann::ordered_json::object();
      for (const auto& [name, bytes] : fit->parts) parts[name] = bytes;
      j["memory_fit"] = {{"fits", fit->fits}, {"constraint", reg.relation(fit_check->constraint).name},
                         {"required", fit->required}, {"capacity", fit->capacity}, {"parts", parts}};
    }
    std::cout << j.dump(2) << "\n";
  } else {
    // Reasons are shown beside the trace steps, so asking for them shows the trace.
    std::cout << gs::resolution_text(reg, res, {f.trace || f.explain, f.missing, f.constraints, f.validity, f.missing_families, f.diagnostics});
    if (interval)
      std::cout << "90% interval: " << gs::format_quantity(reg.units(), reg.var(target), interval->p5) << " .. "
                << gs::format_quantity(reg.units(), reg.var(target), interval->p95) << " (" << s.uncertain.size()
                << " uncertain inputs, " << interval->samples << " randomized Halton samples in " << interval->replicates
                << " shifts; standard error " << gs::format_quantity(reg.units(), reg.var(target), interval->p5_se) << " and "
                << gs::format_quantity(reg.units(), reg.var(target), interval->p95_se) << ")\n";
  }
  warn_disagreements(reg, res.overrides);
  if (summarize) summarize_overrides(res.overrides, user_presets);
  return finish_violations(res.violations(), gs::count_violations({}, res.validity), f);
}

int run_trace(const Common& c, const std::string& target_name, const ScenarioInputs& in, int depth) {
  gs::Registry reg = load_registry(c);
  uint32_t target = gs::lookup_variable(reg, target_name, "target variable");
  gs::ScenarioPoint s = gs::api::build_scenario(reg, library(reg, c), in);
  gs::Resolver resolver(reg, s.assignments, s.variants);
  gs::Resolution res = resolver.resolve(target);
  std::cout << (c.json ? gs::trace_json(reg, res) + "\n" : gs::trace_text(reg, res, depth));
  return 0;
}

int run_scenario(const Common& c, const std::vector<std::string>& preset_names, const std::vector<std::string>& target_args,
                 const ScenarioInputs& in, ResolveFlags f, const ReportFlags& rf) {
  gs::Registry reg = load_registry(c);
  std::vector<gs::Preset> loaded;
  gs::Preset preset = library(reg, c).compose(preset_names, &loaded);
  std::vector<std::string> user_presets;
  for (const auto& one : loaded)
    if (library(reg, c).is_external(one)) user_presets.push_back(one.name);
  const bool summarize = check_user_presets(f, user_presets);
  gs::ScenarioPoint extra = gs::api::build_scenario(reg, library(reg, c), in);
  for (const auto& [v, x] : extra.assignments) preset.assignments[v] = x;
  for (const auto& [v, k] : extra.variants) preset.variants[v] = k;
  std::vector<std::pair<std::string, uint32_t>> targets;
  for (const auto& t : target_args) {
    auto eq = t.find('=');
    std::string name = eq == std::string::npos ? t : t.substr(eq + 1);
    std::string label = eq == std::string::npos ? name.substr(name.find_last_of('.') + 1) : t.substr(0, eq);
    if (label.empty() || name.empty()) throw UsageError("bad --target '" + t + "': expected [LABEL=]NAME");
    targets.emplace_back(label, gs::lookup_variable(reg, name, "target variable"));
  }
  if (targets.empty()) targets = preset.targets;
  if (targets.empty()) throw UsageError("preset '" + preset.name + "' names no [targets]; pass --target [LABEL=]NAME");
  gs::ScenarioReport report = gs::scenario_report(reg, preset, targets, options_of(f));
  std::cout << (c.json ? gs::scenario_json(reg, report) + "\n" : gs::scenario_text(reg, report, {rf.details, rf.missing_families}));
  warn_disagreements(reg, report.overrides);
  if (summarize) summarize_overrides(report.overrides, user_presets);
  size_t violations = 0, validity = 0;
  for (const auto& t : report.targets)
    violations += t.resolution.violations(), validity += gs::count_violations({}, t.resolution.validity);
  if (int code = finish_violations(violations, validity, f)) return code;
  if (rf.fail_on_issues && report.issue_count > 0) {
    std::cerr << "gpu-stack: " << report.issue_count << " issue" << (report.issue_count == 1 ? "" : "s")
              << " (missing inputs or violated checks)\n";
    return 1;
  }
  return 0;
}

}  // namespace

void add_resolve_commands(Cli& cli) {
  struct State {
    std::string target;
    ScenarioInputs scenario;
    ResolveFlags flags;
    int trace_depth = -1;
    std::vector<std::string> report_presets, targets;
    ReportFlags report_flags;
  };
  auto st = state<State>();
  const Common& common = cli.common;

  auto* resolve = cli.app.add_subcommand("resolve", "Compute a variable under a scenario");
  resolve->add_option("target", st->target, "variable to compute")->required();
  add_scenario(resolve, st->scenario, true);
  resolve->add_flag("--trace", st->flags.trace, "list every computed step with its relation and source location");
  resolve->add_flag("--missing", st->flags.missing, "describe each missing input: unit, family, reason, dependents");
  resolve->add_flag("--constraints", st->flags.constraints, "list every constraint, domain and validity check");
  resolve->add_flag("--approximation-validity", st->flags.validity, "list the validity check of every approximation used");
  resolve->add_flag("--diagnostics", st->flags.diagnostics,
                    "describe every missing input and violated check, and count the undecided checks (or say there are none)");
  resolve->add_flag("--explain-selection", st->flags.explain, "say why each relation was selected (shows the trace)");
  resolve->add_flag("--missing-families", st->flags.missing_families, "group the missing inputs by family and boundary category");
  resolve->add_flag("--fallback-on-violated-validity", st->flags.fallback,
                    "when a selected approximation's validity is violated, use the variable's single alternative relation (marked in the trace)");
  resolve->add_flag("--solve-systems", st->flags.solve_systems,
                    "solve small simultaneous systems (2-3 variables defined through each other, every outside input a number): "
                    "linear ones exactly, nonlinear ones by Newton's method");
  add_checks(resolve, st->flags);
  add_common(resolve, cli.common);
  cli.on_parsed(resolve, [st, &common] { return run_resolve(common, st->target, st->scenario, st->flags); });

  auto* trace = cli.app.add_subcommand("trace", "Show a variable's cone as a tree with values, relations and source locations");
  trace->add_option("target", st->target, "variable to trace")->required();
  trace->add_option("--depth", st->trace_depth, "show only this many levels below the target (text output)")->check(CLI::NonNegativeNumber);
  add_scenario(trace, st->scenario, true);
  add_common(trace, cli.common);
  cli.on_parsed(trace, [st, &common] { return run_trace(common, st->target, st->scenario, st->trace_depth); });

  auto* report = cli.app.add_subcommand("scenario-report", "Resolve a preset's targets and report values, gaps and overrides");
  report->add_option("preset", st->report_presets, "preset names or TOML files; several are layered in order (later wins)")->required();
  report->add_flag("--details", st->report_flags.details, "list each target's missing inputs and violated checks by name");
  report->add_flag("--missing-families", st->report_flags.missing_families, "group the missing inputs by family");
  report->add_flag("--fail-on-issues", st->report_flags.fail_on_issues, "exit 1 when a target has missing inputs or violated checks");
  report->add_option("--target", st->targets, "[LABEL=]NAME: report this variable instead of the preset's targets")->allow_extra_args(false);
  add_scenario(report, st->scenario, false);
  add_checks(report, st->flags);
  add_common(report, cli.common);
  cli.on_parsed(report, [st, &common] {
    return run_scenario(common, st->report_presets, st->targets, st->scenario, st->flags, st->report_flags);
  });
}

}  // namespace gs::cli
