#include "runtime/sim/commands.h"

#include <algorithm>
#include <atomic>
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
#include "runtime/workers.h"
#include "runtime/research/protocol.h"
#include "runtime/research/store.h"
#include "runtime/sim/engine.h"
#include "runtime/sim/experiments.h"
#include "runtime/sim/report.h"
#include "runtime/sim/scenario_toml.h"
#include "runtime/sim/serving_report.h"
#include "runtime/sim/timeline.h"
#include "image/text_file.h"

namespace gs::sim {

using research::Json;

std::string default_experiments_dir() {
  const char* env = std::getenv("GSTACK_EXPERIMENTS");
  return env && *env ? env : GSTACK_EXPERIMENTS_DIR;
}

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

}  // namespace

int simulate_command(const SimulateArgs& args, std::ostream& out, std::ostream& err) {
  Scenario sc;
  SimOptions base;
  base.timeline = args.timeline.has_value();
  try {
    if (args.replicas < 1 || args.replicas > kMaxReplicas)
      throw std::invalid_argument(fmt::format("--replicas must be between 1 and {}", kMaxReplicas));
    if (args.threads > kMaxThreads) throw std::invalid_argument(fmt::format("--threads must be at most {}", kMaxThreads));
    if (args.timeline && args.replicas > 1) throw std::invalid_argument("--timeline records one run: use it without --replicas");
    gs::Image img = gs::load_image_file(args.image_path);
    sc = load_scenario_toml(args.scenario, img.units, args.model ? &*args.model : nullptr);
    if (args.policy) base.recovery = parse_recovery(*args.policy);
    check_work(sc, args);
    base.max_events = args.max_events;
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  uint64_t seed = args.seed.value_or(sc.seed);
  std::vector<SimResult> runs(args.replicas);
  std::vector<std::exception_ptr> errors(args.replicas);
  const unsigned threads = std::min<unsigned>(args.replicas, args.threads ? args.threads : std::max(1u, std::thread::hardware_concurrency()));
  // Replica r always runs with seed + r, whichever thread picks it up, so the output does not depend on
  // the thread count (nor on how many threads the system lets us start).
  std::atomic<uint32_t> next{0};
  auto work = [&] {
    for (uint32_t r; (r = next.fetch_add(1)) < args.replicas;) try {
        SimOptions o = base;
        o.seed = seed + r;
        runs[r] = simulate(sc, o);
      } catch (...) {
        errors[r] = std::current_exception();
      }
  };
  run_workers(threads, work);
  for (uint32_t r = 0; r < args.replicas; ++r)
    if (errors[r]) try {
        std::rethrow_exception(errors[r]);
      } catch (const std::logic_error& e) {
        err << fmt::format("error: invariant violated in replica {} (seed {}): {}\n", r, seed + r, e.what());
        return 1;
      } catch (const std::exception& e) {
        err << fmt::format("error: replica {} (seed {}): {}\n", r, seed + r, e.what());
        return 2;
      }
  if (args.timeline) try {
      gs::write_file_atomic(*args.timeline, timeline_text(runs[0], timeline_format_for(*args.timeline)));
    } catch (const std::exception& e) {
      err << "error: " << e.what() << "\n";
      return 2;
    }
  if (args.replicas == 1) out << (args.json ? research::pretty_dump(result_to_json(runs[0])) : result_text(runs[0]));
  else out << (args.json ? research::pretty_dump(replicas_to_json(runs)) : replicas_text(runs));
  return 0;
}

int serving_simulate_command(const ServingSimulateArgs& args, std::ostream& out, std::ostream& err) {
  ServingSimResult r;
  try {
    const Registry reg = Registry::load(args.image_path);
    const PresetLibrary lib(reg, args.presets_dir);
    const ServingScenario sc = load_serving_scenario(args.scenario);
    r = run_serving_scenario(reg, lib, sc, args.seed.value_or(sc.seed));
    if (args.timeline) gs::write_file_atomic(*args.timeline, serving_timeline_text(r, timeline_format_for(*args.timeline)));
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  out << (args.json ? research::pretty_dump(serving_result_json(r)) : serving_result_text(r));
  return 0;
}

int experiment_protocol_command(const ExperimentProtocolArgs& args, std::ostream& out, std::ostream& err) {
  research::ExperimentProtocol p;
  try {
    p = research::load_frozen_protocol(args.experiments_dir, args.experiment);
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  if (args.json) {
    Json j = p.to_json();
    j["protocol_hash"] = p.hash();
    out << research::pretty_dump(j);
    return 0;
  }
  out << fmt::format("{}: {}\nprotocol_hash: {}\nquestion: {}\nhypothesis: {}\nfalsifiers:\n", p.experiment_id, p.title, p.hash(),
                     p.question, p.hypothesis);
  for (const auto& f : p.falsifiers) out << fmt::format("  {}: {} {}\n", f.falsifier_id, f.metric, f.rule_text());
  out << "structured evidence requirements:\n";
  if (p.evidence_requirements.empty()) out << "  none\n";
  for (const auto& r : p.evidence_requirements)
    out << fmt::format("  {}: {}; earliest {}; {}\n", r.requirement_id, r.mandatory ? "mandatory" : "optional",
                       research::stage_name(r.earliest_resolvable_stage), r.acceptance_rule);
  return 0;
}

int experiment_run_command(const ExperimentRunArgs& args, std::ostream& out, std::ostream& err) {
  research::ExperimentProtocol p;
  Json scenario;
  try {
    p = research::load_frozen_protocol(args.experiments_dir, args.experiment);
    scenario = Json::parse(read_text_file(args.scenario, "scenario"));
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  ExperimentOutcome o;
  try {
    const std::string dir = std::filesystem::path(args.scenario).parent_path().string();
    o = run_experiment(p, scenario, args.seed, {args.image_path, args.presets_dir, dir.empty() ? "." : dir});
  } catch (const std::logic_error& e) {
    if (dynamic_cast<const std::invalid_argument*>(&e)) {
      err << "error: " << e.what() << "\n";
      return 2;
    }
    err << "error: invariant violated: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  int status = o.verdict == research::Verdict::fail ? 1 : 0;
  if (!args.output) {
    out << research::pretty_dump(o.sealed);
    return status;
  }
  research::StoredArtifact stored;
  try {
    stored = research::store_artifact(o.sealed, *args.output, p.experiment_id + "-");
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  if (args.json)
    out << research::pretty_dump({{"path", stored.path}, {"artifact_sha256", stored.sha256}, {"already_present", stored.already_present},
                                  {"verdict", research::verdict_name(o.verdict)}, {"conclusion", o.conclusion}});
  else
    out << fmt::format("{} {} ({}): artifact {} {} {}\n", p.experiment_id, research::verdict_name(o.verdict), o.conclusion, stored.sha256,
                       stored.already_present ? "already at" : "written to", stored.path);
  return status;
}

}  // namespace gs::sim
