#include "runtime/present/sim.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "runtime/sim/report.h"

namespace gs::present {
namespace {

std::string ms(double s) { return fmt::format("{:.1f} ms", s * 1e3); }

}  // namespace

std::string published_comparison_text(const sim::PublishedComparison& c) {
  if (c.empty()) return "";
  std::string out = "published figures (compared, never fitted):\n";
  auto published = [](const sim::FigureComparison& f) {
    if (f.relation == "about") return fmt::format("{:g} ±{:g}%", f.published, f.tolerance * 100);
    return fmt::format("{} {:g}", f.relation == "gt" ? ">" : "<", f.published);
  };
  for (const auto& f : c.figures)
    out += fmt::format("  {:<34} published {:<12} simulated {:<10.4g} gap {:+.4g}  {}  [{}]\n", f.id, published(f), f.simulated,
                       f.simulated - f.published, f.consistent ? "consistent" : "NOT consistent", f.source);
  out += "  interruptions by cause: simulated / source observed (source rate over this run)\n";
  std::vector<sim::CauseComparison> causes = c.causes;
  std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.observed_count > b.observed_count; });
  for (const auto& k : causes)
    out += fmt::format("    {:<30} {:<22} {:>5} / {:<5} ({:.1f})\n", k.cause, k.category, k.simulated, k.observed_count, k.expected);
  return out;
}

std::string sim_result_text(const sim::SimResult& r) {
  const sim::Headline h = sim::headline(r);
  std::string out = fmt::format("scenario {} (seed {}{}), simulated {:.2f} days\n", r.scenario_id, r.seed,
                                r.recovery_override.empty() ? "" : ", recovery " + r.recovery_override, double(r.end_ns) / 86400e9);
  for (const auto& j : r.jobs) {
    uint64_t interruptions = 0;
    for (const auto& [cause, n] : j.interruptions) interruptions += n;
    out += fmt::format("job {} [{}] on {} GPUs: {} steps, goodput {:.4g} tokens/s, ETTR {:.4f}{}\n", j.id, j.policy, j.gpus,
                       j.steps_committed, j.goodput_tokens_per_s(), j.ettr(), j.completed ? ", completed" : "");
    out += fmt::format("  work (tokens): attempted {} = committed {} + lost {} (rollback {}, interrupted steps {}, cut by the horizon {})\n",
                       j.work.attempted, j.work.committed, j.work.lost(), j.work.lost_rollback, j.work.lost_interrupted,
                       j.work.lost_truncated);
    out += fmt::format("  interruptions: {}", interruptions);
    std::vector<std::pair<uint64_t, std::string>> causes;
    for (const auto& [cause, n] : j.interruptions) causes.push_back({n, cause});
    std::sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    for (size_t i = 0; i < causes.size(); ++i) out += fmt::format("{}{} {}", i ? ", " : " (", causes[i].second, causes[i].first);
    out += causes.empty() ? "\n" : ")\n";
    out += fmt::format("  recovery: {} durable restores, {} memory restores, {} elastic continuations, {} rejoins, {} abstentions\n",
                       j.restores_durable, j.restores_memory, j.elastic_continuations, j.rejoins, j.abstentions);
    if (j.migrations || j.power_cap_changes)
      out += fmt::format("  interventions: {} replica migrations ({:.4g} TB over the WAN), {} power-cap changes\n", j.migrations,
                         j.migration_bytes / 1e12, j.power_cap_changes);
    if (j.degree_changes) out += fmt::format("  parallelism: {} data-parallel degree changes\n", j.degree_changes);
    out += fmt::format("  checkpoints: {} durable, {} in memory; lost {:.1f} GPU-hours\n", j.checkpoints_durable,
                       j.checkpoints_memory, j.lost_gpu_hours);
  }
  out += fmt::format("energy: IT {:.4g} MWh, facility {:.4g} MWh, peak IT {:.4g} MW\n", h.it_energy_j / 3.6e9,
                     h.facility_energy_j / 3.6e9, r.peak_it_w / 1e6);
  auto usd = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f} USD", *v) : std::string("not modelled"); };
  out += fmt::format("cost: energy {}, GPU time {}\n", usd(h.energy_cost_usd), usd(h.gpu_cost_usd));
  out += "energy boundary: GPU power by job phase, node host power, site base load, static PUE; not network, storage or nodes under repair\n";
  out += fmt::format("invariants: work conserved {}, time partitioned {}, causality violations {} in {} events\n",
                     r.work_conserved() ? "yes" : "NO", r.time_partitioned() ? "yes" : "NO", r.causality_violations, r.events);
  out += published_comparison_text(r.published);
  return out;
}

std::string replicas_text(const research::Json& j) {
  std::string out = fmt::format("scenario {}: {} replicas\n", j["scenario_id"].get<std::string>(), j["replicas"].get<size_t>());
  for (const auto& [k, s] : j["summary"].items())
    out += fmt::format("  {:<22} mean {:<12.6g} p05 {:<12.6g} p50 {:<12.6g} p95 {:.6g}\n", k, s["mean"].get<double>(),
                       s["p05"].get<double>(), s["p50"].get<double>(), s["p95"].get<double>());
  out += fmt::format("invariants: work conserved {}, time partitioned {}, causality violations {}\n",
                     j["invariants"]["work_conserved"].get<bool>() ? "yes" : "NO",
                     j["invariants"]["time_partitioned"].get<bool>() ? "yes" : "NO", j["invariants"]["causality_violations"].get<uint64_t>());
  return out;
}

std::string simulate_text(const sim::SimulateRun& r) {
  if (r.replicas) return replicas_text(*r.replicas);
  return r.results.size() == 1 ? sim_result_text(r.results[0]) : replicas_text(sim::replicas_to_json(r.results));
}

std::string serving_sim_text(const sim::ServingSimResult& r) {
  const sim::ServingSummary& s = r.summary;
  const sim::ServingModelPoint& m = r.model;
  const sim::ServingScenario& sc = r.scenario;
  const double window = sc.workload.horizon_s - sc.workload.warmup_s;
  auto per_token = [](double x, const char* unit) { return std::isfinite(x) ? fmt::format("{:.4g} {}", x, unit) : std::string("n/a (no tokens)"); };
  std::string out;
  out += fmt::format("serving scenario {} (seed {}): {} x {}, batch limit {}\n", sc.name, r.seed, sc.replicas, sc.preset, sc.max_batch);
  out += fmt::format("  model: decode step {} (batch 1) .. {} (batch {}), prefill {} (mean prompt), KV {:.0f} tokens, {:.0f} W, {:.4g} USD/h per replica\n",
                     ms(m.decode_step_batch1_s), ms(m.decode_step_max_batch_s), sc.max_batch, ms(m.prefill_mean_prompt_s), m.kv_capacity_tokens,
                     m.replica_power_w, m.replica_cost_usd_per_s * 3600);
  out += fmt::format("  requests: {} arrived, {} measured over {:.0f} s after a {:.0f} s warm-up ({:.3g}/s offered)\n", s.arrived, s.measured, window,
                     sc.workload.warmup_s, sc.workload.rate_per_s);
  out += fmt::format("  TTFT  p50 {}  p90 {}  p99 {}  (mean {}; target {})\n", ms(s.p50_ttft_s), ms(s.p90_ttft_s), ms(s.p99_ttft_s), ms(s.mean_ttft_s),
                     ms(sc.ttft_max_s));
  out += fmt::format("  TPOT  p50 {}  p90 {}  p99 {}  (mean {}; target {})\n", ms(s.p50_tpot_s), ms(s.p90_tpot_s), ms(s.p99_tpot_s), ms(s.mean_tpot_s),
                     ms(sc.tpot_max_s));
  out += fmt::format("  throughput {:.1f} output tokens/s; goodput {:.1f} tokens/s within both targets ({:.1f}% of requests)\n", s.output_tokens_per_s,
                     r.goodput_tokens_per_s, 100 * r.slo_attainment);
  out += fmt::format("  busy {:.1f}% of the window, mean batch {:.1f}, {:.2f} requests in the system on average\n", 100 * s.busy_fraction, s.mean_batch,
                     s.mean_in_system);
  out += fmt::format("  energy {:.4g} kWh, {} per output token\n", r.energy_j / 3.6e6, per_token(r.energy_per_output_token_j, "J"));
  out += fmt::format("  cost {:.4g} USD: {} per million output tokens, {} per million tokens within the targets\n", r.cost_usd,
                     per_token(r.cost_per_million_output_tokens_usd, "USD"), per_token(r.cost_per_million_goodput_tokens_usd, "USD"));
  out += "  (replicas are held and draw the model's serving power through the whole window, idle or not)\n";
  return out;
}

std::string protocol_text(const research::ExperimentProtocol& p) {
  std::string out = fmt::format("{}: {}\nprotocol_hash: {}\nquestion: {}\nhypothesis: {}\nfalsifiers:\n", p.experiment_id, p.title, p.hash(),
                                p.question, p.hypothesis);
  for (const auto& f : p.falsifiers) out += fmt::format("  {}: {} {}\n", f.falsifier_id, f.metric, f.rule_text());
  out += "structured evidence requirements:\n";
  if (p.evidence_requirements.empty()) out += "  none\n";
  for (const auto& q : p.evidence_requirements)
    out += fmt::format("  {}: {}; earliest {}; {}\n", q.requirement_id, q.mandatory ? "mandatory" : "optional",
                       research::stage_name(q.earliest_resolvable_stage), q.acceptance_rule);
  return out;
}

std::string experiment_run_text(const sim::ExperimentRun& r) {
  if (!r.stored) return research::pretty_dump(r.outcome.sealed);
  return fmt::format("{} {} ({}): artifact {} {} {}\n", r.protocol.experiment_id, research::verdict_name(r.outcome.verdict), r.outcome.conclusion,
                     r.stored->sha256, r.stored->already_present ? "already at" : "written to", r.stored->path);
}

}  // namespace gs::present
