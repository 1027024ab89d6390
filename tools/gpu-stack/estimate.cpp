// estimate: a quick answer from model size, tokens and accelerators (days, energy, MFU assumed, cost) with
// 90% intervals, for readers who have no preset.
#include <iostream>

#include "runtime/estimate/estimate.h"
#include "runtime/uq/uncertainty.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

int run_estimate(const Common& c, gs::estimate::EstimateRequest req) {
  gs::Registry reg = load_registry(c);
  req.presets_dir = presets_dir(c);
  if (req.runs_path.empty()) req.runs_path = workspace(c).training_runs_csv();
  gs::estimate::EstimateResult res = gs::estimate::estimate(reg, library(reg, c), req);
  std::cout << (c.json ? gs::estimate::estimate_json(reg, res) + "\n" : gs::estimate::estimate_text(reg, res));
  return 0;
}

}  // namespace

void add_estimate_command(Cli& cli) {
  auto req = state<gs::estimate::EstimateRequest>();
  const Common& common = cli.common;
  auto* est = cli.app.add_subcommand("estimate", "Quick estimate from model size, tokens and accelerators: days, energy, MFU assumed, cost, with a 90% interval");
  est->add_option("--params", req->params, "model parameters: 70B, 7e9, 2.5K (K, M, B/G, T = 1e3 .. 1e12)")->required();
  est->add_option("--tokens", req->tokens, "training tokens: 15T, 300B")->required();
  est->add_option("--gpu", req->gpu, "accelerator by name: h100, h200, h800, a100, a100-40gb, b200, gb200, v100, tpu-v3, tpu-v4")->required();
  est->add_option("--gpus", req->gpus, "number of accelerators: 2048, 2K")->required();
  est->add_option("--price-per-gpu-hour", req->price_per_gpu_hour, "USD per accelerator-hour, electricity excluded; a value or LO..HI");
  est->add_option("--tariff", req->tariff, "electricity price in USD/kWh; a value or LO..HI (default: presets/estimate/base.toml)");
  est->add_option("--pue", req->pue, "power usage effectiveness of the hall; a value or LO..HI (default: presets/estimate/base.toml)");
  est->add_option("--mfu", req->mfu, "assumed MFU, a share (0.4) or LO..HI (default: median of the published runs on that accelerator)");
  est->add_option("--runs", req->runs_path, "published runs whose MFU column gives the default MFU (default: $GSTACK_RUNS, else data/runs/calibration-runs.csv)");
  est->add_option("--samples", req->samples, "Randomized quasi-Monte Carlo samples for the intervals (default 20000)")->check(CLI::Range(size_t(1), gs::kMaxSamples));
  est->add_option("--seed", req->seed, "random seed (default 1)");
  add_common(est, cli.common);
  cli.on_parsed(est, [req, &common] { return run_estimate(common, *req); });
}

}  // namespace gs::cli
