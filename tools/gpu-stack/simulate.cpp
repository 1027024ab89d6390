// simulate, experiment-protocol and experiment-run: the discrete-event datacenter (training and serving
// scenarios) and the frozen experiments that run on it (runtime/sim).
#include <iostream>

#include "runtime/present/sim.h"
#include "runtime/research/canonical_json.h"
#include "runtime/sim/commands.h"
#include "runtime/sim/serving_report.h"
#include "runtime/sim/inputs.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

// The simulator's model variables, computed by the compiled cones of the model under the presets.
gs::sim::ModelValues simulator_inputs_from_model(const Common& c, const std::vector<std::string>& presets) {
  gs::Registry reg = load_registry(c);
  return gs::api::simulator_inputs(reg, library(reg, c), presets);
}

// Runs `run` and prints what `show` makes of its result; a RunError prints "error: ..." and exits 1 for
// a broken invariant, 2 for bad input.
template <class Run, class Show>
int present_run(Run run, Show show) {
  try {
    auto result = run();
    std::cout << show(result);
  } catch (const gs::sim::RunError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return e.failure == gs::sim::RunFailure::invariant ? 1 : 2;
  }
  return 0;
}

}  // namespace

void add_simulate_commands(Cli& cli) {
  struct State {
    gs::sim::SimulateArgs sim;
    bool serving = false;
    std::vector<std::string> presets;
    struct {
      std::string experiment, experiments_dir;
    } protocol;
    gs::sim::ExperimentRunArgs run;
  };
  auto st = state<State>();
  const Common& common = cli.common;

  auto* simulate = cli.app.add_subcommand("simulate", "Run the discrete-event datacenter: goodput, ETTR, lost work, energy, cost, interruptions by cause");
  simulate->add_option("scenario", st->sim.scenario, "simulation scenario (TOML, e.g. presets/sim/llama3-405b-16k.toml)")->required();
  simulate->add_option("--seed", st->sim.seed, "random seed (default: the scenario's); replica r uses seed + r");
  simulate->add_option("--replicas", st->sim.replicas, "independent replicas (default 1)")->check(CLI::Range(1u, gs::sim::kMaxReplicas));
  simulate->add_option("--max-gpu-days", st->sim.max_gpu_days, "work cap: replicas x GPUs x horizon days (default 1e8)")
      ->check(CLI::Range(1.0, 1e15));
  simulate->add_option("--max-events", st->sim.max_events, "work cap: events per replica (default 1e8)")
      ->check(CLI::Range(uint64_t(1), uint64_t(1e15)));
  simulate->add_option("--policy", st->sim.policy, "replace every job's recovery policy")
      ->check(CLI::IsMember({"restart", "wait_restore", "in_memory", "elastic", "adaptive"}));
  simulate->add_option("--threads", st->sim.threads, "worker threads for replicas (default: all cores)")->check(thread_range());
  simulate->add_option("--timeline", st->sim.timeline, "write the run's per-event timeline and per-site utilisation to FILE "
                       "(.csv: CSV, otherwise JSON Lines); one replica only");
  simulate->add_flag("--serving", st->serving, "the scenario is a serving scenario (presets/sim/*-serving.toml): requests through "
                     "continuously batching replicas priced by the model; prints TTFT/TPOT percentiles, goodput, energy and cost per "
                     "million tokens (--timeline: one row per request)");
  simulate->add_option("--preset", st->presets, "compute the simulator's model variables (step time, powers, PUE, ...) with the "
                       "model under this preset; they replace the scenario's values")->allow_extra_args(false);
  add_common(simulate, cli.common);
  cli.on_parsed(
      simulate,
      [st, simulate, &common] {
        if (st->serving) {
          for (const char* opt : {"--replicas", "--policy", "--preset", "--max-gpu-days", "--max-events", "--threads"})
            if (simulate->count(opt)) throw UsageError(std::string(opt) + " is for training scenarios, not with --serving");
          gs::sim::ServingSimulateArgs a{st->sim.scenario, image_path(common), presets_dir(common), st->sim.seed, st->sim.timeline};
          return present_run([&] { return gs::sim::serving_simulate(a); }, [&](const gs::sim::ServingSimResult& r) {
            return common.json ? gs::research::pretty_dump(gs::sim::serving_result_json(r)) : gs::present::serving_sim_text(r);
          });
        }
        st->sim.image_path = image_path(common), st->sim.presets_dir = presets_dir(common);
        if (!st->presets.empty()) st->sim.model = simulator_inputs_from_model(common, st->presets);
        return present_run([&] { return gs::sim::simulate_runs(st->sim); }, [&](const gs::sim::SimulateRun& r) {
          return common.json ? gs::research::pretty_dump(gs::research::Json(r)) : gs::present::simulate_text(r);
        });
      },
      // Replicas are split across MPI ranks; one replica runs on rank 0 alone.
      [st] { return st->sim.replicas > 1; });

  auto* exp_protocol = cli.app.add_subcommand("experiment-protocol", "Print a frozen experiment protocol and its hash");
  exp_protocol->add_option("experiment", st->protocol.experiment, "E001 ... E006")->required();
  exp_protocol->add_option("--experiments", st->protocol.experiments_dir, "experiments directory (default: $GSTACK_EXPERIMENTS, else the source tree's)");
  add_common(exp_protocol, cli.common);
  cli.on_parsed(exp_protocol, [st, &common] {
    if (st->protocol.experiments_dir.empty()) st->protocol.experiments_dir = workspace(common).experiments_dir;
    gs::research::ExperimentProtocol p;
    try {
      p = gs::research::load_frozen_protocol(st->protocol.experiments_dir, st->protocol.experiment);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    }
    std::cout << (common.json ? gs::research::pretty_dump(gs::sim::protocol_json(p)) : gs::present::protocol_text(p));
    return 0;
  });

  auto* exp_run = cli.app.add_subcommand("experiment-run", "Run an experiment under its frozen protocol; write a content-addressed artifact");
  exp_run->add_option("experiment", st->run.experiment, "E001, E001-RECOVERY-V2, E002, E004 or E006")->required();
  exp_run->add_option("--scenario", st->run.scenario, "scenario file (JSON)")->required();
  exp_run->add_option("--output", st->run.output, "directory (file named by content hash) or file; never overwritten; default: stdout");
  exp_run->add_option("--seed", st->run.seed, "seed (default: the scenario's)");
  exp_run->add_option("--experiments", st->run.experiments_dir, "experiments directory");
  exp_run->add_option("--timeline", st->run.timeline, "write every policy's per-event timeline and utilisation here (.csv: CSV, else JSON Lines; E001-RECOVERY-V2)");
  add_common(exp_run, cli.common);
  cli.on_parsed(exp_run, [st, &common] {
    st->run.image_path = image_path(common), st->run.presets_dir = presets_dir(common);
    if (st->run.experiments_dir.empty()) st->run.experiments_dir = workspace(common).experiments_dir;
    // Exit 1 when the verdict is a failure (a falsifier fired), as for any finding.
    bool failed = false;
    const int rc = present_run([&] { return gs::sim::experiment_run(st->run); }, [&](const gs::sim::ExperimentRun& r) {
      failed = r.outcome.verdict == gs::research::Verdict::fail;
      return common.json && r.stored ? gs::research::pretty_dump(gs::research::Json(r)) : gs::present::experiment_run_text(r);
    });
    return rc != 0 ? rc : failed ? 1 : 0;
  });
}

}  // namespace gs::cli
