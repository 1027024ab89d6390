// plan: the execution-strategy search (parallel degrees, micro-batch, recomputation, ZeRO; with --serving
// a serving replica's TP/EP, batch and formats), ranked by an objective. Candidates are split across MPI ranks.
#include <iostream>

#include "runtime/strategy/report.h"
#include "runtime/strategy/search.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

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

}  // namespace

void add_plan_command(Cli& cli) {
  struct State {
    ScenarioInputs scenario;
    gs::strategy::StrategyRequest request;
    std::string knobs, ttft_max, tpot_max;
    std::vector<std::string> limits;
    bool serving = false;
  };
  auto st = state<State>();
  const Common& common = cli.common;

  auto* plan = cli.app.add_subcommand("plan", "Search the execution strategy (parallel degrees, micro-batch, recomputation, ZeRO) for a cluster and workload");
  plan->add_option("--fix", st->request.fixes, "KNOB=VALUE: pin a knob (tp=8, par.pp=16, recompute=full); repeatable")->allow_extra_args(false);
  plan->add_flag("--serving", st->serving,
                 "search a serving replica (TP/EP, batch, weight/KV/GEMM formats) for the lowest cost per output token; "
                 "knobs from presets/strategy/serving-knobs.toml");
  plan->add_option("--ttft-max", st->ttft_max, "latency target: largest time to first token (200ms); the limit ttft_max");
  plan->add_option("--tpot-max", st->tpot_max, "latency target: largest time per output token (50ms); the limit tpot_max");
  plan->add_option("--limit", st->limits, "NAME=VALUE: a limit of the search space (ttft_max=200ms); repeatable")->allow_extra_args(false);
  plan->add_option("--objective", st->request.objective,
                   "tokens_per_sec (default), cost_per_token or time_to_train; with --serving cost_per_output_token (default), "
                   "gpu_output_tokens_per_s or tpot");
  plan->add_option("--top", st->request.top, "how many ranked layouts to show (default 10)")->check(CLI::Range(1, 1000));
  plan->add_option("--threads", st->request.threads, "worker threads (default: all cores)")->check(thread_range());
  plan->add_option("--knobs", st->knobs, "search-space file (default: presets/strategy/knobs.toml)");
  add_scenario(plan, st->scenario, true);
  add_common(plan, cli.common);
  cli.on_parsed(
      plan,
      [st, &common] {
        auto& req = st->request;
        if (!st->ttft_max.empty()) req.limits["ttft_max"] = st->ttft_max;
        if (!st->tpot_max.empty()) req.limits["tpot_max"] = st->tpot_max;
        for (const auto& l : st->limits) {
          const auto eq = l.find('=');
          if (eq == std::string::npos || eq == 0 || eq + 1 == l.size())
            throw UsageError("bad --limit '" + l + "': expected NAME=VALUE (for example ttft_max=200ms)");
          req.limits[l.substr(0, eq)] = l.substr(eq + 1);
        }
        if (!st->serving && !req.limits.empty() && st->knobs.empty())
          throw UsageError("--ttft-max, --tpot-max and --limit need --serving (or a --knobs file that states limits)");
        return run_plan(common, st->scenario, st->knobs, st->serving, req);
      },
      [] { return true; });
}

}  // namespace gs::cli
