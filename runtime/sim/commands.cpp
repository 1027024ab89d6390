#include "runtime/sim/commands.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <optional>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "image/atomic_file.h"
#include "image/image.h"
#include "runtime/dist/dist.h"
#include "runtime/workers.h"
#include "runtime/research/protocol.h"
#include "runtime/research/store.h"
#include "runtime/sim/engine.h"
#include "runtime/sim/experiments.h"
#include "runtime/sim/interval_model.h"
#include "runtime/sim/job_model.h"
#include "runtime/sim/report.h"
#include "runtime/sim/scenario_toml.h"
#include "runtime/sim/serving_report.h"
#include "runtime/sim/timeline.h"
#include "image/text_file.h"

namespace gs::sim {

using research::Json;

namespace {

// The work a run asks for, in GPU-days, refused above the cap before anything is allocated.
void check_work(const Scenario& sc, const SimulateArgs& args) {
  double gpus = 0;
  for (const auto& site : sc.sites) gpus += double(site.nodes) * double(site.gpus_per_node);
  const double days = std::max(1.0, double(sc.horizon_ns) / 86400e9);
  const double work = double(args.replicas) * gpus * days;
  if (work > args.max_gpu_days)
    throw std::invalid_argument(fmt::format("the run asks for {:.4g} GPU-days ({} replica{} x {:.0f} GPUs x {:.4g} days), more than the "
                                            "work cap of {:.4g}; raise it with --max-gpu-days if you mean it",
                                            work, args.replicas, args.replicas == 1 ? "" : "s", gpus, days, args.max_gpu_days));
}


// Replicas [first, end) of the scenario on `threads` threads. Replica r always runs with seed + r, whichever
// thread (or MPI rank) picks it up, so the output does not depend on the thread or rank count (nor on how
// many threads the system lets us start).
struct ReplicaRuns {
  std::vector<SimResult> results;
  std::vector<std::exception_ptr> errors;
};
ReplicaRuns run_replicas(const Scenario& sc, const SimOptions& base, uint64_t seed, uint32_t first, uint32_t end, unsigned threads) {
  ReplicaRuns runs;
  runs.results.resize(end - first), runs.errors.resize(end - first);
  std::atomic<uint32_t> next{first};
  auto work = [&] {
    for (uint32_t r; (r = next.fetch_add(1)) < end;) try {
        SimOptions o = base;
        o.seed = seed + r;
        runs.results[r - first] = simulate(sc, o);
      } catch (...) {
        runs.errors[r - first] = std::current_exception();
      }
  };
  run_workers(std::max(1u, std::min<unsigned>(end - first, threads)), work);
  return runs;
}

// A failed replica as a RunError: a broken invariant (a bug) or bad input.
[[noreturn]] void throw_replica_error(const std::exception_ptr& error, uint32_t r, uint64_t seed) {
  try {
    std::rethrow_exception(error);
  } catch (const std::logic_error& e) {
    throw RunError(RunFailure::invariant, fmt::format("invariant violated in replica {} (seed {}): {}", r, seed + r, e.what()));
  } catch (const RunError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(RunFailure::bad_input, fmt::format("replica {} (seed {}): {}", r, seed + r, e.what()));
  }
}

// A replica's summary as flat numbers for the exchange between ranks; integers travel as their bits.
constexpr size_t kSummaryWidth = 18;
void pack_summary(const std::optional<ReplicaSummary>& s, std::vector<double>& out) {
  const Headline h = s ? s->headline : Headline{};
  const auto bits = [](uint64_t v) { return std::bit_cast<double>(v); };
  out.insert(out.end(), {s ? 1.0 : 0.0, bits(s ? s->seed : 0), h.committed_tokens, h.attempted_tokens, h.lost_tokens,
                         h.goodput_tokens_per_s, h.ettr, h.it_energy_j, h.facility_energy_j, h.interruptions, h.lost_gpu_hours,
                         h.energy_cost_usd ? 1.0 : 0.0, h.energy_cost_usd.value_or(0), h.gpu_cost_usd ? 1.0 : 0.0,
                         h.gpu_cost_usd.value_or(0), s && s->work_conserved ? 1.0 : 0.0, s && s->time_partitioned ? 1.0 : 0.0,
                         bits(s ? s->causality_violations : 0)});
}
std::optional<ReplicaSummary> unpack_summary(const double* v) {
  if (v[0] == 0) return std::nullopt;
  ReplicaSummary s;
  Headline& h = s.headline;
  s.seed = std::bit_cast<uint64_t>(v[1]);
  h.committed_tokens = v[2], h.attempted_tokens = v[3], h.lost_tokens = v[4], h.goodput_tokens_per_s = v[5], h.ettr = v[6];
  h.it_energy_j = v[7], h.facility_energy_j = v[8], h.interruptions = v[9], h.lost_gpu_hours = v[10];
  if (v[11] != 0) h.energy_cost_usd = v[12];
  if (v[13] != 0) h.gpu_cost_usd = v[14];
  s.work_conserved = v[15] != 0, s.time_partitioned = v[16] != 0, s.causality_violations = std::bit_cast<uint64_t>(v[17]);
  return s;
}

// simulate --replicas under mpirun: each rank runs its contiguous block of replicas and the ranks exchange
// the replicas' summaries (runtime/dist), so every rank holds (rank 0 alone is heard) what one process
// prints. A replica that failed is run again on every rank, so its error is the one-process one.
research::Json distributed_replicas(const Scenario& sc, const SimOptions& base, uint64_t seed, const SimulateArgs& args, unsigned threads) {
  std::vector<std::optional<ReplicaSummary>> rows(args.replicas);
  dist::share_blocks(
      args.replicas,
      [&](dist::Block mine) {
        ReplicaRuns runs = run_replicas(sc, base, seed, uint32_t(mine.begin), uint32_t(mine.end), threads);
        std::vector<double> packed;
        for (size_t i = 0; i < mine.size(); ++i)
          pack_summary(runs.errors[i] ? std::nullopt : std::optional(replica_summary(runs.results[i])), packed);
        return packed;
      },
      [&](dist::Block block, const std::vector<double>& packed) {
        for (size_t i = 0; i < block.size(); ++i) rows[block.begin + i] = unpack_summary(packed.data() + i * kSummaryWidth);
      });
  std::vector<ReplicaSummary> summaries;
  for (uint32_t r = 0; r < args.replicas; ++r) {
    if (rows[r]) {
      summaries.push_back(*rows[r]);
      continue;
    }
    ReplicaRuns again = run_replicas(sc, base, seed, r, r + 1, 1);
    if (again.errors[0]) throw_replica_error(again.errors[0], r, seed);
    summaries.push_back(replica_summary(again.results[0]));  // failed on its rank only (memory, say): keep this run
  }
  return replicas_to_json(summaries, sc.id, sc.hash());
}

// A JSON file, or an error naming file:line:col of the first character the parser could not take.
Json parse_json_file(const std::string& path) {
  std::string text = read_text_file(path, "scenario");
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') ++line, col = 1;
      else ++col;
    }
    std::string what = e.what();
    if (auto at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    throw std::invalid_argument(fmt::format("{}:{}:{}: {} (hint: check the JSON near here: a missing comma, quote or bracket)", path, line, col, what));
  }
}

}  // namespace

std::string to_string(RunFailure f) { return f == RunFailure::invariant ? "invariant" : "bad_input"; }

SimulateRun simulate_runs(const SimulateArgs& args) {
  Scenario sc;
  SimOptions base;
  base.timeline = args.timeline.has_value();
  try {
    if (args.replicas < 1 || args.replicas > kMaxReplicas)
      throw std::invalid_argument(fmt::format("--replicas must be between 1 and {}", kMaxReplicas));
    if (args.threads > kMaxThreads) throw std::invalid_argument(fmt::format("--threads must be at most {}", kMaxThreads));
    if (args.timeline && args.replicas > 1) throw std::invalid_argument("--timeline records one run: use it without --replicas");
    const Registry reg = Registry::load(args.image_path);
    sc = load_scenario_toml(args.scenario, reg.units(), args.model ? &*args.model : nullptr);
    attach_model_intervals(sc, reg);
    if (sc.needs_job_model()) attach_job_model(sc, reg, PresetLibrary(reg, args.presets_dir));
    if (args.policy) base.recovery = parse_recovery(*args.policy);
    check_work(sc, args);
    base.max_events = args.max_events;
  } catch (const std::exception& e) {
    throw RunError(RunFailure::bad_input, e.what());
  }
  const uint64_t seed = args.seed.value_or(sc.seed);
  const unsigned threads = args.threads ? args.threads : std::max(1u, std::thread::hardware_concurrency() / dist::local_ranks());
  SimulateRun run;
  if (args.replicas > 1 && dist::size() > 1) {
    run.replicas = distributed_replicas(sc, base, seed, args, threads);
    return run;
  }
  ReplicaRuns runs = run_replicas(sc, base, seed, 0, args.replicas, threads);
  for (uint32_t r = 0; r < args.replicas; ++r)
    if (runs.errors[r]) throw_replica_error(runs.errors[r], r, seed);
  if (args.timeline) try {
      gs::write_file_atomic(*args.timeline, timeline_text(runs.results[0], timeline_format_for(*args.timeline)));
    } catch (const std::exception& e) {
      throw RunError(RunFailure::bad_input, e.what());
    }
  run.results = std::move(runs.results);
  return run;
}

void to_json(Json& j, const SimulateRun& r) {
  if (r.replicas) j = *r.replicas;
  else j = r.results.size() == 1 ? result_to_json(r.results[0]) : replicas_to_json(r.results);
}

ServingSimResult serving_simulate(const ServingSimulateArgs& args) {
  try {
    const Registry reg = Registry::load(args.image_path);
    const PresetLibrary lib(reg, args.presets_dir);
    const ServingScenario sc = load_serving_scenario(args.scenario);
    ServingSimResult r = run_serving_scenario(reg, lib, sc, args.seed.value_or(sc.seed));
    if (args.timeline) gs::write_file_atomic(*args.timeline, serving_timeline_text(r, timeline_format_for(*args.timeline)));
    return r;
  } catch (const std::exception& e) {
    throw RunError(RunFailure::bad_input, e.what());
  }
}

Json protocol_json(const research::ExperimentProtocol& p) {
  Json j = p.to_json();
  j["protocol_hash"] = p.hash();
  return j;
}

ExperimentRun experiment_run(const ExperimentRunArgs& args) {
  ExperimentRun run;
  Json scenario;
  ExperimentContext context;
  context.scenario_path = args.scenario;
  context.image_path = args.image_path;
  context.presets_dir = args.presets_dir;
  try {
    run.protocol = research::load_frozen_protocol(args.experiments_dir, args.experiment);
    scenario = parse_json_file(args.scenario);
    if (args.timeline) context.timeline = timeline_format_for(*args.timeline);
  } catch (const std::exception& e) {
    throw RunError(RunFailure::bad_input, e.what());
  }
  try {
    run.outcome = run_experiment(run.protocol, scenario, args.seed, context);
  } catch (const std::logic_error& e) {
    if (dynamic_cast<const std::invalid_argument*>(&e)) throw RunError(RunFailure::bad_input, e.what());
    throw RunError(RunFailure::invariant, std::string("invariant violated: ") + e.what());
  } catch (const std::exception& e) {
    throw RunError(RunFailure::bad_input, e.what());
  }
  try {
    if (args.output) run.stored = research::store_artifact(run.outcome.sealed, *args.output, run.protocol.experiment_id + "-");
    // The timeline goes next to the artifact, after it: a refused artifact leaves no timeline behind either.
    if (args.timeline) gs::write_file_atomic(*args.timeline, run.outcome.timeline);
  } catch (const std::exception& e) {
    throw RunError(RunFailure::bad_input, e.what());
  }
  return run;
}

void to_json(Json& j, const ExperimentRun& r) {
  if (!r.stored) {
    j = r.outcome.sealed;
    return;
  }
  j = Json{{"path", r.stored->path}, {"artifact_sha256", r.stored->sha256}, {"already_present", r.stored->already_present},
           {"verdict", research::verdict_name(r.outcome.verdict)}, {"conclusion", r.outcome.conclusion}};
}

}  // namespace gs::sim
