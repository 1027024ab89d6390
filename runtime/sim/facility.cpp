// The world around the jobs: component failures and repairs, stragglers, planned maintenance and
// preemption, site outages, grid and cooling limits, and the energy the sites draw.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "runtime/sim/engine_state.h"
#include "runtime/sim/sim_time.h"

namespace gs::sim::detail {
namespace {
int64_t to_ns(double seconds) { return ns_from_seconds(seconds, 1); }
}  // namespace

void State::schedule_failure() {
  if (opt.realise_failures && failures.total_rate_per_s() > 0) push(failures.next_failure_ns(now, rng_fail), Priority::disruption, kFailure, 0);
}

void State::schedule_straggler() {
  double rate = sc.stragglers.transient_rate_per_node_s * double(nodes.size());
  push(now + to_ns(rng_straggle.exponential(rate)), Priority::disruption, kStragglerStart, 0);
}

double State::observe_after_s(const FailureClass& cls) const {
  if (!cls.detection_s && !cls.diagnosis_s) return -1;
  return cls.detection_s.value_or(0) + cls.diagnosis_s.value_or(0);
}

void State::on_failure() {
  auto pick = failures.pick_at(now, rng_fail);
  const FailureClass& cls = sc.failures[pick.cls];
  ++result.fleet_failures[cls.id];
  schedule_failure();
  if (cls.unit == FailureUnit::job) {
    if (opt.timeline) result.timeline.push_back({now, "failure", cls.id, "job " + jobs[pick.unit].spec->id});
    interrupt(jobs[pick.unit], cls.id, cls.category, false, observe_after_s(cls));
    return;
  }
  // A hardware fault draws one repair time, when it first takes a node: a domain comes back as a whole.
  std::optional<int64_t> repair_ns;
  std::vector<uint32_t> interrupted;
  if (cls.unit == FailureUnit::domain) {
    // Domains are numbered site by site, each covering domain_nodes consecutive nodes (the last one may be short).
    uint64_t index = pick.unit;
    for (const auto& site : sites) {
      uint64_t n = site.spec->nodes, per = cls.domain_nodes, count = (n + per - 1) / per;
      if (index >= count) {
        index -= count;
        continue;
      }
      for (uint64_t k = index * per; k < std::min(n, (index + 1) * per); ++k)
        fail_node(static_cast<uint32_t>(site.first_node + k), cls, repair_ns, interrupted);
      return;
    }
    return;
  }
  uint64_t id = pick.unit;
  if (cls.unit == FailureUnit::gpu) {
    size_t si = sites.size() - 1;
    while (sites[si].first_gpu > pick.unit) --si;
    id = sites[si].first_node + (pick.unit - sites[si].first_gpu) / sites[si].spec->gpus_per_node;
  }
  fail_node(static_cast<uint32_t>(id), cls, repair_ns, interrupted);
}

// One node hit by a failure of `cls`. A job counts one interruption per failure, however many of its nodes
// the failure takes (interrupted_jobs remembers whom this failure already interrupted).
void State::fail_node(uint32_t node, const FailureClass& cls, std::optional<int64_t>& repair_ns, std::vector<uint32_t>& interrupted_jobs) {
  Node& n = nodes[node];
  if (!n.available()) return;  // a node that is already down cannot fail again (thinning of the process)
  bool in_active_replica = n.job >= 0 && jobs[n.job].replicas[jobs[n.job].slots[n.slot].replica].active;
  auto interrupt_once = [&](Job& j) {
    if (std::find(interrupted_jobs.begin(), interrupted_jobs.end(), j.index) != interrupted_jobs.end()) return;
    interrupted_jobs.push_back(j.index);
    interrupt(j, cls.id, cls.category, cls.removes_node, observe_after_s(cls));
  };
  if (!cls.removes_node) {
    if (in_active_replica) interrupt_once(jobs[n.job]);
    return;
  }
  n.repairing = true;
  ++sites[n.site].nodes_down;
  if (opt.timeline) result.timeline.push_back({now, "failure", cls.id, fmt::format("node {}", node)});
  if (!repair_ns) repair_ns = to_ns(rng_repair.lognormal(cls.repair.median, cls.repair.sigma));
  push(now + *repair_ns, Priority::completion, kRepairDone, node);
  if (n.job < 0) {
    sites[n.site].spares.erase(node);
    power_changed(n.site);
    return;
  }
  Job& j = jobs[n.job];
  uint32_t slot = static_cast<uint32_t>(n.slot);
  if (in_active_replica) interrupt_once(j);
  uint32_t group = slot / j.policy.spec().peer_group_nodes;
  if (j.group_hits[group]++ == 0) j.hit_groups.push_back(group);
  if (j.group_hits[group] == j.policy.spec().peer_group_nodes) ++j.lost_groups;  // every holder of this shard is gone
  vacate(j, slot);
}

void State::on_repair_done(uint32_t node) {
  nodes[node].repairing = false;
  if (!nodes[node].outage) --sites[nodes[node].site].nodes_down;  // a node in an outage stays down until it ends
  if (opt.timeline) result.timeline.push_back({now, "repair", "node", fmt::format("node {}", node)});
  ++result.repairs;
  if (nodes[node].available()) return_node(node);
}

void State::return_node(uint32_t node) {
  Node& n = nodes[node];
  if (n.home_job >= 0) {
    Job& j = jobs[n.home_job];
    if (j.phase != Phase::done && j.slots[n.home_slot].node < 0) {
      fill(j, static_cast<uint32_t>(n.home_slot), node);
      power_changed(n.site);
      offer_capacity(j);
      return;
    }
  }
  sites[n.site].spares.insert(node);
  power_changed(n.site);
  for (auto& j : jobs)
    if (std::find(j.sites.begin(), j.sites.end(), n.site) != j.sites.end()) offer_capacity(j);
}

void State::on_straggler_start() {
  schedule_straggler();
  ++result.straggler_episodes;
  auto node = static_cast<uint32_t>(rng_straggle.below(nodes.size()));
  double duration = rng_straggle.lognormal(sc.stragglers.transient_duration.median, sc.stragglers.transient_duration.sigma);
  Node& n = nodes[node];
  if (n.transient != 1) return;  // already slow: episodes do not stack
  n.transient = sc.stragglers.transient_slowdown;
  ++n.gen;
  push(now + to_ns(duration), Priority::completion, kStragglerEnd, node, n.gen);
  if (n.job >= 0) update_slot(jobs[n.job], static_cast<uint32_t>(n.slot));
}

void State::on_straggler_end(uint32_t node, uint32_t gen) {
  Node& n = nodes[node];
  if (n.gen != gen) return;
  n.transient = 1;
  if (n.job >= 0) update_slot(jobs[n.job], static_cast<uint32_t>(n.slot));
}

void State::on_limit(uint32_t event, bool start) {
  const TimedEvent& e = sc.events[event];
  uint32_t si = static_cast<uint32_t>(sc.site_index(e.site));
  auto& list = e.kind == TimedKind::grid_limit ? sites[si].grid_limits : sites[si].cooling_limits;
  if (start) list.push_back({event, e.limit_w});
  else list.erase(std::remove_if(list.begin(), list.end(), [&](const auto& p) { return p.first == event; }), list.end());
  update_power_caps(si);
}

void State::on_outage(uint32_t event, bool start) {
  const TimedEvent& e = sc.events[event];
  uint32_t si = static_cast<uint32_t>(sc.site_index(e.site));
  Site& s = sites[si];
  uint64_t end = s.first_node + s.spec->nodes;
  if (start) {
    // Interrupt each affected job once, then take every node away.
    for (auto& j : jobs)
      if (j.at_site[si].active > 0) interrupt(j, "site_outage:" + e.cause, "Facility", true);
    for (uint64_t id = s.first_node; id < end; ++id) {
      Node& n = nodes[id];
      if (n.available()) ++s.nodes_down;
      n.outage = true;
      if (n.job >= 0) vacate(jobs[n.job], static_cast<uint32_t>(n.slot));
      s.spares.erase(static_cast<uint32_t>(id));
    }
    power_changed(si);
    return;
  }
  for (uint64_t id = s.first_node; id < end; ++id) {
    nodes[id].outage = false;
    if (nodes[id].available()) {
      --s.nodes_down;
      return_node(static_cast<uint32_t>(id));
    }
  }
}

void State::on_notice(Job& j, bool maintenance) {
  if (j.phase == Phase::pending || j.phase == Phase::done) return;
  Decision d = decide(j, Epoch::maintenance_notice);
  j.checkpoint_requested |= d.checkpoint_now;
  if (j.checkpoint_requested) replan(j);
  if (maintenance) push(now + sc.maintenance.notice_ns, Priority::disruption, kMaintenanceStart, j.index);
}

void State::on_maintenance_start(Job& j) {
  if (j.phase == Phase::done) return;  // the process ends with the job
  push(now + to_ns(rng_maint.lognormal(sc.maintenance.duration.median, sc.maintenance.duration.sigma)), Priority::completion,
       kMaintenanceEnd, j.index);
  on_interruption_start(j, kPauseMaintenance, "planned_maintenance");
}

void State::on_maintenance_end(Job& j) {
  on_interruption_end(j, kPauseMaintenance);
  if (j.phase != Phase::done)
    push(now + to_ns(rng_maint.exponential(sc.maintenance.rate_per_job_s)), Priority::observation, kMaintenanceNotice, j.index);
}

// A planned stop: the job's processes end, so whatever was not in a durable checkpoint is gone and the
// restart loads it again when the pause ends.
void State::on_interruption_start(Job& j, uint32_t bit, const std::string& cause) {
  if (j.phase == Phase::pending || j.phase == Phase::done) return;
  bool working = j.pause_mask == 0 && j.phase != Phase::hung && j.phase != Phase::waiting;
  if (working) {
    ++j.result.interruptions[cause];
    ++j.result.interruptions_by_category["Planned"];
  }
  close_activity(j, false);
  if (!j.needs_restore) rollback(j, false);
  j.failed_while_paused = false;  // the restart below replaces whatever had failed
  j.memory_valid = false;
  j.pause_mask |= bit;
  set_phase(j, Phase::paused);
}

void State::on_interruption_end(Job& j, uint32_t bit) {
  if (!(j.pause_mask & bit)) return;
  j.pause_mask &= ~bit;
  if (j.pause_mask == 0 && j.phase == Phase::paused) resume(j);
}

// A site of the job cannot power even its idle load: work stops but the job keeps its state in memory.
void State::sync_power_pause(Job& j) {
  if (j.phase == Phase::pending || j.phase == Phase::done) return;
  bool paused = false;
  for (uint32_t si : j.sites) paused |= sites[si].power_paused;
  if (paused) {
    if (j.pause_mask & kPausePower) return;
    if (j.phase == Phase::hung) j.failed_while_paused = true;  // the pending observation is cancelled below
    if (j.pause_mask == 0) close_activity(j, false);
    j.pause_mask |= kPausePower;
    set_phase(j, Phase::paused);
  } else {
    on_interruption_end(j, kPausePower);
  }
}

double State::node_power_w(const Job& j, uint32_t si, bool active) const {
  const Site& s = sites[si];
  const auto& f = s.spec->facility;
  double g = s.spec->gpus_per_node;
  if (!active || j.phase != Phase::computing) return g * f.gpu_idle_w + f.node_host_w;
  const auto& w = j.spec->workload;
  double busy = f.gpu_idle_w + s.rho * (busy_w(j) - f.gpu_idle_w);
  double comm = w.gpu_comm_w.value_or(busy_w(j));
  double gpu;
  if (j.spec->trace_phases) {
    gpu = j.subphase == 0 ? busy : comm;
  } else {
    // Over one step a nominal GPU computes for c, waits for the slowest GPU for c(s-1), then waits on
    // exposed collectives for x.
    double c = (w.t_step_s - w.t_exposed_comm_s) * capacity_factor(j) * power_factor(j);
    double wait = c * (j.slowest.max() - 1.0), x = w.t_exposed_comm_s;
    gpu = (c * busy + wait * f.gpu_idle_w + x * comm) / (c + wait + x);
  }
  return g * gpu + f.node_host_w;
}

void State::power_changed(uint32_t si) {
  Site& s = sites[si];
  double dt = double(now - s.since) / 1e9;
  s.it_energy_j += s.it_w * dt;
  if (s.it_w > s.allowed_w) s.limit_unmet_s += dt;
  s.since = now;
  const auto& f = s.spec->facility;
  double idle_node = s.spec->gpus_per_node * f.gpu_idle_w + f.node_host_w;
  double w = s.spec->base_power_w + double(s.spares.size()) * idle_node;
  for (const auto& j : jobs) {
    if (j.phase == Phase::done) continue;
    const SiteNodes& at = j.at_site[si];
    if (at.active) w += double(at.active) * node_power_w(j, si, true);
    if (at.inactive) w += double(at.inactive) * node_power_w(j, si, false);
  }
  s.sample_pending = opt.timeline;
  s.it_w = w;
  s.peak_it_w = std::max(s.peak_it_w, w);
  if (sc.power_sample_ns > 0) {
    if (!s.trace.empty() && s.trace.back().first == now) s.trace.back().second = w;
    else s.trace.push_back({now, w});
  }
  double total = 0;
  for (const auto& x : sites) total += x.it_w;
  result.peak_it_w = std::max(result.peak_it_w, total);
}

// A grid import limit applies at the meter, so the IT load may draw limit / PUE; a cooling limit bounds
// the heat, i.e. the IT load itself. Under a limit the facility caps the GPUs' dynamic power by a common
// factor rho and the jobs slow down by 1/rho: the dynamic energy of a step stays the same (an assumption,
// stated in docs/simulator.md). When not even the idle load fits, the jobs at the site pause.
void State::update_power_caps(uint32_t si) {
  Site& s = sites[si];
  const auto& f = s.spec->facility;
  double allowed = std::numeric_limits<double>::infinity();
  if (s.spec->grid_limit_w) allowed = std::min(allowed, *s.spec->grid_limit_w / f.pue);
  if (s.spec->cooling_capacity_w) allowed = std::min(allowed, *s.spec->cooling_capacity_w);
  for (const auto& [ev, w] : s.grid_limits) allowed = std::min(allowed, w / f.pue);
  for (const auto& [ev, w] : s.cooling_limits) allowed = std::min(allowed, w);
  power_changed(si);  // close the energy interval under the old limit
  s.allowed_w = allowed;
  double idle_node = s.spec->gpus_per_node * f.gpu_idle_w + f.node_host_w;
  double static_w = s.spec->base_power_w + double(s.spares.size()) * idle_node, dynamic_w = 0, uncapped_w = 0;
  for (const auto& j : jobs) {
    if (j.phase == Phase::done) continue;
    const SiteNodes& at = j.at_site[si];
    static_w += double(at.active + at.inactive) * idle_node;
    dynamic_w += double(at.active) * s.spec->gpus_per_node * (busy_w(j) - f.gpu_idle_w);
    uncapped_w += double(at.active) * s.spec->gpus_per_node * (j.spec->workload.gpu_busy_w - f.gpu_idle_w);
  }
  // What a power-aware policy observes: whether the limit binds with every board uncapped (not with its own
  // cap, or the cap would lift itself as soon as it fits).
  s.limit_binds = static_w + uncapped_w > allowed;
  bool paused = static_w >= allowed;
  double rho = paused || dynamic_w <= 0 ? 1.0 : std::min(1.0, (allowed - static_w) / dynamic_w);
  bool pause_changed = paused != s.power_paused, rho_changed = rho != s.rho;
  s.power_paused = paused;
  s.rho = rho;
  for (auto& j : jobs) {
    if (std::find(j.sites.begin(), j.sites.end(), si) == j.sites.end()) continue;
    if (pause_changed) sync_power_pause(j);
    else if (rho_changed) replan(j);
  }
  power_changed(si);
}

// Utilisation samples are taken once an event has been handled, so a node a failure moves from a job to
// repair in several steps is never counted twice. One sample per site and instant, only when something changed.
void State::flush_utilisation() {
  for (auto& s : sites) {
    if (!s.sample_pending) continue;
    s.sample_pending = false;
    uint32_t si = static_cast<uint32_t>(&s - sites.data()), in_jobs = 0;
    for (const auto& j : jobs)
      if (j.phase != Phase::done) in_jobs += j.at_site[si].active + j.at_site[si].inactive;
    UtilisationSample u{now, s.spec->id, s.it_w, in_jobs, static_cast<uint32_t>(s.spares.size()), s.nodes_down};
    auto& series = result.utilisation;
    auto last = std::find_if(series.rbegin(), series.rend(), [&](const UtilisationSample& a) { return a.site == u.site; });
    bool same = last != series.rend() && last->it_w == u.it_w && last->nodes_in_jobs == u.nodes_in_jobs &&
                last->nodes_spare == u.nodes_spare && last->nodes_down == u.nodes_down;
    if (last != series.rend() && last->t_ns == now) *last = u;
    else if (!same) series.push_back(u);
  }
}

}  // namespace gs::sim::detail
