#include "runtime/sim/report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "runtime/sim/published.h"

namespace gs::sim {

using research::Json;

research::Json energy_boundary() {
  return {{"included",
           {"GPU board power by job phase: computing, waiting on exposed collectives, idle (checkpoint, restore, detection, "
            "waiting for capacity, paused)",
            "non-GPU node power (cluster.node.host_power) of every powered node, spares included",
            "fixed site IT load (site base_power)", "facility overhead as IT energy x static PUE (thermal.dc.pue)"}},
          {"excluded",
           {"network switches and WAN equipment", "storage servers", "nodes down for repair or in an outage (0 W)",
            "embodied energy of the hardware", "transients within a step (the power of a segment is its step average, "
            "unless the job traces its phases)"}},
          {"note", "Static PUE scales the IT energy; it is not a waveform model of the cooling plant."}};
}

Headline headline(const SimResult& r) {
  Headline h;
  double busy_weighted = 0, wall_weighted = 0;
  for (const auto& j : r.jobs) {
    h.committed_tokens += double(j.work.committed);
    h.attempted_tokens += double(j.work.attempted);
    h.lost_tokens += double(j.work.lost());
    h.lost_gpu_hours += j.lost_gpu_hours;
    for (const auto& [cause, n] : j.interruptions) h.interruptions += double(n);
    busy_weighted += double(j.time.compute_committed) * j.gpus;
    wall_weighted += double(j.end_ns - j.start_ns) * j.gpus;
  }
  h.goodput_tokens_per_s = r.end_ns > 0 ? h.committed_tokens / (double(r.end_ns) / 1e9) : 0;
  h.ettr = wall_weighted > 0 ? busy_weighted / wall_weighted : 0;
  for (const auto& s : r.sites) {
    h.it_energy_j += s.it_energy_j;
    h.facility_energy_j += s.facility_energy_j;
    if (s.energy_cost_usd) h.energy_cost_usd = h.energy_cost_usd.value_or(0) + *s.energy_cost_usd;
    if (s.gpu_cost_usd) h.gpu_cost_usd = h.gpu_cost_usd.value_or(0) + *s.gpu_cost_usd;
  }
  return h;
}

namespace {

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json intervals_json(const std::vector<uint32_t>& v) {
  if (v.empty()) return nullptr;
  return {{"first", v.front()}, {"last", v.back()}, {"min", *std::min_element(v.begin(), v.end())},
          {"max", *std::max_element(v.begin(), v.end())}, {"changes", v.size()}};
}

Json job_json(const JobResult& j) {
  Json out = {{"id", j.id}, {"policy", j.policy}, {"gpus", j.gpus}, {"start_s", double(j.start_ns) / 1e9},
          {"end_s", double(j.end_ns) / 1e9}, {"completed", j.completed}, {"steps_committed", j.steps_committed},
          {"goodput_tokens_per_s", j.goodput_tokens_per_s()}, {"ettr", j.ettr()}, {"work", j.work.to_json()},
          {"time", j.time.to_json()}, {"interruptions", j.interruptions}, {"interruptions_by_category", j.interruptions_by_category},
          {"failures_absorbed", j.failures_absorbed},
          {"recovery", {{"restores_durable", j.restores_durable}, {"restores_memory", j.restores_memory},
                        {"elastic_continuations", j.elastic_continuations}, {"rejoins", j.rejoins}, {"abstentions", j.abstentions}}},
          {"checkpoints", {{"durable", j.checkpoints_durable}, {"memory", j.checkpoints_memory},
                           {"interval_steps", intervals_json(j.checkpoint_intervals)}}},
          {"syncs", j.syncs},
          {"bytes", {{"sync", j.sync_bytes}, {"sync_aborted", j.sync_bytes_aborted}, {"checkpoint", j.checkpoint_bytes},
                     {"checkpoint_aborted", j.checkpoint_bytes_aborted}, {"restore", j.restore_bytes},
                     {"state_transfer", j.state_transfer_bytes}}},
          {"gpu_busy_hours", j.gpu_busy_s / 3600.0}, {"lost_gpu_hours", j.lost_gpu_hours}, {"flops_attempted", opt(j.flops_attempted)},
          {"decisions", j.decisions}, {"decisions_sha256", j.decisions_sha256}};
  // Interventions added after v1 appear only when taken, so earlier results read the same.
  if (j.migrations) {
    out["recovery"]["migrations"] = j.migrations;
    out["bytes"]["migration"] = j.migration_bytes;
  }
  if (j.power_cap_changes) out["recovery"]["power_cap_changes"] = j.power_cap_changes;
  if (j.degree_changes) out["recovery"]["data_parallel_degree_changes"] = j.degree_changes;
  return out;
}

}  // namespace

Json result_to_json(const SimResult& r) {
  Headline h = headline(r);
  Json jobs = Json::array(), sites = Json::array();
  for (const auto& j : r.jobs) jobs.push_back(job_json(j));
  for (const auto& s : r.sites)
    sites.push_back({{"id", s.id}, {"it_energy_j", s.it_energy_j}, {"facility_energy_j", s.facility_energy_j},
                     {"peak_it_w", s.peak_it_w}, {"energy_cost_usd", opt(s.energy_cost_usd)}, {"gpu_cost_usd", opt(s.gpu_cost_usd)},
                     {"limit_unmet_s", s.limit_unmet_s}});
  std::optional<double> total_cost;
  if (h.energy_cost_usd || h.gpu_cost_usd) total_cost = h.energy_cost_usd.value_or(0) + h.gpu_cost_usd.value_or(0);
  std::optional<double> per_mtok;
  if (total_cost && h.committed_tokens > 0) per_mtok = *total_cost / h.committed_tokens * 1e6;
  Json j = {{"schema", "gpu-stack.sim-result.v1"}, {"scenario_id", r.scenario_id}, {"scenario_hash", r.scenario_hash},
          {"seed", r.seed}, {"recovery_override", r.recovery_override.empty() ? Json(nullptr) : Json(r.recovery_override)},
          {"end_s", double(r.end_ns) / 1e9},
          {"headline", {{"committed_tokens", h.committed_tokens}, {"goodput_tokens_per_s", h.goodput_tokens_per_s},
                        {"ettr", h.ettr}, {"lost_tokens", h.lost_tokens}, {"lost_gpu_hours", h.lost_gpu_hours},
                        {"interruptions", h.interruptions}, {"it_energy_j", h.it_energy_j},
                        {"facility_energy_j", h.facility_energy_j}, {"energy_cost_usd", opt(h.energy_cost_usd)},
                        {"gpu_cost_usd", opt(h.gpu_cost_usd)}, {"total_cost_usd", opt(total_cost)},
                        {"cost_usd_per_million_tokens", opt(per_mtok)}, {"peak_it_w", r.peak_it_w}}},
          {"invariants", {{"work_conserved", r.work_conserved()}, {"time_partitioned", r.time_partitioned()},
                          {"causality_violations", r.causality_violations}, {"events", r.events}}},
          {"energy_boundary", energy_boundary()}, {"jobs", jobs}, {"sites", sites},
          {"fleet", {{"failures", r.fleet_failures}, {"repairs", r.repairs}, {"straggler_episodes", r.straggler_episodes}}}};
  if (!r.published.empty()) j["published_comparison"] = comparison_to_json(r.published);
  return j;
}

namespace {

struct Spread {
  double mean = 0, p05 = 0, p50 = 0, p95 = 0, min = 0, max = 0;
};

Spread spread(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  double sum = 0;
  for (double x : v) sum += x;  // in replica order: deterministic
  s.mean = sum / double(v.size());
  std::sort(v.begin(), v.end());
  // Nearest-rank percentiles: always an observed value, no interpolation convention to agree on.
  auto rank = [&](double p) {
    size_t k = static_cast<size_t>(std::ceil(p * double(v.size())));
    return v[std::min(v.size(), std::max<size_t>(k, 1)) - 1];
  };
  s.p05 = rank(0.05);
  s.p50 = rank(0.50);
  s.p95 = rank(0.95);
  s.min = v.front();
  s.max = v.back();
  return s;
}

}  // namespace

ReplicaSummary replica_summary(const SimResult& r) {
  return {r.seed, headline(r), r.work_conserved(), r.time_partitioned(), r.causality_violations};
}

Json replicas_to_json(const std::vector<ReplicaSummary>& runs, const std::string& scenario_id, const std::string& scenario_hash) {
  std::map<std::string, std::vector<double>> series;
  Json per = Json::array();
  bool conserved = true, partitioned = true;
  uint64_t violations = 0;
  for (const auto& r : runs) {
    const Headline& h = r.headline;
    std::map<std::string, double> m = {{"goodput_tokens_per_s", h.goodput_tokens_per_s}, {"ettr", h.ettr},
                                       {"lost_tokens", h.lost_tokens}, {"interruptions", h.interruptions},
                                       {"facility_energy_j", h.facility_energy_j}, {"lost_gpu_hours", h.lost_gpu_hours}};
    if (h.energy_cost_usd || h.gpu_cost_usd) m["total_cost_usd"] = h.energy_cost_usd.value_or(0) + h.gpu_cost_usd.value_or(0);
    for (const auto& [k, v] : m) series[k].push_back(v);
    Json row = m;
    row["seed"] = r.seed;
    per.push_back(row);
    conserved &= r.work_conserved;
    partitioned &= r.time_partitioned;
    violations += r.causality_violations;
  }
  Json summary = Json::object();
  for (const auto& [k, v] : series) {
    Spread s = spread(v);
    summary[k] = {{"mean", s.mean}, {"p05", s.p05}, {"p50", s.p50}, {"p95", s.p95}, {"min", s.min}, {"max", s.max}};
  }
  return {{"schema", "gpu-stack.sim-replicas.v1"}, {"scenario_id", scenario_id},
          {"scenario_hash", scenario_hash}, {"replicas", runs.size()}, {"summary", summary},
          {"per_replica", per},
          {"invariants", {{"work_conserved", conserved}, {"time_partitioned", partitioned}, {"causality_violations", violations}}},
          {"energy_boundary", energy_boundary()}};
}

Json replicas_to_json(const std::vector<SimResult>& runs) {
  std::vector<ReplicaSummary> rows;
  for (const auto& r : runs) rows.push_back(replica_summary(r));
  return replicas_to_json(rows, runs.empty() ? "" : runs[0].scenario_id, runs.empty() ? "" : runs[0].scenario_hash);
}

}  // namespace gs::sim
