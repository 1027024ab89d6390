// gpu-stack: questions about the compiled model.
//   gpu-stack stats
//   gpu-stack resolve TARGET [--preset P]... [--assign NAME=VALUE[ UNIT]]... [--variant NAME=KEY]... [flags]
//   gpu-stack trace TARGET [--preset P]... [--assign ...]... [--variant ...]...
//   gpu-stack scenario-report PRESET... [--target [LABEL=]NAME]... [--details] [--missing-families] [--fail-on-issues]
//   gpu-stack export dot|json TARGET... [--dependents] [--constraints] [-o FILE]
//   gpu-stack list [--system S] [--prefix P] [--kind K] [--unit U];  gpu-stack search TEXT [same filters]
//   gpu-stack list-presets [--dir SUB]
//   gpu-stack export site --out DIR [--preset P]... [--runs FILE.csv] [--run-experiments] [--artifacts PATH]...
//   gpu-stack root-debt [--families] [--limit N] [--include-constraints] [--scope SYSTEM] [--preset P --target NAME]
//   gpu-stack verify [--profile fast|full]
//   gpu-stack scenario-audit [--preset P]... [--target [LABEL=]NAME]... [--missing-families] [--fail-on-issues]
//   gpu-stack next-work [--preset P] [--target NAME]... [--runs FILE.csv] [--limit N]
//   gpu-stack validate [--runs FILE.csv...] [--max-median-ape PCT] [--no-search] [--cross-validate family]
//   gpu-stack validate --serving [--runs data/serving/serving-runs.csv]
//   gpu-stack calibrate [--runs FILE.csv...] [--out presets/calibration/fitted.toml [--force]]
//   gpu-stack plan --preset P [--workload W] [--fix KNOB=VALUE]... [--objective NAME] [--top K]
//   gpu-stack plan --serving --preset serving/P [--ttft-max T] [--tpot-max T] [--fix KNOB=VALUE]... [--top K]
//   gpu-stack workloads | hardware          (the shipped zoo, with sources)
//   gpu-stack workload import CONFIG.json [-o FILE] [--name NAME]
//   gpu-stack serve [--port N] [--bind ADDR] [--site DIR] [--max-jobs N] [--max-body BYTES]
//   gpu-stack estimate --params 70B --tokens 15T --gpu h100 --gpus 2048 [--price-per-gpu-hour P] [--tariff T] [--pue X] [--mfu M]
// Every command takes --json and --image FILE. Exit status: 0 success, 1 findings (violated
// constraints, with --fail-on-violated-constraints), 2 bad usage or bad input. This is the only
// translation unit that includes CLI11.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <filesystem>
#include <iostream>
#include <optional>

#include "image/atomic_file.h"
#include "tools/cli_extras.h"
#include "runtime/estimate/estimate.h"
#include "image/escape.h"
#include "runtime/api/session.h"
#include "runtime/dist/dist.h"
#include "runtime/export.h"
#include "runtime/format.h"
#include "runtime/headline.h"
#include "runtime/memory_fit.h"
#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/report.h"
#include "runtime/resolver.h"
#include "runtime/sim/commands.h"
#include "runtime/sim/inputs.h"
#include "runtime/uq/commands.h"
#include "runtime/uq/uncertainty.h"
#include "runtime/uq/plan.h"
#include "runtime/workers.h"
#include "runtime/analysis/audit.h"
#include "runtime/analysis/catalog.h"
#include "runtime/analysis/next_work.h"
#include "runtime/analysis/root_debt.h"
#include "runtime/analysis/scenario.h"
#include "runtime/analysis/verify.h"
#include "runtime/validate/calibrate.h"
#include "runtime/validate/serving.h"
#include "runtime/validate/validate.h"
#include "runtime/serve/server.h"
#include "runtime/site/site.h"
#include "runtime/strategy/report.h"
#include "runtime/strategy/search.h"
#include "runtime/zoo.h"

namespace {

namespace fs = std::filesystem;

// Bad input found by the command itself (not by the library); exits 2 like the library's errors.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Common {
  bool json = false;
  bool si = false;
  std::string image;
  std::string presets_dir;
};

using ScenarioInputs = gs::api::ScenarioInputs;

struct ResolveFlags {
  bool trace = false, missing = false, constraints = false, explain = false, check_overrides = false, fail_on_violated = false;
  bool no_check_overrides = false;
  bool missing_families = false, fallback = false, solve_systems = false;
  double tolerance = 1e-6;
};

void add_common(CLI::App* cmd, Common& c) {
  cmd->add_flag("--json", c.json, "print JSON (SI values with unit strings) instead of text");
  cmd->add_flag("--si", c.si, "text: show each value in its variable's declared unit (SI prefixes only), not the field's usual unit");
  cmd->add_option("--image", c.image, "registry image to read (default: $GSTACK_IMAGE, else model.gsimg of this build)");
  cmd->add_option("--presets", c.presets_dir, "directory of presets (default: $GSTACK_PRESETS, else the source tree's presets/)");
  cmd->add_option_function<std::string>(
         "--evaluator", [](const std::string& v) { gs::set_evaluator_policy(*gs::parse_evaluator_policy(v)); },
         "how cones are evaluated: auto (default: the reference interpreter for small batches, the JIT for "
         "large ones, docs/runtime.md), interpreter, or jit")
      ->check(CLI::IsMember({"auto", "interpreter", "jit"}));
}

void add_scenario(CLI::App* cmd, ScenarioInputs& s, bool with_preset) {
  if (with_preset)
  {
    cmd->add_option("--preset", s.presets, "preset name or TOML file; repeat to layer them (later wins)")->allow_extra_args(false);
    cmd->add_option("--workload", s.workloads, "shipped workload by name (llama3-405b or llama3_405b), layered over the presets")->allow_extra_args(false);
  }
  cmd->add_option("--assign", s.assigns, "NAME=VALUE[ UNIT]; a bare value is in the variable's display unit")->allow_extra_args(false);
  cmd->add_option("--variant", s.variants, "NAME=KEY: select a variant relation")->allow_extra_args(false);
}

void add_checks(CLI::App* cmd, ResolveFlags& f) {
  cmd->add_flag("--check-overrides", f.check_overrides, "evaluate the relation each assignment replaces and warn where they disagree "
                "(on by default, with a one-line summary, when a preset file outside the presets directory is used)");
  cmd->add_flag("--no-check-overrides", f.no_check_overrides, "do not check a user preset's overrides");
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
using gs::api::preset_layers;

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

int run_resolve(const Common& c, const std::string& target_name, const ScenarioInputs& in, ResolveFlags f) {
  gs::Registry reg = load_registry(c);
  uint32_t target = gs::lookup_variable(reg, target_name, "target variable");
  std::vector<std::string> user_presets;
  Scenario s = build_scenario(reg, library(reg, c), in, &user_presets);
  const bool summarize = check_user_presets(f, user_presets);
  const gs::api::ResolveAnswer answer = gs::api::resolve(reg, s, target, options_of(f));
  const gs::Resolution& res = answer.resolution;
  const std::optional<gs::Interval>& interval = answer.interval;
  // Whether the layout fits in HBM: an answer for a layout that cannot run is flagged, never plain.
  const auto fit_check = gs::load_memory_fit_check(reg, library(reg, c).dir());
  const auto fit = fit_check ? gs::check_memory_fit(reg, *fit_check, s.assignments, s.variants) : std::nullopt;
  if (fit && !fit->fits) std::cerr << "gpu-stack: warning: this layout " << gs::memory_fit_text(reg, *fit_check, *fit);
  if (c.json) {
    auto j = nlohmann::ordered_json::parse(gs::api::resolve_json(reg, answer));
    if (fit) {
      nlohmann::ordered_json parts = nlohmann::ordered_json::object();
      for (const auto& [name, bytes] : fit->parts) parts[name] = bytes;
      j["memory_fit"] = {{"fits", fit->fits}, {"constraint", reg.relation(fit_check->constraint).name},
                         {"required", fit->required}, {"capacity", fit->capacity}, {"parts", parts}};
    }
    std::cout << j.dump(2) << "\n";
  } else {
    // Reasons are shown beside the trace steps, so asking for them shows the trace.
    std::cout << gs::resolution_text(reg, res, {f.trace || f.explain, f.missing, f.constraints, f.missing_families});
    if (interval)
      std::cout << "90% interval: " << gs::format_quantity(reg.units(), reg.var(target), interval->p5) << " .. "
                << gs::format_quantity(reg.units(), reg.var(target), interval->p95) << " (" << s.uncertain.size()
                << " uncertain inputs, " << interval->samples << " randomized Halton samples in " << interval->replicates
                << " shifts; standard error " << gs::format_quantity(reg.units(), reg.var(target), interval->p5_se) << " and "
                << gs::format_quantity(reg.units(), reg.var(target), interval->p95_se) << ")\n";
  }
  warn_disagreements(reg, res.overrides);
  if (summarize) summarize_overrides(res.overrides, user_presets);
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

struct ReportFlags {
  bool details = false, missing_families = false, fail_on_issues = false;
};

int run_scenario(const Common& c, const std::vector<std::string>& preset_names, const std::vector<std::string>& target_args,
                 const ScenarioInputs& in, ResolveFlags f, const ReportFlags& rf) {
  gs::Registry reg = load_registry(c);
  std::vector<gs::Preset> loaded;
  gs::Preset preset = library(reg, c).compose(preset_names, &loaded);
  std::vector<std::string> user_presets;
  for (const auto& one : loaded)
    if (library(reg, c).is_external(one)) user_presets.push_back(one.name);
  const bool summarize = check_user_presets(f, user_presets);
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
  std::cout << (c.json ? gs::scenario_json(reg, report) + "\n" : gs::scenario_text(reg, report, {rf.details, rf.missing_families}));
  warn_disagreements(reg, report.overrides);
  if (summarize) summarize_overrides(report.overrides, user_presets);
  size_t violations = 0;
  for (const auto& t : report.targets) violations += t.resolution.violations();
  if (int code = finish_violations(violations, f.fail_on_violated)) return code;
  if (rf.fail_on_issues && report.issue_count > 0) {
    std::cerr << "gpu-stack: " << report.issue_count << " issue" << (report.issue_count == 1 ? "" : "s")
              << " (missing inputs or violated checks)\n";
    return 1;
  }
  return 0;
}

int run_export(const Common& c, const std::string& format, const std::vector<std::string>& target_names, const gs::ConeExport& base,
               const std::string& output) {
  gs::Registry reg = load_registry(c);
  gs::ConeExport spec = base;
  spec.root = gs::lookup_variable(reg, target_names.front(), "target variable");
  for (size_t i = 1; i < target_names.size(); ++i) spec.more_roots.push_back(gs::lookup_variable(reg, target_names[i], "target variable"));
  const std::string& target_name = target_names.front();
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
  req.fit = gs::load_memory_fit_check(reg, library(reg, c).dir());
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
  if (req.target.empty() && !(in.presets.empty() && in.workloads.empty() && in.assigns.empty() && in.variants.empty()))
    throw UsageError("a scenario (--preset, --workload, --assign, --variant) ranks inputs by influence on a target; pass --target NAME");
  gs::PresetLibrary lib = library(reg, c);
  gs::AnalysisScenario s = gs::load_scenario(reg, lib, presets_dir(c), preset_layers(lib, in), in.assigns, in.variants);
  req.json = c.json;
  return gs::root_debt_command(reg, s, req, std::cout, std::cerr);
}

// The shipped zoo: one line per preset with its description and source.
// Several folders (hardware with the cluster and capex packs of the systems it ships in) list one after
// another, each under its folder's name; JSON ids carry the folder.
int run_catalog(const Common& c, const std::vector<std::string>& folders) {
  gs::Registry reg = load_registry(c);
  std::vector<gs::zoo::CatalogEntry> entries;
  for (const auto& folder : folders) {
    auto some = gs::zoo::catalog(library(reg, c), folder);
    entries.insert(entries.end(), some.begin(), some.end());
  }
  if (c.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : entries) {
      nlohmann::json j = {{"id", e.id}, {"name", e.name}, {"description", e.description}, {"source", e.source}};
      if (!e.error.empty()) j["error"] = e.error;
      out.push_back(j);
    }
    std::cout << out.dump(2) << "\n";
  } else {
    std::string shown;
    for (const auto& e : entries) {
      const std::string folder = e.id.substr(0, e.id.find('/'));
      if (folders.size() > 1 && folder != shown) std::cout << (shown.empty() ? "" : "\n") << folder << ":\n";
      shown = folder;
      std::cout << e.id.substr(folder.size() + 1) << "  " << (e.error.empty() ? e.description : "(does not load: " + e.error + ")") << "\n";
      if (e.error.empty()) std::cout << "    source: " << e.source << "\n";
    }
  }
  for (const auto& e : entries)
    if (!e.error.empty()) return 1;
  return 0;
}

int run_workload_import(const Common& c, const std::string& config_path, const std::string& out_path, std::string name) {
  std::ifstream in(config_path, std::ios::binary);
  if (!in) throw UsageError("cannot read '" + config_path + "'");
  std::stringstream text;
  text << in.rdbuf();
  if (name.empty()) name = fs::path(out_path.empty() ? config_path : out_path).stem().string();
  const std::string map_path = (fs::path(presets_dir(c)) / "import" / "hf_config.toml").string();
  gs::zoo::ImportResult r = gs::zoo::import_hf_config(text.str(), config_path, map_path, name);
  if (out_path.empty()) std::cout << r.toml;
  else gs::write_file_atomic(out_path, r.toml);
  if (!r.not_found.empty()) {
    std::cerr << "note: not in the configuration (left to the scenario):";
    for (const auto& v : r.not_found) std::cerr << " " << v;
    std::cerr << "\n";
  }
  return 0;
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

// Serving rows: exit 0 with the report, 2 on bad input. The default table is the source tree's.
int run_validate_serving(const Common& c, std::string runs) {
  gs::Registry reg = load_registry(c);
  if (runs.empty()) runs = (std::filesystem::path(presets_dir(c)).parent_path() / "data" / "serving" / "serving-runs.csv").string();
  auto v = gs::validate::validate_serving(reg, library(reg, c), presets_dir(c), runs);
  std::cout << (c.json ? gs::validate::serving_report_json(v) : gs::validate::serving_report_text(v));
  return 0;
}

// Exit 0 with a ranking, 1 when no layout is feasible (a finding, like a violated constraint), 2 on bad input.
int run_plan(const Common& c, const ScenarioInputs& in, const std::string& knobs_path, bool serving,
             gs::strategy::StrategyRequest req) {
  gs::Registry reg = load_registry(c);
  const auto [space, result] = gs::api::plan(reg, library(reg, c), presets_dir(c), in, knobs_path, serving, req);
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

int run_list(const Common& c, const gs::VariableQuery& q) {
  gs::Registry reg = load_registry(c);
  auto vars = gs::find_variables(reg, q);
  std::cout << (c.json ? gs::variables_json(reg, q, vars) : gs::variables_text(reg, vars));
  return 0;
}

int run_list_presets(const Common& c, const std::string& sub) {
  gs::Registry reg = load_registry(c);
  auto presets = gs::preset_catalog(library(reg, c), presets_dir(c), sub);
  std::cout << (c.json ? gs::presets_json(presets) : gs::presets_text(presets));
  return 0;
}

int run_estimate(const Common& c, gs::estimate::EstimateRequest req) {
  gs::Registry reg = load_registry(c);
  req.presets_dir = presets_dir(c);
  if (req.runs_path.empty()) req.runs_path = gs::site::default_runs_csv();
  gs::estimate::EstimateResult res = gs::estimate::estimate(reg, library(reg, c), req);
  std::cout << (c.json ? gs::estimate::estimate_json(reg, res) + "\n" : gs::estimate::estimate_text(reg, res));
  return 0;
}

// The observatory and the JSON API over HTTP until SIGINT or SIGTERM.
int run_serve(const Common& c, gs::serve::ServeOptions opt) {
  gs::Registry reg = load_registry(c);
  opt.image_path = image_path(c);
  opt.presets_dir = presets_dir(c);
  return gs::serve::serve(reg, opt, std::cout, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  // Under mpirun every rank runs this main; only rank 0 speaks (runtime/dist/dist.h, docs/mpi.md).
  gs::dist::Launch launch(&argc, &argv);
  if (!gs::dist::root()) std::cout.rdbuf(nullptr), std::cerr.rdbuf(nullptr);
  CLI::App app{"gpu-stack: resolve, trace and report on the compiled gpu_stack model"};
  app.require_subcommand(1);
  app.set_version_flag("--version", gs::cli::version_text("gpu-stack"));
  Common common;
  ScenarioInputs scenario;
  ResolveFlags flags;
  std::string target, format, output;
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
  resolve->add_flag("--missing-families", flags.missing_families, "group the missing inputs by family and boundary category");
  resolve->add_flag("--fallback-on-violated-validity", flags.fallback,
                    "when a selected approximation's validity is violated, use the variable's single alternative relation (marked in the trace)");
  resolve->add_flag("--solve-systems", flags.solve_systems,
                    "solve small simultaneous systems (2-3 variables defined through each other) with GiNaC's linear solver");
  add_checks(resolve, flags);
  add_common(resolve, common);

  auto* trace = app.add_subcommand("trace", "Show a variable's cone as a tree with values, relations and source locations");
  trace->add_option("target", target, "variable to trace")->required();
  int trace_depth = -1;
  trace->add_option("--depth", trace_depth, "show only this many levels below the target (text output)")->check(CLI::NonNegativeNumber);
  add_scenario(trace, scenario, true);
  add_common(trace, common);

  std::vector<std::string> report_presets;
  ReportFlags report_flags;
  auto* report = app.add_subcommand("scenario-report", "Resolve a preset's targets and report values, gaps and overrides");
  report->add_option("preset", report_presets, "preset names or TOML files; several are layered in order (later wins)")->required();
  report->add_flag("--details", report_flags.details, "list each target's missing inputs and violated checks by name");
  report->add_flag("--missing-families", report_flags.missing_families, "group the missing inputs by family");
  report->add_flag("--fail-on-issues", report_flags.fail_on_issues, "exit 1 when a target has missing inputs or violated checks");
  report->add_option("--target", targets, "[LABEL=]NAME: report this variable instead of the preset's targets")->allow_extra_args(false);
  add_scenario(report, scenario, false);
  add_checks(report, flags);
  add_common(report, common);

  auto* exp = app.add_subcommand("export", "Write a variable's dependency cone as Graphviz DOT or JSON, or the observatory site");
  exp->add_option("format", format, "dot, json, or site (a static website; needs --out)")->required()->check(CLI::IsMember({"dot", "json", "site"}));
  std::vector<std::string> export_targets;
  exp->add_option("target", export_targets, "root variables of the cone (dot and json); several give the union of their cones");
  gs::site::SiteOptions site_opt;
  exp->add_option("--out", site_opt.out_dir, "site: folder to write (created; only the site's own files are replaced)");
  exp->add_option("--preset", site_opt.presets, "site: a scenario the pages offer (repeatable; default: the default preset)")->allow_extra_args(false);
  exp->add_option("--runs", site_opt.runs_csv, "site: CSV of published runs for the validation view (default: $GSTACK_RUNS, else data/runs/calibration-runs.csv)");
  exp->add_flag("--run-experiments", site_opt.run_experiments, "site: also run the experiments that have a virtual engine and show their artifacts");
  exp->add_option("--artifacts", site_opt.artifacts, "site: run-artifact file or folder to show (repeatable)")->allow_extra_args(false);
  exp->add_option("--chartjs", site_opt.chartjs_path, "site: Chart.js file to bundle (default: $GSTACK_CHARTJS, else Debian's libjs-chart.js)");
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
  uncertainty->add_flag("--streaming", sampling.streaming,
                        "summarise in streaming passes that hold no sample array (automatic above 10^7 samples)");

  gs::RootDebtRequest debt_req;
  auto* debt = app.add_subcommand("root-debt", "Rank root inputs by blast radius, or by influence on a target under a scenario");
  debt->add_flag("--families", debt_req.families, "group by family (name prefix) with the heaviest members of each");
  debt->add_option("--limit", debt_req.limit, "rows or families to show (default 20)")->check(CLI::NonNegativeNumber);
  debt->add_flag("--include-constraints", debt_req.include_constraints, "let constraints carry dependence too (blast radius)");
  debt->add_option("--scope", debt_req.scope, "rank only the roots of this system (blast radius and --families)");
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
  bool validate_serving = false;
  validate->add_option("--runs", validate_opt.runs_paths, "CSVs of published runs (default: data/runs/calibration-runs.csv and calibration-supplement.csv; with --serving: data/serving/serving-runs.csv)");
  validate->add_flag("--serving", validate_serving,
                     "validate the serving model against published serving measurements (rows with a preset serving/validate/<id>)");
  validate->add_option("--cross-validate", validate_opt.cross_validate, "'family': fit on every source family but one, predict the one left out, for each in turn")
      ->check(CLI::IsMember({"family"}));
  validate->add_flag("!--no-search", validate_opt.search, "keep the defaults (micro-batch 1, no interleaving, no recomputation) for unstated settings");
  validate->add_option("--max-median-ape", max_median_ape, "exit 1 when the tier-A throughput median APE (percent) exceeds this")
      ->check(CLI::NonNegativeNumber);
  add_common(validate, common);

  gs::validate::CalibrateOptions calibrate_opt;
  auto* calibrate = app.add_subcommand("calibrate", "Fit the shared efficiency parameters to the tier-A throughput of published runs");
  calibrate->add_option("--runs", calibrate_opt.runs_paths, "CSVs of published runs (default: data/runs/calibration-runs.csv and calibration-supplement.csv)");
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
  simulate->add_option("--timeline", sim_args.timeline, "write the run's per-event timeline and per-site utilisation to FILE "
                       "(.csv: CSV, otherwise JSON Lines); one replica only");
  bool sim_serving = false;
  simulate->add_flag("--serving", sim_serving, "the scenario is a serving scenario (presets/sim/*-serving.toml): requests through "
                     "continuously batching replicas priced by the model; prints TTFT/TPOT percentiles, goodput, energy and cost per "
                     "million tokens (--timeline: one row per request)");
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
  exp_run->add_option("experiment", run_args.experiment, "E001, E001-RECOVERY-V2, E002, E004 or E006")->required();
  exp_run->add_option("--scenario", run_args.scenario, "scenario file (JSON)")->required();
  exp_run->add_option("--output", run_args.output, "directory (file named by content hash) or file; never overwritten; default: stdout");
  exp_run->add_option("--seed", run_args.seed, "seed (default: the scenario's)");
  exp_run->add_option("--experiments", run_args.experiments_dir, "experiments directory");
  exp_run->add_option("--timeline", run_args.timeline, "write every policy's per-event timeline and utilisation here (.csv: CSV, else JSON Lines; E001-RECOVERY-V2)");
  add_common(exp_run, common);

  gs::strategy::StrategyRequest plan_req;
  std::string plan_knobs;
  auto* plan = app.add_subcommand("plan", "Search the execution strategy (parallel degrees, micro-batch, recomputation, ZeRO) for a cluster and workload");
  plan->add_option("--fix", plan_req.fixes, "KNOB=VALUE: pin a knob (tp=8, par.pp=16, recompute=full); repeatable")->allow_extra_args(false);
  bool plan_serving = false;
  std::string plan_ttft_max, plan_tpot_max;
  std::vector<std::string> plan_limits;
  plan->add_flag("--serving", plan_serving,
                 "search a serving replica (TP/EP, batch, weight/KV/GEMM formats) for the lowest cost per output token; "
                 "knobs from presets/strategy/serving-knobs.toml");
  plan->add_option("--ttft-max", plan_ttft_max, "latency target: largest time to first token (200ms); the limit ttft_max");
  plan->add_option("--tpot-max", plan_tpot_max, "latency target: largest time per output token (50ms); the limit tpot_max");
  plan->add_option("--limit", plan_limits, "NAME=VALUE: a limit of the search space (ttft_max=200ms); repeatable")->allow_extra_args(false);
  plan->add_option("--objective", plan_req.objective,
                   "tokens_per_sec (default), cost_per_token or time_to_train; with --serving cost_per_output_token (default), "
                   "gpu_output_tokens_per_s or tpot");
  plan->add_option("--top", plan_req.top, "how many ranked layouts to show (default 10)")->check(CLI::Range(1, 1000));
  plan->add_option("--threads", plan_req.threads, "worker threads (default: all cores)")->check(thread_range);
  plan->add_option("--knobs", plan_knobs, "search-space file (default: presets/strategy/knobs.toml)");
  add_scenario(plan, scenario, true);
  add_common(plan, common);
  auto* workloads_cmd = app.add_subcommand("workloads", "List the shipped workload presets with descriptions and sources");
  add_common(workloads_cmd, common);
  auto* hardware_cmd = app.add_subcommand("hardware", "List the shipped hardware presets, and the cluster and capex packs of the systems they ship in, with descriptions and sources");
  add_common(hardware_cmd, common);
  auto* workload_cmd = app.add_subcommand("workload", "Workload presets: import a Hugging Face config.json");
  workload_cmd->require_subcommand(1);
  auto* import_cmd = workload_cmd->add_subcommand("import", "Turn a Hugging Face-style config.json (dense or MoE) into a workload preset");
  std::string import_config, import_out, import_name;
  import_cmd->add_option("config", import_config, "config.json to read")->required();
  import_cmd->add_option("-o,--output", import_out, "preset file to write (atomically); default stdout");
  import_cmd->add_option("--name", import_name, "preset name (default: the output or config file's stem)");
  add_common(import_cmd, common);
  std::string shell;
  auto* completion = gs::cli::add_completion_command(app, shell);

  gs::VariableQuery var_query;
  auto* list = app.add_subcommand("list", "List variables by system, name prefix, kind or unit dimension");
  auto* search = app.add_subcommand("search", "Find variables whose name, description or doc contains every word of TEXT");
  search->add_option("text", var_query.text, "words to look for (case-insensitive)")->required();
  for (auto* cmd : {list, search}) {
    cmd->add_option("--system", var_query.system, "only this system (e.g. training)");
    cmd->add_option("--prefix", var_query.prefix, "only names starting with this (e.g. econ.power.)");
    cmd->add_option("--kind", var_query.kind, "root, derived or constant")->check(CLI::IsMember({"root", "derived", "constant"}));
    cmd->add_option("--unit", var_query.unit, "only variables of this unit's dimension (W finds MW and W)");
    add_common(cmd, common);
  }

  std::string presets_sub;
  auto* list_presets = app.add_subcommand("list-presets", "List the presets with their description and source");
  list_presets->add_option("--dir", presets_sub, "only this folder of the presets directory (e.g. hardware)");
  add_common(list_presets, common);

  gs::estimate::EstimateRequest est_req;
  auto* est = app.add_subcommand("estimate", "Quick estimate from model size, tokens and accelerators: days, energy, MFU assumed, cost, with a 90% interval");
  est->add_option("--params", est_req.params, "model parameters: 70B, 7e9, 2.5K (K, M, B/G, T = 1e3 .. 1e12)")->required();
  est->add_option("--tokens", est_req.tokens, "training tokens: 15T, 300B")->required();
  est->add_option("--gpu", est_req.gpu, "accelerator by name: h100, h200, h800, a100, a100-40gb, b200, gb200, v100, tpu-v3, tpu-v4")->required();
  est->add_option("--gpus", est_req.gpus, "number of accelerators: 2048, 2K")->required();
  est->add_option("--price-per-gpu-hour", est_req.price_per_gpu_hour, "USD per accelerator-hour, electricity excluded; a value or LO..HI");
  est->add_option("--tariff", est_req.tariff, "electricity price in USD/kWh; a value or LO..HI (default: presets/estimate/base.toml)");
  est->add_option("--pue", est_req.pue, "power usage effectiveness of the hall; a value or LO..HI (default: presets/estimate/base.toml)");
  est->add_option("--mfu", est_req.mfu, "assumed MFU, a share (0.4) or LO..HI (default: median of the published runs on that accelerator)");
  est->add_option("--runs", est_req.runs_path, "published runs whose MFU column gives the default MFU (default: $GSTACK_RUNS, else data/runs/calibration-runs.csv)");
  est->add_option("--samples", est_req.samples, "Randomized quasi-Monte Carlo samples for the intervals (default 20000)")->check(CLI::Range(size_t(1), gs::kMaxSamples));
  est->add_option("--seed", est_req.seed, "random seed (default 1)");
  add_common(est, common);

  gs::serve::ServeOptions serve_opt;
  auto* serve = app.add_subcommand("serve", "Serve the observatory and a JSON API (resolve, sweep, uncertainty, sensitivity, plan, validate, simulate) over HTTP");
  serve->add_option("--port", serve_opt.port, "TCP port (default 8765; 0 picks a free one, printed)")->check(CLI::Range(0, 65535));
  serve->add_option("--bind", serve_opt.bind, "address to listen on (default 127.0.0.1, this machine only)");
  serve->add_option("--site", serve_opt.site_dir, "exported site to serve (default: export the default preset's into a temporary folder)");
  serve->add_option("--max-jobs", serve_opt.max_jobs, "API requests running or waiting at once; more get 503 (default 4)")->check(CLI::Range(1u, 256u));
  serve->add_option("--max-body", serve_opt.max_body, "largest request body in bytes; larger get 413 (default 65536)")
      ->check(CLI::Range(size_t(64), size_t(16) << 20));
  add_common(serve, common);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  if (completion->parsed()) {
    std::cout << gs::cli::bash_completion(app, "gpu-stack");
    return 0;
  }
  if (common.si) gs::set_display_style(gs::DisplayStyle::Declared);
  // Commands that split their work across MPI ranks; under mpirun every other command runs on rank 0
  // alone while the other ranks leave at once.
  const bool distributed = sweep->parsed() || uncertainty->parsed() || sensitivity->parsed() || plan->parsed() ||
                           (simulate->parsed() && sim_args.replicas > 1);
  if (!distributed) {
    if (!gs::dist::root()) return 0;
    gs::dist::work_alone();
  }
  try {
    if (stats->parsed()) return run_stats(common);
    if (workloads_cmd->parsed()) return run_catalog(common, {"workload"});
    if (hardware_cmd->parsed()) return run_catalog(common, {"hardware", "cluster", "capex"});
    if (import_cmd->parsed()) return run_workload_import(common, import_config, import_out, import_name);
    if (resolve->parsed()) return run_resolve(common, target, scenario, flags);
    if (trace->parsed()) return run_trace(common, target, scenario, trace_depth);
    if (report->parsed()) return run_scenario(common, report_presets, targets, scenario, flags, report_flags);
    if (list->parsed() || search->parsed()) return run_list(common, var_query);
    if (list_presets->parsed()) return run_list_presets(common, presets_sub);
    if (sweep->parsed()) return run_sweep(common, scenario, sweep_req);
    if (simulate->parsed() && sim_serving) {
      for (const char* opt : {"--replicas", "--policy", "--preset", "--max-gpu-days", "--max-events", "--threads"})
        if (simulate->count(opt)) throw UsageError(std::string(opt) + " is for training scenarios, not with --serving");
      gs::sim::ServingSimulateArgs a{sim_args.scenario, image_path(common), presets_dir(common), sim_args.seed, common.json, sim_args.timeline};
      return gs::sim::serving_simulate_command(a, std::cout, std::cerr);
    }
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
      run_args.json = common.json, run_args.image_path = image_path(common), run_args.presets_dir = presets_dir(common);
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
      if (validate_serving) {
        if (validate_opt.runs_paths.size() > 1) throw UsageError("validate --serving reads one --runs table");
        return run_validate_serving(common, validate_opt.runs_paths.empty() ? "" : validate_opt.runs_paths.front());
      }
      if (max_median_ape >= 0) validate_opt.max_median_ape = max_median_ape;
      return run_validate(common, validate_opt);
    }
    if (calibrate->parsed()) return run_calibrate(common, calibrate_opt);
    if (plan->parsed()) {
      if (!plan_ttft_max.empty()) plan_req.limits["ttft_max"] = plan_ttft_max;
      if (!plan_tpot_max.empty()) plan_req.limits["tpot_max"] = plan_tpot_max;
      for (const auto& l : plan_limits) {
        const auto eq = l.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == l.size())
          throw UsageError("bad --limit '" + l + "': expected NAME=VALUE (for example ttft_max=200ms)");
        plan_req.limits[l.substr(0, eq)] = l.substr(eq + 1);
      }
      if (!plan_serving && !plan_req.limits.empty() && plan_knobs.empty())
        throw UsageError("--ttft-max, --tpot-max and --limit need --serving (or a --knobs file that states limits)");
      return run_plan(common, scenario, plan_knobs, plan_serving, plan_req);
    }
    if (est->parsed()) return run_estimate(common, est_req);
    if (serve->parsed()) return run_serve(common, serve_opt);
    if (format == "site") {
      if (site_opt.out_dir.empty()) throw UsageError("export site needs --out DIR");
      if (!export_targets.empty()) throw UsageError("export site takes no target; pick scenarios with --preset");
      return run_export_site(common, site_opt);
    }
    if (export_targets.empty()) throw UsageError("export " + format + " needs a TARGET variable");
    if (!site_opt.out_dir.empty() || !site_opt.presets.empty()) throw UsageError("--out and --preset belong to export site");
    return run_export(common, format, export_targets, cone, output);
  } catch (const std::exception& e) {
    // Every error that reaches here is about the input: the image, a preset, a name or a value.
    std::cerr << "gpu-stack: error: " << gs::escape_control(e.what(), true) << "\n";
    return 2;
  }
}
