// sweep, uncertainty and sensitivity: a target evaluated over many points (a grid, Monte Carlo samples,
// a Sobol design) by the compiled cone. These split their rows across MPI ranks (runtime/dist).
#include <unistd.h>

#include <iostream>
#include <optional>
#include <string>

#include "runtime/present/uq.h"
#include "runtime/uq/memory_fit.h"
#include "runtime/uq/commands.h"
#include "runtime/uq/uncertainty.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

// The sweep's progress on a terminal's stderr: a bar of 40 cells and the percentage.
class ProgressBar {
 public:
  explicit ProgressBar(size_t total) : total_(total) {}
  void operator()(size_t done) {
    if (total_ == 0) return;
    const int width = 40, filled = int(double(done) / double(total_) * width);
    std::cerr << "\r[" << std::string(size_t(filled), '#') << std::string(size_t(width - filled), ' ') << "] "
              << int(100.0 * double(done) / double(total_)) << "%" << std::flush;
    if (done >= total_) std::cerr << "\n";
  }

 private:
  size_t total_;
};

int run_sweep(const Common& c, const ScenarioInputs& in, gs::SweepRequest req) {
  gs::Registry reg = load_registry(c);
  gs::ScenarioPoint s = gs::api::build_scenario(reg, library(reg, c), in);
  req.fit = gs::load_memory_fit_check(reg, library(reg, c).dir());
  std::optional<ProgressBar> bar;
  std::function<void(size_t, size_t)> progress;
  if (!c.json && isatty(STDERR_FILENO))
    progress = [&](size_t done, size_t total) {
      if (!bar) bar.emplace(total);
      (*bar)(done);
    };
  const gs::SweepReport r = gs::sweep(reg, s, req, progress);
  std::cerr << gs::present::sweep_notes(r);
  if (c.json) std::cout << nlohmann::ordered_json(r).dump(2) << "\n";
  else std::cout << gs::present::sweep_text(reg, r);
  return 0;
}

int run_sampling(const Common& c, const ScenarioInputs& in, const gs::SamplingRequest& req, bool sobol) {
  gs::Registry reg = load_registry(c);
  gs::ScenarioPoint s = gs::api::build_scenario(reg, library(reg, c), in);
  if (sobol) {
    const gs::SensitivityReport r = gs::sensitivity(reg, s, req);
    std::cout << (c.json ? nlohmann::ordered_json(r).dump(2) + "\n" : gs::present::sensitivity_text(r));
  } else {
    const gs::UncertaintyReport r = gs::uncertainty(reg, s, req);
    std::cout << (c.json ? nlohmann::ordered_json(r).dump(2) + "\n" : gs::present::uncertainty_text(reg, r));
  }
  return 0;
}

}  // namespace

void add_numeric_commands(Cli& cli) {
  struct State {
    ScenarioInputs scenario;
    gs::SweepRequest sweep;
    gs::SamplingRequest sampling;
  };
  auto st = state<State>();
  const Common& common = cli.common;
  const auto always = [] { return true; };

  auto* sweep = cli.app.add_subcommand("sweep", "Evaluate targets over a grid (or zipped lists) of inputs with the JIT");
  sweep->add_option("targets", st->sweep.targets, "variables to compute")->required();
  sweep->add_option("--vary", st->sweep.vary, "NAME=SPEC: a,b,c | lo..hi:n | lo..hi:log:n, optionally followed by a unit")->allow_extra_args(false)->required();
  sweep->add_flag("--zip", st->sweep.zip, "pair the lists element by element instead of taking the full grid");
  sweep->add_option("--engine", st->sweep.engine, "jit (default) or ginac (the exact reference evaluator)")->check(CLI::IsMember({"jit", "ginac"}));
  sweep->add_option("--threads", st->sweep.threads, "worker threads (default: all cores)")->check(thread_range());
  sweep->add_option("--out", st->sweep.out_path, "write every point to FILE.csv or FILE.json (SI units), atomically");
  add_scenario(sweep, st->scenario, true);
  add_common(sweep, cli.common);
  cli.on_parsed(sweep, [st, &common] { return run_sweep(common, st->scenario, st->sweep); }, always);

  st->sampling.samples = 100000;
  auto* uncertainty = cli.app.add_subcommand("uncertainty", "Propagate the preset's uncertain inputs to a target by Monte Carlo");
  auto* sensitivity = cli.app.add_subcommand("sensitivity", "Sobol first- and total-order indices of a target over the uncertain inputs");
  for (auto* cmd : {uncertainty, sensitivity}) {
    cmd->add_option("target", st->sampling.target, "variable to study")->required();
    cmd->add_option("--samples", st->sampling.samples, "Monte Carlo samples (sensitivity: base samples N, N*(k+2) evaluations)")
        ->check(CLI::Range(size_t(1), gs::kMaxSamples));
    cmd->add_option("--seed", st->sampling.seed, "random seed (default 1)");
    cmd->add_option("--threads", st->sampling.threads, "worker threads (default: all cores)")->check(thread_range());
    add_scenario(cmd, st->scenario, true);
    add_common(cmd, cli.common);
  }
  uncertainty->add_flag("--streaming", st->sampling.streaming,
                        "summarise without holding every sample: a held pilot of 2^20 draws brackets each percentile, then one "
                        "pass over the rest (automatic from 10^7 samples)");
  cli.on_parsed(uncertainty, [st, &common] { return run_sampling(common, st->scenario, st->sampling, false); }, always);
  cli.on_parsed(sensitivity, [st, &common] { return run_sampling(common, st->scenario, st->sampling, true); }, always);
}

}  // namespace gs::cli
