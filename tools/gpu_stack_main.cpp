// gpu-stack: questions about the compiled model.
//   gpu-stack stats
//   gpu-stack resolve TARGET [--preset P]... [--assign NAME=VALUE[ UNIT]]... [--variant NAME=KEY]... [flags]
//   gpu-stack trace TARGET [--preset P]... [--assign ...]... [--variant ...]...
//   gpu-stack scenario-report PRESET [--target [LABEL=]NAME]... [--assign ...]... [--variant ...]...
//   gpu-stack export dot|json TARGET [--dependents] [--constraints] [-o FILE]
//   gpu-stack export site --out DIR [--preset P]... [--runs FILE.csv] [--run-experiments] [--artifacts PATH]...
//   gpu-stack root-debt [--families] [--limit N] [--include-constraints] [--preset P --target NAME]
//   gpu-stack verify [--profile fast|full]
//   gpu-stack scenario-audit [--preset P]... [--target [LABEL=]NAME]... [--missing-families] [--fail-on-issues]
//   gpu-stack next-work [--preset P] [--target NAME]... [--runs FILE.csv] [--limit N]
//   gpu-stack validate --runs FILE.csv [--max-median-ape PCT]
//   gpu-stack calibrate [--runs FILE.csv] [--out presets/calibration/fitted.toml [--force]]
//   gpu-stack plan --preset P [--workload W] [--fix KNOB=VALUE]... [--objective NAME] [--top K]
// Every command takes --json and --image FILE. Exit status: 0 success, 1 findings (violated
// constraints, with --fail-on-violated-constraints), 2 bad usage or bad input. This is the only
// translation unit that includes CLI11.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "image/atomic_file.h"
#include "runtime/api/session.h"
#include "runtime/export.h"
#include "runtime/format.h"
#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/report.h"
#include "runtime/resolver.h"
#include "runtime/sim/commands.h"
#include "runtime/sim/inputs.h"
#include "runtime/uq/commands.h"
#include "runtime/uq/uncertainty.h"
#include "runtime/workers.h"
#include "runtime/analysis/audit.h"
#include "runtime/analysis/next_work.h"
#include "runtime/analysis/root_debt.h"
#include "runtime/analysis/scenario.h"
#include "runtime/analysis/verify.h"
#include "runtime/validate/calibrate.h"
#include "runtime/validate/validate.h"
#include "runtime/site/site.h"
#include "runtime/strategy/report.h"
#include "runtime/strategy/search.h"

namespace {

namespace fs = std::filesystem;

// Bad input found by the command itself (not by the library); exits 2 like the library's errors.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Common {
  bool json = false;
  std::string image;
  std::string presets_dir;
};

using ScenarioInputs = gs::api::ScenarioInputs;

struct ResolveFlags {
  bool trace = false, missing = false, constraints = false, explain = false, check_overrides = false, fail_on_violated = false;
  double tolerance = 1e-6;
};

void add_common(CLI::App* cmd, Common& c) {
  cmd->add_flag("--json", c.json, "print JSON (SI values with unit strings) instead of text");
  cmd->add_option("--image", c.image, "registry image to read (default: $GSTACK_IMAGE, else model.gsimg of this build)");
  cmd->add_option("--presets", c.presets_dir, "directory of presets (default: $GSTACK_PRESETS, else the source tree's presets/)");
}

void add_scenario(CLI::App* cmd, ScenarioInputs& s, bool with_preset) {
  if (with_preset)
    cmd->add_option("--preset", s.presets, "preset name or TOML file; repeat to layer them (later wins)")->allow_extra_args(false);
  cmd->add_option("--assign", s.assigns, "NAME=VALUE[ UNIT]; a bare value is in the variable's display unit")->allow_extra_args(false);
  cmd->add_option("--variant", s.variants, "NAME=KEY: select a variant relation")->allow_extra_args(false);
}

void add_checks(CLI::App* cmd, ResolveFlags& f) {
  cmd->add_flag("--check-overrides", f.check_overrides, "evaluate the relation each assignment replaces and warn where they disagree");
  cmd->add_option("--tolerance", f.tolerance, "relative difference allowed by --check-overrides (default 1e-6)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--fail-on-violated-constraints", f.fail_on_violated, "exit 1 when a constraint, domain or validity condition is violated");
}

std::string default_image() {
  // build/bin/gpu-stack reads build/model.gsimg, so a fresh build works without flags.
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return gs::api::default_image_path(ec ? fs::path() : exe.parent_path().parent_path());
}

std::string image_path(const Common& c) { return c.image.empty() ? default_image() : c.image; }

gs::Registry load_registry(const Common& c) { return gs::api::load_registry(image_path(c)); }

using Scenario = gs::ScenarioPoint;

using gs::api::build_scenario;

gs::ResolveOptions options_of(const ResolveFlags& f) {
  gs::ResolveOptions o;
  o.explain = f.explain, o.check_overrides = f.check_overrides, o.override_tolerance = f.tolerance;
  return o;
}

void warn_disagreements(const gs::Registry& reg, const std::vector<gs::Override>& overrides) {
  for (const auto& o : overrides) {
    if (!o.checked || o.status != gs::CheckStatus::Violated) continue;
    std::cerr << "warning: the value assigned to " << reg.var(o.var).name << " disagrees with "
              << reg.relation(uint32_t(o.relation)).name << " (relative difference " << o.relative_difference << ")\n";
  }
}

int finish_violations(size_t violations, bool fail) {
  if (!fail || violations == 0) return 0;
  std::cerr << "gpu-stack: " << violations << " violated constraint" << (violations == 1 ? "" : "s")
            << " (constraints, declared domains or approximation validity)\n";
  return 1;
}

gs::PresetLibrary library(const gs::Registry& reg, const Common& c) {
  return gs::PresetLibrary(reg, gs::api::presets_dir(c.presets_dir));
}

int run_stats(const Common& c) {
  gs::Registry reg = load_registry(c);
  std::cout << (c.json ? gs::stats_json(reg, image_path(c)) + "\n" : gs::stats_text(reg, image_path(c)));
  return 0;
}

int run_resolve(const Common& c, const std::string& target_name, const ScenarioInputs& in, const ResolveFlags& f) {
  gs::Registry reg = load_registry(c);
  uint32_t target = gs::lookup_variable(reg, target_name, "target variable");
  Scenario s = build_scenario(reg, library(reg, c), in);
  const gs::api::ResolveAnswer answer = gs::api::resolve(reg, s, target, options_of(f));
  const gs::Resolution& res = answer.resolution;
  const std::optional<gs::Interval>& interval = answer.interval;
  if (c.json) {
    auto j = nlohmann::ordered_json::parse(gs::resolution_json(reg, res));
    if (interval)
      j["interval"] = {{"p5", interval->p5}, {"median", interval->p50}, {"p95", interval->p95},
                       {"samples", interval->samples}, {"seed", answer.interval_seed}};
    std::cout << j.dump(2) << "\n";
  } else {
    // Reasons are shown beside the trace steps, so asking for them shows the trace.
    std::cout << gs::resolution_text(reg, res, {f.trace || f.explain, f.missing, f.constraints});
    if (interval)
      std::cout << "90% interval: " << gs::format_quantity(reg.units(), reg.var(target), interval->p5) << " .. "
                << gs::format_quantity(reg.units(), reg.var(target), interval->p95) << " (" << s.uncertain.size()
                << " uncertain inputs, " << interval->samples << " samples)\n";
  }
  warn_disagreements(reg, res.overrides);
  return finish_violations(res.violations(), f.fail_on_violated);
}

int run_trace(const Common& c, const std::string& target_name, const ScenarioInputs& in, int depth) {
  gs::Registry reg = load_registry(c);
  uint32_t target = gs::lookup_variable(reg, target_name, "target variable");
  Scenario s = build_scenario(reg, library(reg, c), in);
  gs::Resolver resolver(reg, s.assignments, s.variants);
  gs::Resolution res = resolver.resolve(target);
  std::cout << (c.json ? gs::trace_json(reg, res) + "\n" : gs::trace_text(reg, res, depth));
  return 0;
}

int run_scenario(const Common& c, const std::string& preset_name, const std::vector<std::string>& target_args,
                 const ScenarioInputs& in, const ResolveFlags& f) {
  gs::Registry reg = load_registry(c);
  gs::Preset preset = library(reg, c).load(preset_name);
  Scenario extra = build_scenario(reg, library(reg, c), in);
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
  std::cout << (c.json ? gs::scenario_json(reg, report) + "\n" : gs::scenario_text(reg, report));
  warn_disagreements(reg, report.overrides);
  size_t violations = 0;
  for (const auto& t : report.targets) violations += t.resolution.violations();
  return finish_violations(violations, f.fail_on_violated);
}

int run_export(const Common& c, const std::string& format, const std::string& target_name, const gs::ConeExport& base,
               const std::string& output) {
  gs::Registry reg = load_registry(c);
  gs::ConeExport spec = base;
  spec.root = gs::lookup_variable(reg, target_name, "target variable");
  std::string text = format == "dot" ? gs::export_dot(reg, spec) : gs::export_json(reg, spec);
  if (c.json && format == "dot") {
    // Machine-readable wrapper so every command can be consumed as JSON.
    std::string escaped;
    for (char ch : text) {
      if (ch == '"' || ch == '\\') escaped += '\\', escaped += ch;
      else if (ch == '\n') escaped += "\\n";
      else escaped += ch;
    }
    text = "{\n  \"format\": \"dot\",\n  \"root\": \"" + target_name + "\",\n  \"dot\": \"" + escaped + "\"\n}\n";
  }
  if (output.empty() || output == "-") {
    std::cout << text;
  } else {
    gs::write_file_atomic(output, text);
    std::cerr << "wrote " << output << " (" << text.size() << " bytes)\n";
  }
  return 0;
}

// The observatory site: a static bundle generated from the image and the project's outputs.
int run_export_site(const Common& c, gs::site::SiteOptions opt) {
  gs::Registry reg = load_registry(c);
  opt.image_path = image_path(c);
  opt.presets_dir = c.presets_dir.empty() ? gs::PresetLibrary::default_dir() : c.presets_dir;
  gs::site::SiteSummary sum = gs::site::export_site(reg, opt);
  for (const auto& n : sum.notes) std::cerr << "note: " << n << "\n";
  std::string index = (fs::absolute(opt.out_dir) / "index.html").lexically_normal().string();
  if (c.json) {
    nlohmann::ordered_json j = {{"out", fs::absolute(opt.out_dir).lexically_normal().string()}, {"index", index},
                                {"files", sum.files}, {"bytes", sum.bytes}, {"notes", sum.notes}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "wrote the site: " << sum.files.size() << " files, " << sum.bytes << " bytes\n"
              << "open file://" << index << "\n";
  }
  return 0;
}

// The simulator's model variables, computed by the compiled cones of the model under the presets.
gs::sim::ModelValues simulator_inputs_from_model(const Common& c, const std::vector<std::string>& presets) {
  gs::Registry reg = load_registry(c);
  return gs::api::simulator_inputs(reg, library(reg, c), presets);
}

int run_sweep(const Common& c, const ScenarioInputs& in, gs::SweepRequest req) {
  gs::Registry reg = load_registry(c);
  Scenario s = build_scenario(reg, library(reg, c), in);
  req.json = c.json;
  req.progress = !c.json;
  return gs::sweep_command(reg, s, req, std::cout, std::cerr);
}

int run_sampling(const Common& c, const ScenarioInputs& in, gs::SamplingRequest req, bool sobol) {
  gs::Registry reg = load_registry(c);
  Scenario s = build_scenario(reg, library(reg, c), in);
  req.json = c.json;
  return sobol ? gs::sensitivity_command(reg, s, req, std::cout, std::cerr) : gs::uncertainty_command(reg, s, req, std::cout, std::cerr);
}

// ---- analysis (runtime/analysis): root debt and influence, verify, scenario audit, next work

std::string presets_dir(const Common& c) { return gs::api::presets_dir(c.presets_dir); }

int run_root_debt(const Common& c, const ScenarioInputs& in, gs::RootDebtRequest req) {
  gs::Registry reg = load_registry(c);
  if (req.target.empty() && !(in.presets.empty() && in.assigns.empty() && in.variants.empty()))
    throw UsageError("a scenario (--preset, --assign, --variant) ranks inputs by influence on a target; pass --target NAME");
  gs::AnalysisScenario s = gs::load_scenario(reg, library(reg, c), presets_dir(c), in.presets, in.assigns, in.variants);
  req.json = c.json;
  return gs::root_debt_command(reg, s, req, std::cout, std::cerr);
}

int run_verify(const Common& c, gs::VerifyRequest req) {
  gs::Registry reg = load_registry(c);
  req.json = c.json, req.image_path = image_path(c), req.presets_dir = presets_dir(c);
  return gs::verify_command(reg, req, std::cout, std::cerr);
}

int run_scenario_audit(const Common& c, gs::AuditRequest req) {
  gs::Registry reg = load_registry(c);
  req.json = c.json, req.presets_dir = presets_dir(c);
  return gs::scenario_audit_command(reg, req, std::cout, std::cerr);
}

int run_next_work(const Common& c, gs::NextWorkRequest req) {
  gs::Registry reg = load_registry(c);
  req.json = c.json, req.presets_dir = presets_dir(c);
  return gs::next_work_command(reg, req, std::cout, std::cerr);
}

int run_validate(const Common& c, gs::validate::ValidateOptions opt) {
  gs::Registry reg = load_registry(c);
  opt.json = c.json;
  return gs::validate::validate_command(reg, library(reg, c), opt, std::cout, std::cerr);
}

// Exit 0 with a ranking, 1 when no layout is feasible (a finding, like a violated constraint), 2 on bad input.
int run_plan(const Common& c, ScenarioInputs in, const std::string& workload, const std::string& knobs_path,
             gs::strategy::StrategyRequest req) {
  gs::Registry reg = load_registry(c);
  const auto [space, result] = gs::api::plan(reg, library(reg, c), presets_dir(c), std::move(in), workload, knobs_path, req);
  std::cout << (c.json ? gs::strategy::plan_json(reg, space, result) : gs::strategy::plan_text(reg, space, result));
  if (result.ranked.empty()) {
    std::cerr << "gpu-stack: no feasible layout: all " << result.enumerated << " candidates were rejected\n";
    return 1;
  }
  return 0;
}

int run_calibrate(const Common& c, gs::validate::CalibrateOptions opt) {
  gs::Registry reg = load_registry(c);
  opt.json = c.json;
  return gs::validate::calibrate_command(reg, library(reg, c), opt, std::cout, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpu-stack: resolve, trace and report on the compiled gpu_stack model"};
  app.require_subcommand(1);
  Common common;
  ScenarioInputs scenario;
  ResolveFlags flags;
  std::string target, preset, format, output;
  std::vector<std::string> targets;
  gs::ConeExport cone;

  const auto thread_range = CLI::Range(1u, gs::kMaxThreads);

  auto* stats = app.add_subcommand("stats", "Counts of systems, variables, relations, roots and leaves; coverage");
  add_common(stats, common);

  auto* resolve = app.add_subcommand("resolve", "Compute a variable under a scenario");
  resolve->add_option("target", target, "variable to compute")->required();
  add_scenario(resolve, scenario, true);
  resolve->add_flag("--trace", flags.trace, "list every computed step with its relation and source location");
  resolve->add_flag("--missing", flags.missing, "describe each missing input: unit, family, reason, dependents");
  resolve->add_flag("--constraints", flags.constraints, "list every constraint, domain and validity check");
  resolve->add_flag("--explain-selection", flags.explain, "say why each relation was selected (shows the trace)");
  add_checks(resolve, flags);
  add_common(resolve, common);

  auto* trace = app.add_subcommand("trace", "Show a variable's cone as a tree with values, relations and source locations");
  trace->add_option("target", target, "variable to trace")->required();
  int trace_depth = -1;
  trace->add_option("--depth", trace_depth, "show only this many levels below the target (text output)")->check(CLI::NonNegativeNumber);
  add_scenario(trace, scenario, true);
  add_common(trace, common);

  auto* report = app.add_subcommand("scenario-report", "Resolve a preset's targets and report values, gaps and overrides");
  report->add_option("preset", preset, "preset name or TOML file")->required();
  report->add_option("--target", targets, "[LABEL=]NAME: report this variable instead of the preset's targets")->allow_extra_args(false);
  add_scenario(report, scenario, false);
  add_checks(report, flags);
  add_common(report, common);

  auto* exp = app.add_subcommand("export", "Write a variable's dependency cone as Graphviz DOT or JSON, or the observatory site");
  exp->add_option("format", format, "dot, json, or site (a static website; needs --out)")->required()->check(CLI::IsMember({"dot", "json", "site"}));
  exp->add_option("target", target, "root variable of the cone (dot and json)");
  gs::site::SiteOptions site_opt;
  exp->add_option("--out", site_opt.out_dir, "site: folder to write (created; only the site's own files are replaced)");
  exp->add_option("--preset", site_opt.presets, "site: a scenario the pages offer (repeatable; default: the default preset)")->allow_extra_args(false);
  exp->add_option("--runs", site_opt.runs_csv, "site: CSV of published runs for the validation view (default: $GSTACK_RUNS, else data/runs/calibration-runs.csv)");
  exp->add_flag("--run-experiments", site_opt.run_experiments, "site: also run the experiments that have a virtual engine and show their artifacts");
  exp->add_option("--artifacts", site_opt.artifacts, "site: run-artifact file or folder to show (repeatable)")->allow_extra_args(false);
  exp->add_flag("--dependents", cone.dependents, "export the variables that depend on the target instead");
  exp->add_flag("--constraints", cone.constraints, "let constraints link variables too");
  exp->add_option("-o,--output", output, "file to write (atomically); default stdout");
  add_common(exp, common);

  gs::SweepRequest sweep_req;
  auto* sweep = app.add_subcommand("sweep", "Evaluate targets over a grid (or zipped lists) of inputs with the JIT");
  sweep->add_option("targets", sweep_req.targets, "variables to compute")->required();
  sweep->add_option("--vary", sweep_req.vary, "NAME=SPEC: a,b,c | lo..hi:n | lo..hi:log:n, optionally followed by a unit")->allow_extra_args(false)->required();
  sweep->add_flag("--zip", sweep_req.zip, "pair the lists element by element instead of taking the full grid");
  sweep->add_option("--engine", sweep_req.engine, "jit (default) or ginac (the exact reference evaluator)")->check(CLI::IsMember({"jit", "ginac"}));
  sweep->add_option("--threads", sweep_req.threads, "worker threads (default: all cores)")->check(thread_range);
  sweep->add_option("--out", sweep_req.out_path, "write every point to FILE.csv or FILE.json (SI units), atomically");
  add_scenario(sweep, scenario, true);
  add_common(sweep, common);

  gs::SamplingRequest sampling;
  sampling.samples = 100000;
  auto* uncertainty = app.add_subcommand("uncertainty", "Propagate the preset's uncertain inputs to a target by Monte Carlo");
  auto* sensitivity = app.add_subcommand("sensitivity", "Sobol first- and total-order indices of a target over the uncertain inputs");
  for (auto* cmd : {uncertainty, sensitivity}) {
    cmd->add_option("target", sampling.target, "variable to study")->required();
    cmd->add_option("--samples", sampling.samples, "Monte Carlo samples (sensitivity: base samples N, N*(k+2) evaluations)")
        ->check(CLI::Range(size_t(1), gs::kMaxSamples));
    cmd->add_option("--seed", sampling.seed, "random seed (default 1)");
    cmd->add_option("--threads", sampling.threads, "worker threads (default: all cores)")->check(thread_range);
    add_scenario(cmd, scenario, true);
    add_common(cmd, common);
  }

  gs::RootDebtRequest debt_req;
  auto* debt = app.add_subcommand("root-debt", "Rank root inputs by blast radius, or by influence on a target under a scenario");
  debt->add_flag("--families", debt_req.families, "group by family (name prefix) with the heaviest members of each");
  debt->add_option("--limit", debt_req.limit, "rows or families to show (default 20)")->check(CLI::NonNegativeNumber);
  debt->add_flag("--include-constraints", debt_req.include_constraints, "let constraints carry dependence too (blast radius)");
  debt->add_option("--target", debt_req.target, "rank the target's inputs by elasticity under the scenario (missing inputs first)");
  add_scenario(debt, scenario, true);
  add_common(debt, common);

  gs::VerifyRequest verify_req;
  auto* verify = app.add_subcommand("verify", "Check the model's health: cycles, ids, trivial conditions, constants, presets, image freshness");
  verify->add_option("--profile", verify_req.profile, "fast (default) or full (adds JIT-versus-GiNaC agreement)")
      ->check(CLI::IsMember({"fast", "full"}));
  add_common(verify, common);

  gs::AuditRequest audit_req;
  auto* audit = app.add_subcommand("scenario-audit", "For every preset: source, assignments, targets' status and missing families");
  audit->add_option("--preset", audit_req.presets, "audit only this preset (repeatable)")->allow_extra_args(false);
  audit->add_option("--target", audit_req.targets, "[LABEL=]NAME: audit this target instead of each preset's own")->allow_extra_args(false);
  audit->add_flag("--missing-families", audit_req.missing_families, "list the families of missing inputs");
  audit->add_flag("--fail-on-issues", audit_req.fail_on_issues, "exit 1 when a preset has issues or does not load");
  add_common(audit, common);

  gs::NextWorkRequest work_req;
  auto* work = app.add_subcommand("next-work", "Ranked list of the most decision-relevant gaps: blockers, unsourced influential inputs");
  work->add_option("--preset", work_req.preset, "scenario to weigh inputs under (default: default, else the dense fixture)");
  work->add_option("--target", work_req.targets, "headline target (repeatable; default: econ.cost.per_token, else the preset's targets)")->allow_extra_args(false);
  work->add_option("--limit", work_req.limit, "items to show (default 10)")->check(CLI::NonNegativeNumber);
  work->add_option("--runs", work_req.runs_path, "published runs (CSV) to validate; list the largest residuals");
  add_common(work, common);

  gs::validate::ValidateOptions validate_opt;
  double max_median_ape = -1;
  auto* validate = app.add_subcommand("validate", "Predict published training runs (a CSV like data/runs/calibration-runs.csv) and report the errors");
  validate->add_option("--runs", validate_opt.runs_path, "CSV of published runs")->required();
  validate->add_option("--max-median-ape", max_median_ape, "exit 1 when the tier-A throughput median APE (percent) exceeds this")
      ->check(CLI::NonNegativeNumber);
  add_common(validate, common);

  gs::validate::CalibrateOptions calibrate_opt;
  auto* calibrate = app.add_subcommand("calibrate", "Fit the shared efficiency parameters to the tier-A throughput of published runs");
  calibrate->add_option("--runs", calibrate_opt.runs_path, "CSV of published runs (default: $GSTACK_RUNS, else data/runs/calibration-runs.csv)");
  calibrate->add_option("--out", calibrate_opt.out_path, "preset file to write (e.g. presets/calibration/fitted.toml); default: print it");
  calibrate->add_flag("--force", calibrate_opt.force, "replace the --out file when it exists (refused otherwise)");
  calibrate->add_option("--param", calibrate_opt.params, "variable to fit (repeatable; default: the documented shared set)")->allow_extra_args(false);
  add_common(calibrate, common);

  gs::sim::SimulateArgs sim_args;
  auto* simulate = app.add_subcommand("simulate", "Run the discrete-event datacenter: goodput, ETTR, lost work, energy, cost, interruptions by cause");
  simulate->add_option("scenario", sim_args.scenario, "simulation scenario (TOML, e.g. presets/sim/llama3-405b-16k.toml)")->required();
  simulate->add_option("--seed", sim_args.seed, "random seed (default: the scenario's); replica r uses seed + r");
  simulate->add_option("--replicas", sim_args.replicas, "independent replicas (default 1)")->check(CLI::Range(1u, gs::sim::kMaxReplicas));
  simulate->add_option("--max-gpu-days", sim_args.max_gpu_days, "work cap: replicas x GPUs x horizon days (default 1e8)")
      ->check(CLI::Range(1.0, 1e15));
  simulate->add_option("--max-events", sim_args.max_events, "work cap: events per replica (default 1e8)")
      ->check(CLI::Range(uint64_t(1), uint64_t(1e15)));
  simulate->add_option("--policy", sim_args.policy, "replace every job's recovery policy")
      ->check(CLI::IsMember({"restart", "wait_restore", "in_memory", "elastic", "adaptive"}));
  simulate->add_option("--threads", sim_args.threads, "worker threads for replicas (default: all cores)")->check(thread_range);
  std::vector<std::string> sim_presets;
  simulate->add_option("--preset", sim_presets, "compute the simulator's model variables (step time, powers, PUE, ...) with the "
                       "model under this preset; they replace the scenario's values")->allow_extra_args(false);
  add_common(simulate, common);

  gs::sim::ExperimentProtocolArgs proto_args;
  auto* exp_protocol = app.add_subcommand("experiment-protocol", "Print a frozen experiment protocol and its hash");
  exp_protocol->add_option("experiment", proto_args.experiment, "E001 ... E006")->required();
  exp_protocol->add_option("--experiments", proto_args.experiments_dir, "experiments directory (default: $GSTACK_EXPERIMENTS, else the source tree's)");
  add_common(exp_protocol, common);

  gs::sim::ExperimentRunArgs run_args;
  auto* exp_run = app.add_subcommand("experiment-run", "Run an experiment under its frozen protocol; write a content-addressed artifact");
  exp_run->add_option("experiment", run_args.experiment, "E001 or E002")->required();
  exp_run->add_option("--scenario", run_args.scenario, "scenario file (JSON)")->required();
  exp_run->add_option("--output", run_args.output, "directory (file named by content hash) or file; never overwritten; default: stdout");
  exp_run->add_option("--seed", run_args.seed, "seed (default: the scenario's)");
  exp_run->add_option("--experiments", run_args.experiments_dir, "experiments directory");
  add_common(exp_run, common);

  gs::strategy::StrategyRequest plan_req;
  std::string plan_workload, plan_knobs;
  auto* plan = app.add_subcommand("plan", "Search the execution strategy (parallel degrees, micro-batch, recomputation, ZeRO) for a cluster and workload");
  plan->add_option("--workload", plan_workload, "workload preset by name (llama3-405b is presets/workload/llama3_405b.toml) or TOML file");
  plan->add_option("--fix", plan_req.fixes, "KNOB=VALUE: pin a knob (tp=8, par.pp=16, recompute=full); repeatable")->allow_extra_args(false);
  plan->add_option("--objective", plan_req.objective, "tokens_per_sec (default), cost_per_token or time_to_train");
  plan->add_option("--top", plan_req.top, "how many ranked layouts to show (default 10)")->check(CLI::Range(1, 1000));
  plan->add_option("--threads", plan_req.threads, "worker threads (default: all cores)")->check(thread_range);
  plan->add_option("--knobs", plan_knobs, "search-space file (default: presets/strategy/knobs.toml)");
  add_scenario(plan, scenario, true);
  add_common(plan, common);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  try {
    if (stats->parsed()) return run_stats(common);
    if (resolve->parsed()) return run_resolve(common, target, scenario, flags);
    if (trace->parsed()) return run_trace(common, target, scenario, trace_depth);
    if (report->parsed()) return run_scenario(common, preset, targets, scenario, flags);
    if (sweep->parsed()) return run_sweep(common, scenario, sweep_req);
    if (simulate->parsed()) {
      sim_args.json = common.json, sim_args.image_path = image_path(common);
      if (!sim_presets.empty()) sim_args.model = simulator_inputs_from_model(common, sim_presets);
      return gs::sim::simulate_command(sim_args, std::cout, std::cerr);
    }
    if (exp_protocol->parsed()) {
      proto_args.json = common.json;
      if (proto_args.experiments_dir.empty()) proto_args.experiments_dir = gs::sim::default_experiments_dir();
      return gs::sim::experiment_protocol_command(proto_args, std::cout, std::cerr);
    }
    if (exp_run->parsed()) {
      run_args.json = common.json;
      if (run_args.experiments_dir.empty()) run_args.experiments_dir = gs::sim::default_experiments_dir();
      return gs::sim::experiment_run_command(run_args, std::cout, std::cerr);
    }
    if (uncertainty->parsed()) return run_sampling(common, scenario, sampling, false);
    if (sensitivity->parsed()) return run_sampling(common, scenario, sampling, true);
    if (debt->parsed()) return run_root_debt(common, scenario, debt_req);
    if (verify->parsed()) return run_verify(common, verify_req);
    if (audit->parsed()) return run_scenario_audit(common, audit_req);
    if (work->parsed()) return run_next_work(common, work_req);
    if (validate->parsed()) {
      if (max_median_ape >= 0) validate_opt.max_median_ape = max_median_ape;
      return run_validate(common, validate_opt);
    }
    if (calibrate->parsed()) {
      if (calibrate_opt.runs_path.empty()) calibrate_opt.runs_path = gs::site::default_runs_csv();
      return run_calibrate(common, calibrate_opt);
    }
    if (plan->parsed()) return run_plan(common, scenario, plan_workload, plan_knobs, plan_req);
    if (format == "site") {
      if (site_opt.out_dir.empty()) throw UsageError("export site needs --out DIR");
      if (!target.empty()) throw UsageError("export site takes no target; pick scenarios with --preset");
      return run_export_site(common, site_opt);
    }
    if (target.empty()) throw UsageError("export " + format + " needs a TARGET variable");
    if (!site_opt.out_dir.empty() || !site_opt.presets.empty()) throw UsageError("--out and --preset belong to export site");
    return run_export(common, format, target, cone, output);
  } catch (const std::exception& e) {
    // Every error that reaches here is about the input: the image, a preset, a name or a value.
    std::cerr << "gpu-stack: error: " << e.what() << "\n";
    return 2;
  }
}
