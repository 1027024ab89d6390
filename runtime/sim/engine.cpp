#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "image/image.h"
#include "runtime/sim/engine_state.h"
#include "runtime/sim/sim_time.h"
#include "runtime/sim/published.h"

namespace gs::sim {

bool SimResult::work_conserved() const {
  for (const auto& j : jobs)
    if (!j.work.conserved()) return false;
  return true;
}

bool SimResult::time_partitioned() const {
  for (const auto& j : jobs)
    if (j.time.total() != j.end_ns - j.start_ns) return false;
  return true;
}

namespace detail {
namespace {

// Independent random streams: what one process draws never shifts another's sequence.
enum Stream : uint64_t { kStreamFailures = 1, kStreamRepairs, kStreamStragglers, kStreamMaintenance, kStreamJitter, kStreamStatic };

uint64_t total_gpus(const Scenario& sc) {
  uint64_t n = 0;
  for (const auto& s : sc.sites) n += uint64_t(s.nodes) * s.gpus_per_node;
  return n;
}
uint64_t total_nodes(const Scenario& sc) {
  uint64_t n = 0;
  for (const auto& s : sc.sites) n += s.nodes;
  return n;
}
std::vector<uint32_t> site_nodes(const Scenario& sc) {
  std::vector<uint32_t> n;
  for (const auto& s : sc.sites) n.push_back(s.nodes);
  return n;
}

}  // namespace

State::State(const Scenario& s, const SimOptions& o)
    : sc(s), opt(o), failures(s.failures, total_gpus(s), total_nodes(s), s.jobs.size(), site_nodes(s)),
      rng_fail(derive_seed(o.seed, kStreamFailures)), rng_repair(derive_seed(o.seed, kStreamRepairs)),
      rng_straggle(derive_seed(o.seed, kStreamStragglers)), rng_maint(derive_seed(o.seed, kStreamMaintenance)),
      rng_jitter(derive_seed(o.seed, kStreamJitter)) {
  setup_sites();
  setup_jobs();
  // Every node no job took is a spare; appended in id order, so each insertion is O(1).
  for (auto& site : sites)
    for (uint64_t i = site.placed; i < site.spec->nodes; ++i) site.spares.insert(site.spares.end(), static_cast<uint32_t>(site.first_node + i));
  schedule_world();
}

void State::setup_sites() {
  for (const auto& st : sc.storages)
    storages[st.id] = {static_cast<int32_t>(net.add_resource(st.write_bw)),
                       static_cast<int32_t>(net.add_resource(st.read_bw)),
                       st.site.empty() ? -1 : static_cast<int32_t>(sc.site_index(st.site)), st.write_bw, st.read_bw};
  Rng rng_static(derive_seed(opt.seed, kStreamStatic));
  // The node table is sized once: growing it node by node copied it about twice over and touched twice the
  // memory (a fifth of a million-GPU run's set-up).
  nodes.reserve(total_nodes(sc));
  uint64_t node_base = 0, gpu_base = 0;
  for (const auto& spec : sc.sites) {
    Site site;
    site.spec = &spec;
    site.first_node = node_base;
    site.first_gpu = gpu_base;
    if (spec.state_io_bw) site.state_io = static_cast<int32_t>(net.add_resource(*spec.state_io_bw));
    auto slow = sample_node_slowdowns(spec.nodes, spec.gpus_per_node, sc.stragglers.static_sigma, rng_static);
    for (uint32_t i = 0; i < spec.nodes; ++i) {
      Node n;
      n.site = static_cast<uint32_t>(sites.size());
      n.static_slowdown = slow[i];
      nodes.push_back(n);
    }
    node_base += spec.nodes;
    gpu_base += uint64_t(spec.nodes) * spec.gpus_per_node;
    sites.push_back(std::move(site));
  }
  for (const auto& l : sc.links) {
    link_resource.push_back(static_cast<int32_t>(net.add_resource(l.bandwidth)));
    link_ends.push_back({static_cast<uint32_t>(sc.site_index(l.a)), static_cast<uint32_t>(sc.site_index(l.b))});
  }
}

void State::setup_jobs() {
  // The policies' declared prior for repairs: the rate-weighted median repair time of the data.
  double repair_rate = 0, repair_weighted = 0;
  for (const auto& f : sc.failures)
    if (f.removes_node) {
      repair_rate += f.rate_per_unit_s;
      repair_weighted += f.rate_per_unit_s * f.repair.median;
    }
  prior_repair_s = repair_rate > 0 ? repair_weighted / repair_rate : 0;

  jobs.resize(sc.jobs.size());
  for (size_t ji = 0; ji < sc.jobs.size(); ++ji) {
    Job& j = jobs[ji];
    j.spec = &sc.jobs[ji];
    j.index = static_cast<uint32_t>(ji);
    PolicySpec pol = j.spec->policy;
    if (opt.recovery && *opt.recovery != pol.recovery) {
      pol.recovery = *opt.recovery;
      pol.label = recovery_name(pol.recovery);
    }
    const auto& w = j.spec->workload;
    if (std::string missing = policy_prerequisites_missing(pol, w); !missing.empty())
      throw std::invalid_argument(fmt::format("job '{}': the {} policy needs {}", j.spec->id, recovery_name(pol.recovery), missing));
    if (pol.reconfigure && (!j.spec->reconfigure || j.spec->reconfigure->step_ratio.empty()))
      throw std::invalid_argument(fmt::format("job '{}': parallelism reconfiguration needs the model's step time at each data-parallel degree: "
                                              "load the scenario with the model (the job's model_preset)", j.spec->id));
    if (pol.power_aware && j.spec->power_cap && !(j.spec->power_cap->clock_share > 0))
      throw std::invalid_argument(fmt::format("job '{}': the power cap's clock share comes from the model: load the scenario with the model "
                                              "(the job's model_preset)", j.spec->id));
    try {
      j.policy = Policy(pol, sc.intervals);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("job '{}': {}", j.spec->id, e.what()));
    }
    j.use_spares = pol.recovery != Recovery::wait_restore;
    j.result.id = j.spec->id;
    j.result.policy = pol.label;
    j.at_site.assign(sites.size(), SiteNodes{});
    for (const auto& pl : j.spec->placement) {
      uint32_t si = static_cast<uint32_t>(sc.site_index(pl.site));
      j.sites.push_back(si);
      j.gpus_per_node = sites[si].spec->gpus_per_node;
      auto group = static_cast<uint32_t>(j.groups.size());
      j.groups.push_back({si, double(j.spec->replica_nodes) * pl.speed, 0});
      for (uint32_t k = 0; k < pl.nodes; k += j.spec->replica_nodes) {
        Replica r{static_cast<uint32_t>(j.slots.size()), j.spec->replica_nodes, si, double(j.spec->replica_nodes) * pl.speed, true,
                  j.spec->replica_nodes, group};
        ++j.groups[group].active;
        ++j.full_active_replicas;
        j.at_site[si].active += j.spec->replica_nodes;
        for (uint32_t m = 0; m < j.spec->replica_nodes; ++m) {
          // Jobs take each site's nodes lowest id first; setup_spares makes the rest the spare pool.
          if (sites[si].placed >= sites[si].spec->nodes) throw std::logic_error("a site holds fewer nodes than its jobs (Scenario::finalize checks this)");
          auto node = static_cast<uint32_t>(sites[si].first_node + sites[si].placed++);
          uint32_t slot = static_cast<uint32_t>(j.slots.size());
          j.slots.push_back({static_cast<int32_t>(node), static_cast<uint32_t>(j.replicas.size()), si});
          nodes[node].job = nodes[node].home_job = static_cast<int32_t>(ji);
          nodes[node].slot = nodes[node].home_slot = static_cast<int32_t>(slot);
          j.result.gpus += sites[si].spec->gpus_per_node;
        }
        j.replicas.push_back(r);
      }
    }
    if (pol.reconfigure && j.spec->reconfigure->step_ratio.size() != j.replicas.size())
      throw std::invalid_argument(fmt::format("job '{}': the model's step-time table has {} data-parallel degrees but the job has {} replicas",
                                              j.spec->id, j.spec->reconfigure->step_ratio.size(), j.replicas.size()));
    j.multi_site_sync = j.sites.size() > 1 && j.spec->sync_bytes > 0 && !sc.links.empty();
    j.group_hits.assign((j.slots.size() + pol.peer_group_nodes - 1) / pol.peer_group_nodes, 0);
    j.slowest = MaxTree(j.slots.size());
    for (uint32_t i = 0; i < j.slots.size(); ++i) j.slowest.set(i, nodes[j.slots[i].node].slowdown());
    refresh_capacity(j);
    j.nominal_capacity = j.active_capacity;
    // Before its first checkpoint a job estimates the checkpoint's cost from the sizes and bandwidths it
    // was configured with: each site moves its share of the state, and sites writing to one store share it.
    std::map<const StorageRef*, double> bytes_per_store;
    for (const auto& r : j.replicas) bytes_per_store[&storage_of(j, r.site)] += w.state_bytes * r.capacity / j.nominal_capacity;
    for (const auto& [store, bytes] : bytes_per_store) {
      j.write_estimate_s = std::max(j.write_estimate_s, bytes / store->write_bw);
      j.restore_estimate_s = std::max(j.restore_estimate_s, bytes / store->read_bw);
    }
    if (w.state_transfer_bw)
      j.transfer_resource = static_cast<int32_t>(net.add_resource(*w.state_transfer_bw));
    j.prior_mtbf_s = 1.0 / job_failure_rate_per_s(sc.failures, j.result.gpus, j.slots.size());
  }
}

void State::schedule_world() {
  for (size_t i = 0; i < sites.size(); ++i) power_changed(static_cast<uint32_t>(i));
  // A site's steady limits hold from the start: the facility divides the power they allow now, not only
  // once a timed limit event first re-divides it.
  for (size_t i = 0; i < sites.size(); ++i)
    if (sites[i].spec->grid_limit_w || sites[i].spec->cooling_capacity_w) update_power_caps(static_cast<uint32_t>(i));
  for (const auto& j : jobs) {
    push(j.spec->start_ns, Priority::observation, kJobStart, j.index);
    if (sc.maintenance.rate_per_job_s > 0)
      push(j.spec->start_ns + ns_from_seconds(rng_maint.exponential(sc.maintenance.rate_per_job_s)),
           Priority::observation, kMaintenanceNotice, j.index);
  }
  schedule_failure();
  if (sc.stragglers.transient_rate_per_node_s > 0) schedule_straggler();
  for (size_t i = 0; i < sc.events.size(); ++i) {
    const auto& e = sc.events[i];
    auto idx = static_cast<uint32_t>(i);
    switch (e.kind) {
      case TimedKind::grid_limit:
      case TimedKind::cooling_limit:
        push(e.start_ns, Priority::disruption, kLimitStart, idx);
        push(e.end_ns, Priority::completion, kLimitEnd, idx);
        break;
      case TimedKind::site_outage:
        push(e.start_ns, Priority::disruption, kOutageStart, idx);
        push(e.end_ns, Priority::completion, kOutageEnd, idx);
        break;
      case TimedKind::preemption:
        push(std::max<int64_t>(0, e.start_ns - e.notice_ns), Priority::observation, kPreemptNotice, idx);
        push(e.start_ns, Priority::disruption, kPreemptStart, idx);
        push(e.end_ns, Priority::completion, kPreemptEnd, idx);
        break;
    }
  }
  push(sc.horizon_ns, Priority::horizon, kHorizon, 0);
}

void State::flush_network() {
  for (const auto& r : resched) push(r.time, Priority::completion, kFlow, r.flow, r.gen);
  resched.clear();
}

bool State::handle(const Event& e) {
  now = e.time;
  auto job_event = [&](auto&& f) {
    Job& j = jobs[e.target];
    if (e.gen == j.gen) f(j);
  };
  switch (static_cast<Kind>(e.kind)) {
    case kJobStart: start_job(jobs[e.target]); break;
    case kSegmentEnd: job_event([&](Job& j) { on_segment_end(j, e.arg); }); break;
    case kTimer: job_event([&](Job& j) { on_timer(j); }); break;
    case kObserve: job_event([&](Job& j) { on_observe(j); }); break;
    case kFlow: {
      bool done = net.complete(now, e.target, e.gen, resched);
      flush_network();
      if (done) on_flow_done(jobs[net.owner(e.target)], e.target);
      break;
    }
    case kFailure: on_failure(); break;
    case kRepairDone: on_repair_done(e.target); break;
    case kStragglerStart: on_straggler_start(); break;
    case kStragglerEnd: on_straggler_end(e.target, e.gen); break;
    case kMaintenanceNotice: on_notice(jobs[e.target], true); break;
    case kMaintenanceStart: on_maintenance_start(jobs[e.target]); break;
    case kMaintenanceEnd: on_maintenance_end(jobs[e.target]); break;
    case kPreemptNotice: on_notice(job_named(sc.events[e.target].job), false); break;
    case kPreemptStart:
      on_interruption_start(job_named(sc.events[e.target].job), kPausePreempt, "preemption:" + sc.events[e.target].cause);
      break;
    case kPreemptEnd: on_interruption_end(job_named(sc.events[e.target].job), kPausePreempt); break;
    case kLimitStart: on_limit(e.target, true); break;
    case kLimitEnd: on_limit(e.target, false); break;
    case kOutageStart: on_outage(e.target, true); break;
    case kOutageEnd: on_outage(e.target, false); break;
    case kHorizon: stopped = true; break;
  }
  if (opt.timeline) flush_utilisation();
  return !stopped;
}

Job& State::job_named(const std::string& id) {
  for (auto& j : jobs)
    if (j.spec->id == id) return j;
  throw std::logic_error("unknown job " + id);
}

void State::finish_run() {
  for (auto& j : jobs) {
    if (j.phase == Phase::pending) {
      j.result.start_ns = j.result.end_ns = now;
      continue;
    }
    if (j.phase == Phase::done) continue;
    close_activity(j, true);
    set_phase(j, Phase::done);
    j.result.end_ns = now;
  }
  for (size_t i = 0; i < sites.size(); ++i) power_changed(static_cast<uint32_t>(i));
  if (opt.timeline) flush_utilisation();
  result.end_ns = now;
  for (auto& j : jobs) {
    auto& r = j.result;
    r.steps_committed = j.frontier;
    r.work.committed = j.frontier * j.spec->workload.tokens_per_step;
    if (j.spec->workload.flops_per_step) r.flops_attempted = double(r.work.attempted) / double(j.spec->workload.tokens_per_step) * *j.spec->workload.flops_per_step;
    r.decisions_sha256 = gs::sha256_hex(r.decision_log.data(), r.decision_log.size());
    result.jobs.push_back(std::move(r));
  }
  for (auto& s : sites) {
    SiteResult sr;
    sr.id = s.spec->id;
    sr.it_energy_j = s.it_energy_j;
    sr.facility_energy_j = s.it_energy_j * s.spec->facility.pue;
    sr.peak_it_w = s.peak_it_w;
    sr.limit_unmet_s = s.limit_unmet_s;
    if (s.spec->facility.price_usd_per_j) sr.energy_cost_usd = sr.facility_energy_j * *s.spec->facility.price_usd_per_j;
    if (s.spec->facility.gpu_usd_per_s)
      sr.gpu_cost_usd = double(s.spec->nodes) * s.spec->gpus_per_node * double(result.end_ns) / 1e9 * *s.spec->facility.gpu_usd_per_s;
    sr.power_trace = std::move(s.trace);
    result.sites.push_back(std::move(sr));
  }
}

}  // namespace detail

SimResult simulate(const Scenario& scenario, const SimOptions& options) {
  detail::State st(scenario, options);
  st.result.scenario_id = scenario.id;
  st.result.scenario_hash = scenario.hash();
  st.result.seed = options.seed;
  st.result.recovery_override = options.recovery ? recovery_name(*options.recovery) : "";
  auto handler = [&st](const Event& e) { return st.handle(e); };
  LoopStats loop = run_events(st.q, handler, 0, options.max_events);
  if (loop.capped)
    throw WorkCapError(fmt::format("stopped after {} events at simulated day {:.3g} of {:.3g}: the work cap; raise it with --max-events if you mean it",
                                   loop.events, double(loop.now) / 86400e9, double(scenario.horizon_ns) / 86400e9));
  st.now = loop.now;
  st.finish_run();
  st.result.events = loop.events;
  st.result.published = compare_with_published(scenario, st.result);
  st.result.causality_violations = loop.causality_violations;
  // The invariants are checked on every run and are hard errors: a result that breaks them is wrong.
  if (loop.causality_violations) throw std::logic_error(fmt::format("causality: {} events ran before their cause", loop.causality_violations));
  for (const auto& j : st.result.jobs) {
    if (!j.work.conserved())
      throw std::logic_error(fmt::format("work conservation broken for job {}: attempted {} != committed {} + lost {}", j.id,
                                         j.work.attempted, j.work.committed, j.work.lost()));
    if (j.time.total() != j.end_ns - j.start_ns)
      throw std::logic_error(fmt::format("time accounting broken for job {}: buckets sum to {} ns, wall is {} ns", j.id,
                                         j.time.total(), j.end_ns - j.start_ns));
  }
  return std::move(st.result);  // st is about to go: no copy of the logs
}

}  // namespace gs::sim
