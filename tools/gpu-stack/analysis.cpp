// root-debt, verify, scenario-audit and next-work: the model's health and its most decision-relevant gaps
// (runtime/analysis).
#include <iostream>

#include "runtime/analysis/audit.h"
#include "runtime/analysis/next_work.h"
#include "runtime/analysis/root_debt.h"
#include "runtime/analysis/scenario.h"
#include "runtime/analysis/verify.h"
#include "runtime/present/analysis.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

// The report as --json asks for it, or its text.
template <class Report, class Text>
void print(const Common& c, const Report& r, Text text) {
  std::cout << (c.json ? nlohmann::ordered_json(r).dump(2) + "\n" : text(r));
}

int run_root_debt(const Common& c, const ScenarioInputs& in, const gs::RootDebtRequest& req) {
  gs::Registry reg = load_registry(c);
  if (req.target.empty() && !(in.presets.empty() && in.workloads.empty() && in.assigns.empty() && in.variants.empty()))
    throw UsageError("a scenario (--preset, --workload, --assign, --variant) ranks inputs by influence on a target; pass --target NAME");
  gs::PresetLibrary lib = library(reg, c);
  gs::AnalysisScenario s = gs::load_scenario(reg, lib, presets_dir(c), gs::api::preset_layers(lib, in), in.assigns, in.variants);
  print(c, gs::root_debt(reg, s, req), gs::present::root_debt_text);
  return 0;
}

// Exit 1 when a check failed.
int run_verify(const Common& c, gs::VerifyRequest req) {
  gs::Registry reg = load_registry(c);
  req.image_path = image_path(c), req.presets_dir = presets_dir(c);
  const gs::VerifyReport r = gs::verify(reg, req);
  print(c, r, gs::present::verify_text);
  return r.passed() ? 0 : 1;
}

// Exit 1 with --fail-on-issues when a preset has issues or does not load.
int run_scenario_audit(const Common& c, gs::AuditRequest req) {
  gs::Registry reg = load_registry(c);
  req.presets_dir = presets_dir(c);
  const gs::ScenarioAuditReport r = gs::scenario_audit(reg, req);
  print(c, r, [&](const gs::ScenarioAuditReport& a) { return gs::present::scenario_audit_text(a, req.missing_families); });
  return req.fail_on_issues && r.issues > 0 ? 1 : 0;
}

int run_next_work(const Common& c, gs::NextWorkRequest req) {
  gs::Registry reg = load_registry(c);
  req.presets_dir = presets_dir(c);
  print(c, gs::next_work(reg, req), gs::present::next_work_text);
  return 0;
}

}  // namespace

void add_analysis_commands(Cli& cli) {
  struct State {
    ScenarioInputs scenario;
    gs::RootDebtRequest debt;
    gs::VerifyRequest verify;
    gs::AuditRequest audit;
    gs::NextWorkRequest work;
  };
  auto st = state<State>();
  const Common& common = cli.common;

  auto* debt = cli.app.add_subcommand("root-debt", "Rank root inputs by blast radius, or by influence on a target under a scenario");
  debt->add_flag("--families", st->debt.families, "group by family (name prefix) with the heaviest members of each");
  debt->add_option("--limit", st->debt.limit, "rows or families to show (default 20)")->check(CLI::NonNegativeNumber);
  debt->add_flag("--include-constraints", st->debt.include_constraints, "let constraints carry dependence too (blast radius)");
  debt->add_option("--scope", st->debt.scope, "rank only the roots of this system (blast radius and --families)");
  debt->add_option("--target", st->debt.target, "rank the target's inputs by elasticity under the scenario (missing inputs first)");
  add_scenario(debt, st->scenario, true);
  add_common(debt, cli.common);
  cli.on_parsed(debt, [st, &common] { return run_root_debt(common, st->scenario, st->debt); });

  auto* verify = cli.app.add_subcommand(
      "verify", "Check the model's health: cycles, ids, trivial conditions, constants, presets, image freshness, orphans, file sizes");
  verify->add_option("--profile", st->verify.profile, "fast (default) or full (adds JIT-versus-GiNaC agreement)")
      ->check(CLI::IsMember({"fast", "full"}));
  verify->add_option("--large-file-threshold", st->verify.large_file_lines,
                     "count model source files with at least this many lines as large (default 700, the reference's)")
      ->check(CLI::Range(size_t(1), size_t(100000000)));
  add_common(verify, cli.common);
  cli.on_parsed(verify, [st, &common] { return run_verify(common, st->verify); });

  auto* audit = cli.app.add_subcommand("scenario-audit", "For every preset: source, assignments, targets' status and missing families");
  audit->add_option("--preset", st->audit.presets, "audit only this preset (repeatable)")->allow_extra_args(false);
  audit->add_option("--target", st->audit.targets, "[LABEL=]NAME: audit this target instead of each preset's own")->allow_extra_args(false);
  audit->add_flag("--missing-families", st->audit.missing_families, "list the families of missing inputs");
  audit->add_flag("--fail-on-issues", st->audit.fail_on_issues, "exit 1 when a preset has issues or does not load");
  add_common(audit, cli.common);
  cli.on_parsed(audit, [st, &common] { return run_scenario_audit(common, st->audit); });

  auto* work = cli.app.add_subcommand("next-work", "Ranked list of the most decision-relevant gaps: blockers, unsourced influential inputs");
  work->add_option("--preset", st->work.preset, "scenario to weigh inputs under (default: default, else the dense fixture)");
  work->add_option("--target", st->work.targets, "headline target (repeatable; default: econ.cost.per_token, else the preset's targets)")->allow_extra_args(false);
  work->add_option("--limit", st->work.limit, "items to show (default 10)")->check(CLI::NonNegativeNumber);
  work->add_option("--runs", st->work.runs_path, "published runs (CSV) to validate; list the largest residuals");
  add_common(work, cli.common);
  cli.on_parsed(work, [st, &common] { return run_next_work(common, st->work); });
}

}  // namespace gs::cli
