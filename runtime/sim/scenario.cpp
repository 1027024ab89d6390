#include "runtime/sim/scenario.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/sim/policy.h"

namespace gs::sim {

const char* recovery_name(Recovery r) {
  switch (r) {
    case Recovery::restart: return "restart";
    case Recovery::wait_restore: return "wait_restore";
    case Recovery::in_memory: return "in_memory";
    case Recovery::elastic: return "elastic";
    case Recovery::adaptive: return "adaptive";
  }
  return "?";
}

Recovery parse_recovery(const std::string& s) {
  for (auto r : {Recovery::restart, Recovery::wait_restore, Recovery::in_memory, Recovery::elastic, Recovery::adaptive})
    if (s == recovery_name(r)) return r;
  throw std::invalid_argument("unknown recovery policy '" + s + "' (restart, wait_restore, in_memory, elastic, adaptive)");
}

namespace {

const char* cadence_name(Cadence c) {
  switch (c) {
    case Cadence::none: return "none";
    case Cadence::fixed_steps: return "fixed_steps";
    case Cadence::fixed_time: return "fixed_time";
    case Cadence::young: return "young";
    case Cadence::daly: return "daly";
  }
  return "?";
}

const char* unit_name(FailureUnit u) {
  switch (u) {
    case FailureUnit::gpu: return "gpu";
    case FailureUnit::node: return "node";
    case FailureUnit::domain: return "domain";
    case FailureUnit::job: return "job";
  }
  return "job";
}

const char* timed_name(TimedKind k) {
  switch (k) {
    case TimedKind::grid_limit: return "grid_limit";
    case TimedKind::cooling_limit: return "cooling_limit";
    case TimedKind::site_outage: return "site_outage";
    case TimedKind::preemption: return "preemption";
  }
  return "?";
}

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// Values a site or job table sets override the top level; the scope rule keeps a workload variable from
// hiding in a site table, where it would silently apply to nothing.
std::map<std::string, double> merged(const std::map<std::string, double>& top, const std::map<std::string, double>& local,
                                     InputScope scope, const std::string& owner, std::vector<std::string>& problems) {
  std::map<std::string, double> out = top;
  for (const auto& [name, v] : local) {
    const ModelVariable* var = find_model_variable(name);
    if (var && var->scope != scope)
      problems.push_back(fmt::format("{}: '{}' is a {} variable and cannot be set here", owner, name,
                                     var->scope == InputScope::workload ? "workload (job)" : "facility (site)"));
    out[name] = v;
  }
  return out;
}

}  // namespace

size_t Scenario::site_index(const std::string& sid) const {
  for (size_t i = 0; i < sites.size(); ++i)
    if (sites[i].id == sid) return i;
  throw std::invalid_argument("unknown site '" + sid + "'");
}

void Scenario::finalize() {
  std::vector<std::string> p;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) p.push_back(what);
  };
  check(!id.empty(), "scenario needs an id");
  check(horizon_ns > 0, "horizon must be positive");
  check(!sites.empty(), "scenario needs at least one site");
  std::set<std::string> site_ids, storage_ids, link_ids, job_ids, failure_ids;
  for (const auto& s : storages) {
    check(storage_ids.insert(s.id).second, "storage '" + s.id + "' declared twice");
    check(s.write_bw > 0 && s.read_bw > 0, "storage '" + s.id + "' needs positive bandwidths");
  }
  std::map<std::string, uint64_t> used_nodes;
  for (auto& s : sites) {
    check(site_ids.insert(s.id).second, "site '" + s.id + "' declared twice");
    check(s.nodes > 0 && s.gpus_per_node > 0, "site '" + s.id + "' needs nodes and GPUs per node");
    check(s.storage.empty() || storage_ids.count(s.storage), "site '" + s.id + "' uses unknown storage '" + s.storage + "'");
    check(s.base_power_w >= 0, "site '" + s.id + "': base power must be >= 0");
    try {
      s.facility = facility_from_values(merged(model, s.model, InputScope::facility, "site " + s.id, p));
    } catch (const std::invalid_argument& e) {
      p.push_back("site " + s.id + ": " + e.what());
    }
  }
  for (const auto& s : storages) check(s.site.empty() || site_ids.count(s.site), "storage '" + s.id + "' is at unknown site '" + s.site + "'");
  for (const auto& l : links) {
    check(link_ids.insert(l.id).second, "link '" + l.id + "' declared twice");
    check(site_ids.count(l.a) && site_ids.count(l.b) && l.a != l.b, "link '" + l.id + "' must join two different known sites");
    check(l.bandwidth > 0 && l.latency_ns >= 0, "link '" + l.id + "' needs a positive bandwidth and a latency >= 0");
  }
  for (auto& j : jobs) {
    std::string who = "job '" + j.id + "'";
    check(job_ids.insert(j.id).second, who + " declared twice");
    check(!j.placement.empty(), who + " is placed nowhere");
    check(j.replica_nodes > 0, who + ": replica_nodes must be >= 1");
    std::set<std::string> placed;
    for (const auto& pl : j.placement) {
      check(site_ids.count(pl.site), who + " is placed at unknown site '" + pl.site + "'");
      check(placed.insert(pl.site).second, who + " is placed twice at site '" + pl.site + "'");
      check(pl.nodes > 0 && j.replica_nodes > 0 && pl.nodes % j.replica_nodes == 0,
            who + ": the nodes at each site must be a positive multiple of replica_nodes");
      check(pl.speed > 0, who + ": placement speed must be positive");
      used_nodes[pl.site] += pl.nodes;
    }
    check(j.start_ns >= 0, who + ": start must be >= 0");
    check(j.checkpoint_storage.empty() || storage_ids.count(j.checkpoint_storage), who + " checkpoints to unknown storage");
    check(j.sync_bytes >= 0, who + ": sync_bytes must be >= 0");
    try {
      j.workload = workload_from_values(merged(model, j.model, InputScope::workload, who, p));
    } catch (const std::invalid_argument& e) {
      p.push_back(who + ": " + e.what());
      continue;
    }
    const auto& pol = j.policy;
    const auto& w = j.workload;
    if (pol.cadence != Cadence::none && j.checkpoint_storage.empty())
      for (const auto& pl : j.placement)
        for (const auto& s : sites)
          check(s.id != pl.site || !s.storage.empty(), who + " checkpoints but site '" + pl.site + "' has no storage");
    check(pol.cadence != Cadence::fixed_steps || pol.cadence_value >= 1, who + ": a fixed checkpoint interval needs >= 1 step");
    check(pol.cadence != Cadence::fixed_time || pol.cadence_value > 0, who + ": a fixed checkpoint interval needs a positive time");
    std::string missing = policy_prerequisites_missing(pol, w);
    check(missing.empty(), fmt::format("{}: the {} policy needs {}", who, recovery_name(pol.recovery), missing));
    if (j.power_cap) {
      check(j.power_cap->board_w > 0 && (j.power_cap->clock_share_from_model || (j.power_cap->clock_share > 0 && j.power_cap->clock_share <= 1)) &&
                j.power_cap->busy_w > 0,
            who + ": power_cap needs a positive board limit, a clock share in (0, 1] and a positive busy power");
      check(!j.power_cap->clock_share_from_model || !j.model_preset.empty(),
            who + ": power_cap without a clock_share takes it from the model, so the job must name its model_preset");
    }
    if (j.reconfigure) {
      check(j.reconfigure->cost_s >= 0, who + ": the reconfiguration cost must be >= 0");
      check(!j.model_preset.empty(), who + ": [job.reconfigure] takes the step time at each data-parallel degree from the model, "
                                           "so the job must name its model_preset");
      for (const auto& pl : j.placement)
        check(pl.speed == 1, who + ": parallelism reconfiguration prices a degree, not a mix of site speeds: every placement speed must be 1");
    }
    check(!pol.reconfigure || pol.recovery == Recovery::elastic, who + ": parallelism reconfiguration applies to the elastic recovery");
    check(!pol.reconfigure || j.reconfigure, who + ": a reconfiguring policy needs the job's [job.reconfigure] cost");
    check(!pol.power_aware || j.power_cap, who + ": a power-aware policy needs the job's [job.power_cap] operating point");
    check(!pol.migrate || j.placement.size() > 1, who + ": migration needs a job placed at two or more sites");
    for (const auto& r : pol.envelope.ranges)
      check(is_envelope_feature(r.feature) && r.lo <= r.hi, who + ": envelope range '" + r.feature + "' is unknown or empty");
    check(pol.sync == SyncMode::fixed ? pol.local_steps >= 1
                                      : (pol.sync_min >= 1 && pol.sync_min <= pol.sync_max && pol.sync_low >= 0 &&
                                         pol.sync_low < pol.sync_high && pol.sync_high <= 1),
          who + ": invalid synchronisation cadence");
  }
  for (const auto& [site, n] : used_nodes)
    for (const auto& s : sites)
      check(s.id != site || n <= s.nodes, fmt::format("site '{}' has {} nodes but jobs need {}", site, s.nodes, n));
  for (const auto& f : failures) {
    check(failure_ids.insert(f.id).second, "failure class '" + f.id + "' declared twice");
    check(f.rate_per_unit_s >= 0, "failure class '" + f.id + "' has a negative rate");
    check(!f.removes_node || (f.repair.median > 0 && f.repair.sigma >= 0), "failure class '" + f.id + "' needs a repair time");
    check(f.unit != FailureUnit::job || !f.removes_node, "failure class '" + f.id + "': a job-level fault cannot remove a node");
    check(f.unit != FailureUnit::domain || f.domain_nodes >= 1, "failure class '" + f.id + "': a domain needs domain_nodes >= 1");
    check(f.weibull_shape > 0 && std::isfinite(f.weibull_shape), "failure class '" + f.id + "': the hazard shape must be positive");
    check(f.weibull_shape == 1 || f.observed_window_s > 0, "failure class '" + f.id + "': a hazard shape needs the observed window it is scaled to");
    check(f.detection_s.value_or(0) >= 0 && f.diagnosis_s.value_or(0) >= 0,
          "failure class '" + f.id + "': detection and diagnosis times must be >= 0");
  }
  for (const auto& p : published) {
    static const std::set<std::string> metrics = {"ettr", "unexpected_interruptions", "planned_interruptions", "job_mtbf_h"};
    check(metrics.count(p.metric) > 0, "published figure '" + p.id + "': metric must be ettr, unexpected_interruptions, planned_interruptions or job_mtbf_h");
    check(p.relation == "gt" || p.relation == "lt" || p.relation == "about",
          "published figure '" + p.id + "': relation must be gt, lt or about");
    check(p.relation != "about" || p.tolerance > 0, "published figure '" + p.id + "': 'about' needs a tolerance > 0");
  }
  check(maintenance.rate_per_job_s >= 0 && maintenance.notice_ns >= 0, "maintenance rate and notice must be >= 0");
  check(maintenance.rate_per_job_s == 0 || maintenance.duration.median > 0, "maintenance needs a duration");
  check(stragglers.static_sigma >= 0 && stragglers.step_jitter_sigma >= 0 && stragglers.transient_rate_per_node_s >= 0 &&
            stragglers.transient_slowdown >= 1,
        "straggler spreads and rates must be >= 0 and the slowdown >= 1");
  check(stragglers.transient_rate_per_node_s == 0 || stragglers.transient_duration.median > 0, "straggler episodes need a duration");
  for (const auto& e : events) {
    check(e.start_ns >= 0 && e.end_ns > e.start_ns, "event '" + e.id + "' must end after it starts");
    if (e.kind == TimedKind::preemption) check(job_ids.count(e.job), "event '" + e.id + "' preempts unknown job '" + e.job + "'");
    else check(site_ids.count(e.site), "event '" + e.id + "' is at unknown site '" + e.site + "'");
    check(e.limit_w >= 0 && e.notice_ns >= 0, "event '" + e.id + "': limit and notice must be >= 0");
  }
  check(power_sample_ns >= 0, "power sample period must be >= 0");
  if (!p.empty()) throw std::invalid_argument(fmt::format("scenario {}: {}", id, fmt::join(p, "; ")));
}

Json Scenario::to_json() const {
  Json j;
  j["schema"] = "gpu-stack.sim-scenario.v1";
  j["id"] = id;
  j["description"] = description;
  j["seed"] = seed;
  j["horizon_ns"] = horizon_ns;
  j["model"] = model;
  j["power_sample_ns"] = power_sample_ns;
  Json src = Json::array();
  for (const auto& s : sources) src.push_back({{"id", s.id}, {"citation", s.citation}, {"url", s.url}});
  j["sources"] = src;
  Json prov = Json::array();
  for (const auto& s : provenance)
    prov.push_back({{"path", s.path}, {"text", s.text}, {"value", s.value}, {"unit", s.unit}, {"source", s.source}, {"note", s.note}});
  j["provenance"] = prov;
  j["sites"] = Json::array();
  for (const auto& s : sites)
    j["sites"].push_back({{"id", s.id}, {"nodes", s.nodes}, {"gpus_per_node", s.gpus_per_node}, {"storage", s.storage},
                          {"base_power_w", s.base_power_w}, {"state_io_bw", opt(s.state_io_bw)},
                          {"grid_limit_w", opt(s.grid_limit_w)}, {"cooling_capacity_w", opt(s.cooling_capacity_w)},
                          {"model", s.model}});
  j["storages"] = Json::array();
  for (const auto& s : storages)
    j["storages"].push_back({{"id", s.id}, {"site", s.site}, {"write_bw", s.write_bw}, {"read_bw", s.read_bw}});
  j["links"] = Json::array();
  for (const auto& l : links)
    j["links"].push_back({{"id", l.id}, {"a", l.a}, {"b", l.b}, {"bandwidth", l.bandwidth}, {"latency_ns", l.latency_ns}});
  j["jobs"] = Json::array();
  for (const auto& job : jobs) {
    Json pl = Json::array();
    for (const auto& p : job.placement) pl.push_back({{"site", p.site}, {"nodes", p.nodes}, {"speed", p.speed}});
    const auto& pol = job.policy;
    Json ranges = Json::array();
    for (const auto& r : pol.envelope.ranges) ranges.push_back({{"feature", r.feature}, {"lo", r.lo}, {"hi", r.hi}});
    Json policy = {{"label", pol.label}, {"recovery", recovery_name(pol.recovery)}, {"cadence", cadence_name(pol.cadence)},
                   {"cadence_value", pol.cadence_value}, {"durable_every", pol.durable_every},
                   {"peer_group_nodes", pol.peer_group_nodes}, {"min_replica_fraction", pol.min_replica_fraction},
                   {"prior_failures", pol.prior_failures}, {"envelope", {{"ranges", ranges}, {"source", pol.envelope.source}}},
                   {"sync", pol.sync == SyncMode::fixed ? "fixed" : "adaptive"}, {"local_steps", pol.local_steps},
                   {"sync_min", pol.sync_min}, {"sync_max", pol.sync_max}, {"sync_high", pol.sync_high}, {"sync_low", pol.sync_low}};
    // Keys added after v1 appear only when used, so the hash of a scenario without them is unchanged.
    if (pol.migrate) policy["migrate"] = true;
    if (pol.power_aware) policy["power_aware"] = true;
    if (pol.reconfigure) policy["reconfigure"] = true;
    Json jj = {{"id", job.id}, {"placement", pl}, {"replica_nodes", job.replica_nodes},
               {"target_steps", job.target_steps}, {"start_ns", job.start_ns},
               {"checkpoint_storage", job.checkpoint_storage}, {"sync_bytes", job.sync_bytes},
               {"trace_phases", job.trace_phases}, {"policy", policy}, {"model", job.model}};
    if (job.power_cap) {
      jj["power_cap"] = {{"board_w", job.power_cap->board_w}, {"clock_share", job.power_cap->clock_share}, {"busy_w", job.power_cap->busy_w}};
      if (job.power_cap->clock_share_from_model) jj["power_cap"]["clock_share_from"] = "model";
    }
    if (!job.model_preset.empty()) jj["model_preset"] = job.model_preset;
    if (job.reconfigure) jj["reconfigure"] = {{"cost_s", job.reconfigure->cost_s}, {"step_ratio", job.reconfigure->step_ratio}};
    j["jobs"].push_back(jj);
  }
  j["failures"] = Json::array();
  for (const auto& f : failures) {
    Json fj = {{"id", f.id}, {"category", f.category}, {"unit", unit_name(f.unit)},
               {"rate_per_unit_s", f.rate_per_unit_s}, {"removes_node", f.removes_node},
               {"repair_median_s", f.repair.median}, {"repair_sigma", f.repair.sigma}};
    // Keys added after v1 appear only when used, so the hash of a scenario without them is unchanged.
    if (f.unit == FailureUnit::domain) fj["domain_nodes"] = f.domain_nodes;
    if (f.detection_s) fj["detection_s"] = *f.detection_s;
    if (f.diagnosis_s) fj["diagnosis_s"] = *f.diagnosis_s;
    if (f.weibull_shape != 1) {
      fj["weibull_shape"] = f.weibull_shape;
      fj["observed_window_s"] = f.observed_window_s;
    }
    j["failures"].push_back(fj);
  }
  j["maintenance"] = {{"rate_per_job_s", maintenance.rate_per_job_s}, {"notice_ns", maintenance.notice_ns},
                      {"duration_median_s", maintenance.duration.median}, {"duration_sigma", maintenance.duration.sigma}};
  j["stragglers"] = {{"static_sigma", stragglers.static_sigma}, {"transient_rate_per_node_s", stragglers.transient_rate_per_node_s},
                     {"transient_median_s", stragglers.transient_duration.median},
                     {"transient_sigma", stragglers.transient_duration.sigma},
                     {"transient_slowdown", stragglers.transient_slowdown}, {"step_jitter_sigma", stragglers.step_jitter_sigma}};
  j["events"] = Json::array();
  for (const auto& e : events)
    j["events"].push_back({{"kind", timed_name(e.kind)}, {"id", e.id}, {"site", e.site}, {"job", e.job}, {"cause", e.cause},
                           {"start_ns", e.start_ns}, {"end_ns", e.end_ns}, {"notice_ns", e.notice_ns}, {"limit_w", e.limit_w}});
  if (!published.empty()) {
    j["published"] = Json::array();
    for (const auto& p : published)
      j["published"].push_back({{"id", p.id}, {"metric", p.metric}, {"relation", p.relation}, {"value", p.value},
                                {"tolerance", p.tolerance}, {"source", p.source}});
  }
  return j;
}

std::string Scenario::hash() const { return research::canonical_sha256(to_json()); }

bool Scenario::needs_model_intervals() const {
  for (const auto& j : jobs)
    if (j.policy.cadence == Cadence::young || j.policy.cadence == Cadence::daly) return true;
  return false;
}

bool Scenario::needs_job_model() const {
  for (const auto& j : jobs)
    if (!j.model_preset.empty()) return true;
  return false;
}

}  // namespace gs::sim
