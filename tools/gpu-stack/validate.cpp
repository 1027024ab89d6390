// validate and calibrate: the model against published training runs (and, with --serving, serving
// measurements), and the fit of its shared efficiency parameters.
#include <filesystem>
#include <iostream>
#include <optional>

#include "runtime/present/validate.h"
#include "runtime/validate/calibrate.h"
#include "runtime/validate/serving.h"
#include "runtime/validate/validate.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

// The report (or the cross-validation); exit 1 when the tier-A throughput median APE fails the gate.
int run_validate(const Common& c, gs::validate::ValidateOptions opt, std::optional<double> max_median_ape) {
  gs::Registry reg = load_registry(c);
  opt.data_dir = workspace(c).data_dir;
  const gs::validate::ValidateAnswer a = gs::validate::validate_runs(reg, library(reg, c), opt);
  if (a.cross) {
    std::cout << (c.json ? gs::validate::cross_validation_json(*a.cross) : gs::present::cross_validation_text(*a.cross));
    return 0;
  }
  std::cout << (c.json ? gs::validate::report_json(*a.report) : gs::present::validation_text(*a.report));
  if (max_median_ape) {
    const double m = gs::validate::tier_a_throughput_median_ape(*a.report);
    if (!(m <= *max_median_ape)) {
      std::cerr << gs::present::validate_gate_text(m, *max_median_ape);
      return 1;
    }
  }
  return 0;
}

// Serving rows: exit 0 with the report, 2 on bad input. The default table is the data folder's.
int run_validate_serving(const Common& c, std::string runs) {
  gs::Registry reg = load_registry(c);
  if (runs.empty()) runs = workspace(c).serving_runs_csv();
  auto v = gs::validate::validate_serving(reg, library(reg, c), presets_dir(c), runs);
  std::cout << (c.json ? gs::validate::serving_report_json(v) : gs::present::serving_validation_text(v));
  return 0;
}

int run_calibrate(const Common& c, gs::validate::CalibrateOptions opt) {
  gs::Registry reg = load_registry(c);
  opt.data_dir = workspace(c).data_dir;
  const gs::validate::Calibration cal = gs::validate::calibrate_runs(reg, library(reg, c), opt);
  if (!cal.written.empty()) std::cerr << "wrote " << cal.written << "\n";
  std::cout << (c.json ? nlohmann::ordered_json(cal).dump(2) + "\n" : gs::present::calibration_text(cal));
  return 0;
}

}  // namespace

void add_validate_commands(Cli& cli) {
  struct State {
    gs::validate::ValidateOptions validate;
    double max_median_ape = -1;
    bool serving = false;
    gs::validate::CalibrateOptions calibrate;
  };
  auto st = state<State>();
  const Common& common = cli.common;

  auto* validate = cli.app.add_subcommand("validate", "Predict published training runs (a CSV like data/runs/calibration-runs.csv) and report the errors");
  validate->add_option("--runs", st->validate.runs_paths, "CSVs of published runs (default: data/runs/calibration-runs.csv and calibration-supplement.csv; with --serving: data/serving/serving-runs.csv)");
  validate->add_flag("--serving", st->serving,
                     "validate the serving model against published serving measurements (rows with a preset serving/validate/<id>)");
  validate->add_option("--cross-validate", st->validate.cross_validate, "'family': fit on every source family but one, predict the one left out, for each in turn")
      ->check(CLI::IsMember({"family"}));
  validate->add_flag("!--no-search", st->validate.search, "keep the defaults (micro-batch 1, no interleaving, no recomputation) for unstated settings");
  validate->add_option("--max-median-ape", st->max_median_ape, "exit 1 when the tier-A throughput median APE (percent) exceeds this")
      ->check(CLI::NonNegativeNumber);
  add_common(validate, cli.common);
  cli.on_parsed(validate, [st, &common] {
    if (st->serving) {
      if (st->validate.runs_paths.size() > 1) throw UsageError("validate --serving reads one --runs table");
      return run_validate_serving(common, st->validate.runs_paths.empty() ? "" : st->validate.runs_paths.front());
    }
    return run_validate(common, st->validate, st->max_median_ape >= 0 ? std::optional<double>(st->max_median_ape) : std::nullopt);
  });

  auto* calibrate = cli.app.add_subcommand("calibrate", "Fit the shared efficiency parameters to the tier-A throughput of published runs");
  calibrate->add_option("--runs", st->calibrate.runs_paths, "CSVs of published runs (default: data/runs/calibration-runs.csv and calibration-supplement.csv)");
  calibrate->add_option("--out", st->calibrate.out_path, "preset file to write (e.g. presets/calibration/fitted.toml); default: print it");
  calibrate->add_flag("--force", st->calibrate.force, "replace the --out file when it exists (refused otherwise)");
  calibrate->add_option("--param", st->calibrate.params, "variable to fit (repeatable; default: the documented shared set)")->allow_extra_args(false);
  add_common(calibrate, cli.common);
  cli.on_parsed(calibrate, [st, &common] { return run_calibrate(common, st->calibrate); });
}

}  // namespace gs::cli
