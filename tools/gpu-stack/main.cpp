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
// constraints, with --fail-on-violated-constraints), 2 bad usage or bad input.
// This file only registers the command families (one file each in this folder, commands.h) and runs the
// one that was parsed; the shared options and the exit-status rules are in cli.h.
#include <CLI/CLI.hpp>

#include <iostream>

#include "image/escape.h"
#include "runtime/dist/dist.h"
#include "runtime/format.h"
#include "tools/cli_extras.h"
#include "tools/frontend/workspace_env.h"
#include "tools/gpu-stack/commands.h"

int main(int argc, char** argv) {
  // Under mpirun every rank runs this main; only rank 0 speaks (runtime/dist/dist.h, docs/mpi.md).
  const auto env = gs::frontend::process_environment();
  gs::dist::Launch launch(&argc, &argv, gs::frontend::under_mpi_launcher(env), gs::frontend::mpi_module(env));
  if (!launch.warning().empty()) std::cerr << "gpu-stack: warning: " << launch.warning() << "\n";
  if (!gs::dist::root()) std::cout.rdbuf(nullptr), std::cerr.rdbuf(nullptr);
  CLI::App app{"gpu-stack: resolve, trace and report on the compiled gpu_stack model"};
  app.require_subcommand(1);
  app.set_version_flag("--version", gs::cli::version_text("gpu-stack"));
  gs::cli::Cli cli(app);

  // The order here is the order --help and the completion script list the subcommands.
  gs::cli::add_stats_command(cli);
  gs::cli::add_resolve_commands(cli);
  gs::cli::add_export_command(cli);
  gs::cli::add_numeric_commands(cli);
  gs::cli::add_analysis_commands(cli);
  gs::cli::add_validate_commands(cli);
  gs::cli::add_simulate_commands(cli);
  gs::cli::add_plan_command(cli);
  gs::cli::add_zoo_commands(cli);
  std::string shell;
  auto* completion = gs::cli::add_completion_command(app, shell);
  gs::cli::add_query_commands(cli);
  gs::cli::add_estimate_command(cli);
  gs::cli::add_serve_command(cli);

  if (auto code = gs::cli::parse_or_exit(app, argc, argv)) return *code;

  if (completion->parsed()) {
    std::cout << gs::cli::bash_completion(app, "gpu-stack");
    return 0;
  }
  if (cli.common.si) gs::set_display_style(gs::DisplayStyle::Declared);
  const gs::cli::Command* chosen = nullptr;
  for (const auto& cmd : cli.commands)
    if (cmd.app->parsed()) chosen = &cmd;
  if (!chosen) return 2;  // unreachable: CLI11 requires one subcommand (and `workload` one of its own)
  // Commands that split their work across MPI ranks; under mpirun every other command runs on rank 0
  // alone while the other ranks leave at once.
  const bool distributed = chosen->distributed && chosen->distributed();
  if (!distributed) {
    if (!gs::dist::root()) return 0;
    gs::dist::work_alone();
  }
  try {
    gs::frontend::install(gs::cli::workspace(cli.common));
    return chosen->run();
  } catch (const std::exception& e) {
    // Every error that reaches here is about the input: the image, a preset, a name or a value.
    std::cerr << "gpu-stack: error: " << gs::escape_control(e.what(), true) << "\n";
    return 2;
  }
}
