// The job state machine: compute segments, checkpoints, synchronisations, interruptions and recoveries,
// and the boundary where the policy is consulted. A job advances only at events; between two events its
// state is fixed, so a run of identical steps is one segment and one event.
#include <algorithm>
#include <cmath>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/sim/engine_state.h"
#include "runtime/sim/sim_time.h"

namespace gs::sim::detail {
namespace {

enum TimerStage : uint16_t { kStageOverhead, kStageMemoryRestore, kStageShrink, kStageRejoin, kStageMemoryCheckpoint };

int64_t to_ns(double seconds) { return ns_from_seconds(seconds); }

// One line of the decision log, e.g. "86400000000000 checkpoint_committed interval=40 local=1 recovery=none
// spares=true rejoin=false checkpoint_now=false abstained=false". Written by hand rather than with fmt:
// a checkpoint commits every few events, and this line was most of their cost.
void append_decision(std::string& log, int64_t now, Epoch e, const Decision& d) {
  char buf[24];
  auto number = [&](auto v) { log.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf)); };
  auto flag = [&](const char* key, bool v) {
    log += key;
    log += v ? "true" : "false";
  };
  number(now);
  log += ' ';
  log += epoch_name(e);
  log += " interval=";
  number(d.checkpoint_interval_steps);
  log += " local=";
  number(d.local_steps);
  log += " recovery=";
  log += action_name(d.recovery);
  flag(" spares=", d.use_spares);
  flag(" rejoin=", d.rejoin);
  flag(" checkpoint_now=", d.checkpoint_now);
  flag(" abstained=", d.abstained);
  // Actions added after the first log format appear only when taken, so earlier policies' logs (and
  // their digests) are unchanged.
  if (d.migrate) log += " migrate=true";
  if (d.reconfigure) log += " reconfigure=true";
  if (d.power_cap != PowerCapAction::keep) {
    log += " power_cap=";
    log += power_cap_name(d.power_cap);
  }
  log += '\n';
}

}  // namespace

uint32_t State::active_gpus(const Job& j) const {
  uint32_t n = 0;
  for (const auto& at : j.at_site) n += at.active;
  return n * j.gpus_per_node;
}

// lost_groups counts the peer groups every holder of which failed: a shard with no copy left.
bool State::memory_usable(const Job& j) const { return j.memory_valid && j.lost_groups == 0; }

void State::reset_group_hits(Job& j) {
  for (uint32_t g : j.hit_groups) j.group_hits[g] = 0;
  j.hit_groups.clear();
  j.lost_groups = 0;
}

uint32_t State::restorable_replicas(const Job& j) const {
  if (j.inactive_replicas.empty()) return 0;
  std::map<uint32_t, size_t> spares;
  for (uint32_t si : j.sites) spares[si] = sites[si].spares.size();
  uint32_t n = 0;
  for (uint32_t index : j.inactive_replicas) {
    const Replica& r = j.replicas[index];
    uint32_t vacant = r.slots - r.filled;
    if (vacant <= spares[r.site]) {
      spares[r.site] -= vacant;
      ++n;
    }
  }
  return n;
}

void State::update_slot(Job& j, uint32_t slot) {
  const Slot& s = j.slots[slot];
  double before = j.slowest.max();
  j.slowest.set(slot, s.node >= 0 && j.replicas[s.replica].active ? nodes[s.node].slowdown() : 0.0);
  if (j.slowest.max() != before) replan(j);
}

uint32_t State::active_replicas(const Job& j) const {
  uint32_t n = 0;
  for (const auto& g : j.groups) n += g.active;
  return n;
}

double State::capacity_factor(const Job& j) const {
  if (!j.policy.spec().reconfigure) return j.nominal_capacity / j.active_capacity;
  // The model's step time at this many replicas over its step at all of them (attach_job_model).
  const auto& ratio = j.spec->reconfigure->step_ratio;
  const uint32_t k = active_replicas(j);
  if (k < 1 || k > ratio.size()) throw std::logic_error("a reconfigured job runs at a degree the model's table does not hold");
  return ratio[k - 1];
}

void State::record_degree_change(Job& j, uint32_t before) {
  const uint32_t after = active_replicas(j);
  if (after == before) return;
  ++j.result.degree_changes;
  if (opt.timeline) result.timeline.push_back({now, "parallelism", j.spec->id, fmt::format("dp {} -> {}", before, after)});
}

double State::reconfig_s(const Job& j) const {
  return j.policy.spec().reconfigure ? j.spec->reconfigure->cost_s : j.spec->workload.reconfig_s.value_or(0);
}

void State::refresh_capacity(Job& j) {
  j.active_capacity = 0;
  for (const auto& g : j.groups) j.active_capacity += double(g.active) * g.replica_capacity;
}

double State::active_capacity_at(const Job& j, uint32_t site) const {
  double cap = 0;
  for (const auto& g : j.groups)
    if (g.site == site) cap += double(g.active) * g.replica_capacity;
  return cap;
}

// A node joined (+1) or left (-1) replica r: the per-site node counts and the count of complete active
// replicas follow. Called with r.filled already changed.
void State::count_node(Job& j, const Replica& r, int delta) {
  auto& at = j.at_site[r.site];
  if (!r.active) {
    at.inactive += delta;
    return;
  }
  at.active += delta;
  if (delta > 0 && r.filled == r.slots) ++j.full_active_replicas;
  if (delta < 0 && r.filled + 1 == r.slots) --j.full_active_replicas;
}

// A replica joins or leaves the computation: its slots enter or leave the slowest-GPU maximum, and the
// aggregates move its nodes between the active and inactive counts. O(replica nodes x log slots).
void State::set_replica_active(Job& j, uint32_t index, bool active) {
  Replica& r = j.replicas[index];
  if (r.active == active) return;
  r.active = active;
  auto& at = j.at_site[r.site];
  if (active) {
    at.inactive -= r.filled;
    at.active += r.filled;
    ++j.groups[r.group].active;
    j.full_active_replicas += r.filled == r.slots;
    j.inactive_replicas.erase(index);
  } else {
    at.active -= r.filled;
    at.inactive += r.filled;
    --j.groups[r.group].active;
    j.full_active_replicas -= r.filled == r.slots;
    j.inactive_replicas.insert(index);
  }
  for (uint32_t i = r.first_slot; i < r.first_slot + r.slots; ++i) {
    const Slot& s = j.slots[i];
    j.slowest.set(i, s.node >= 0 && active ? nodes[s.node].slowdown() : 0.0);
  }
}

void State::vacate(Job& j, uint32_t slot) {
  Slot& s = j.slots[slot];
  if (s.node < 0) return;
  nodes[s.node].job = nodes[s.node].slot = -1;
  s.node = -1;
  Replica& r = j.replicas[s.replica];
  --r.filled;
  count_node(j, r, -1);
  j.vacant_slots.insert(slot);
  update_slot(j, slot);
}

void State::fill(Job& j, uint32_t slot, uint32_t node) {
  sites[nodes[node].site].spares.erase(node);
  Slot& s = j.slots[slot];
  s.node = static_cast<int32_t>(node);
  nodes[node].job = static_cast<int32_t>(j.index);
  nodes[node].slot = static_cast<int32_t>(slot);
  Replica& r = j.replicas[s.replica];
  ++r.filled;
  count_node(j, r, +1);
  j.vacant_slots.erase(slot);
  update_slot(j, slot);
}

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::pending: return "pending";
    case Phase::computing: return "computing";
    case Phase::syncing: return "syncing";
    case Phase::checkpointing: return "checkpointing";
    case Phase::hung: return "hung";
    case Phase::waiting: return "waiting";
    case Phase::restarting: return "restarting";
    case Phase::reconfiguring: return "reconfiguring";
    case Phase::rejoining: return "rejoining";
    case Phase::paused: return "paused";
    case Phase::migrating: return "migrating";
    case Phase::done: return "done";
  }
  return "?";
}

void State::set_phase(Job& j, Phase p) {
  int64_t dt = now - j.phase_since;
  auto& t = j.result.time;
  switch (j.phase) {
    case Phase::computing:
      t.compute_committed += dt;
      j.result.gpu_busy_s += double(dt) / 1e9 * active_gpus(j);
      break;
    case Phase::syncing: t.sync += dt; break;
    case Phase::checkpointing: t.checkpoint += dt; break;
    case Phase::hung: t.detection += dt; break;
    case Phase::waiting: t.waiting += dt; break;
    case Phase::restarting:
    case Phase::migrating: t.restart += dt; break;
    case Phase::reconfiguring:
    case Phase::rejoining: t.reconfigure += dt; break;
    case Phase::paused: t.paused += dt; break;
    case Phase::pending:
    case Phase::done: break;
  }
  j.phase = p;
  j.phase_since = now;
  if (opt.timeline) result.timeline.push_back({now, "phase", j.spec->id, phase_name(p)});
  for (uint32_t si : j.sites) power_changed(si);
}

// How much longer compute takes than at the clock t_step was taken at: the facility's throttling (1/rho)
// and, under the job's own cap, the model's clock share of the capped board.
double State::power_factor(const Job& j) const {
  double f = 1;
  for (uint32_t si : j.sites) f = std::max(f, 1.0 / sites[si].rho);
  return j.capped ? f / j.spec->power_cap->clock_share : f;
}

double State::busy_w(const Job& j) const { return j.capped ? j.spec->power_cap->busy_w : j.spec->workload.gpu_busy_w; }

void State::set_power_cap(Job& j, bool capped) {
  if (j.capped == capped) return;
  j.capped = capped;
  ++j.result.power_cap_changes;
  if (opt.timeline) result.timeline.push_back({now, "power_cap", j.spec->id, capped ? "cap" : "lift"});
  // The facility re-divides what a limit allows; then the step in flight ends at its boundary and the next
  // runs at the new clock.
  for (uint32_t si : j.sites) std::isfinite(sites[si].allowed_w) ? update_power_caps(si) : power_changed(si);
  replan(j);
}

// Compute scales with the share of capacity still in the job (the global batch is kept, so fewer replicas
// take longer), with the slowest active GPU, and with the facility's power cap; exposed communication
// does not.
int64_t State::plan_step_ns(Job& j) {
  const auto& w = j.spec->workload;
  double c = (w.t_step_s - w.t_exposed_comm_s) * capacity_factor(j) * power_factor(j) * j.slowest.max();
  if (j.spec->trace_phases && sc.stragglers.step_jitter_sigma > 0) c *= rng_jitter.lognormal(1.0, sc.stragglers.step_jitter_sigma);
  j.compute_ns = std::max<int64_t>(1, to_ns(c));
  return std::max<int64_t>(j.compute_ns, to_ns(c + w.t_exposed_comm_s));
}

Observation State::observe(const Job& j, Epoch e) const {
  const auto& w = j.spec->workload;
  Observation o;
  o.epoch = e;
  o.now_ns = now;
  o.frontier_step = j.frontier;
  o.durable_step = j.durable_step;
  o.memory_step = j.memory_step;
  o.target_steps = j.spec->target_steps;
  o.memory_checkpoint_usable = memory_usable(j);
  o.restore_pending = j.needs_restore;
  o.replicas = static_cast<uint32_t>(j.replicas.size());
  o.replicas_active = j.full_active_replicas;
  o.replicas_restorable = restorable_replicas(j);
  o.slots_vacant = static_cast<uint32_t>(j.vacant_slots.size());
  for (uint32_t si : j.sites) o.spares_available += static_cast<uint32_t>(sites[si].spares.size());
  o.failure_removed_node = j.failure_removed_node;
  o.failure_category = j.failure_category;
  o.failures_observed = j.failures_observed;
  o.elapsed_s = double(now - j.result.start_ns) / 1e9;
  o.step_s = j.last_step_s;
  // Before the first checkpoint the job can only estimate its cost (State::setup_jobs); afterwards it
  // knows what the last one took.
  o.checkpoint_write_s = j.last_ckpt_write_s > 0 ? j.last_ckpt_write_s : j.write_estimate_s;
  o.memory_write_s = w.memory_ckpt_s.value_or(0);
  o.restore_s = j.restore_estimate_s;
  o.collective_phase_fraction = j.collective_fraction;
  for (uint32_t si : j.sites) o.power_limited |= sites[si].limit_binds;
  o.power_capped = j.capped;
  o.sync_observed = j.sync_observed;
  o.local_steps = j.local_steps;
  o.prior_mtbf_s = j.prior_mtbf_s;
  o.prior_repair_s = prior_repair_s;
  o.restart_overhead_s = w.restart_overhead_s;
  o.reconfig_s = reconfig_s(j);
  o.rejoin_transfer_s = w.state_transfer_bw ? w.state_bytes / *w.state_transfer_bw : 0;
  o.memory_restore_s = w.memory_restore_s.value_or(0);
  return o;
}

Decision State::decide(Job& j, Epoch e) {
  Decision d = j.policy.decide(observe(j, e));
  if (d.checkpoint_interval_steps && d.checkpoint_interval_steps != j.ckpt_interval) {
    j.ckpt_interval = d.checkpoint_interval_steps;
    j.result.checkpoint_intervals.push_back(j.ckpt_interval);
  }
  if (d.local_steps) j.local_steps = d.local_steps;
  if (d.power_cap != PowerCapAction::keep) {
    if (!j.spec->power_cap) throw std::logic_error("policy capped a job that declares no power_cap operating point");
    set_power_cap(j, d.power_cap == PowerCapAction::cap);
  }
  j.result.abstentions += d.abstained;
  ++j.result.decisions;
  append_decision(j.result.decision_log, now, e, d);
  return d;
}

void State::start_job(Job& j) {
  j.result.start_ns = j.phase_since = now;
  // The planned step time is known before the first step runs (it is what the job was configured for).
  const auto& w = j.spec->workload;
  j.last_step_s = (w.t_step_s - w.t_exposed_comm_s) * j.slowest.max() * power_factor(j) + w.t_exposed_comm_s;
  decide(j, Epoch::start);
  next_action(j);
  // A site of the job may already be unable to power even its idle load (a steady limit, or a limit event
  // that began before the job did): the job starts paused.
  for (uint32_t si : j.sites)
    if (sites[si].power_paused) return sync_power_pause(j);
}

void State::next_action(Job& j) {
  const uint64_t target = j.spec->target_steps;
  bool at_target = target && j.frontier >= target;
  if (j.multi_site_sync && j.steps_since_sync > 0 && (j.steps_since_sync >= j.local_steps || at_target)) return start_sync(j);
  bool checkpoints = j.policy.spec().cadence != Cadence::none;
  if (at_target) {
    if (checkpoints && j.durable_step < j.frontier) return start_checkpoint(j, true);
    return finish_job(j);
  }
  if (j.checkpoint_requested) return start_checkpoint(j, true);  // before a planned stop only a durable copy survives
  if (j.steps_since_ckpt >= j.ckpt_interval) {
    const auto& p = j.policy.spec();
    return start_checkpoint(j, p.recovery != Recovery::in_memory || j.memory_since_durable + 1 >= p.durable_every);
  }
  if (j.rejoin_wanted) return start_rejoin(j);
  start_segment(j);
}

void State::start_segment(Job& j) {
  int64_t step = plan_step_ns(j);
  uint64_t n = 1;
  if (!j.spec->trace_phases) {
    n = j.ckpt_interval > j.steps_since_ckpt ? j.ckpt_interval - j.steps_since_ckpt : 1;
    if (j.multi_site_sync) n = std::min<uint64_t>(n, j.local_steps - j.steps_since_sync);
    if (j.spec->target_steps) n = std::min(n, j.spec->target_steps - j.frontier);
    n = std::min<uint64_t>(n, uint64_t((sc.horizon_ns - now) / step) + 1);  // never plan far past the horizon
  }
  j.seg_start = now;
  j.step_ns = step;
  j.seg_steps = n;
  j.subphase = 0;
  set_phase(j, Phase::computing);
  if (j.spec->trace_phases && j.compute_ns < step) push(now + j.compute_ns, Priority::completion, kSegmentEnd, j.index, j.gen, 0);
  else push(now + int64_t(n) * step, Priority::completion, kSegmentEnd, j.index, j.gen, 1);
}

void State::account_steps(Job& j, uint64_t steps, int64_t step_ns) {
  if (steps == 0) return;
  j.frontier += steps;
  j.steps_since_ckpt += steps;
  j.steps_since_sync += steps;
  j.result.work.attempted += steps * j.spec->workload.tokens_per_step;
  int64_t ns = int64_t(steps) * step_ns;
  j.since_durable_ns += ns;
  j.since_memory_ns += ns;
  j.cycle_compute_ns += ns;
  double gpu_s = double(ns) / 1e9 * active_gpus(j);
  j.gpu_s_since_durable += gpu_s;
  j.gpu_s_since_memory += gpu_s;
}

void State::on_segment_end(Job& j, uint16_t arg) {
  if (arg == 0) {  // traced step: compute done, the exposed collective starts (and the power drops)
    j.subphase = 1;
    for (uint32_t si : j.sites) power_changed(si);
    push(j.seg_start + j.step_ns, Priority::completion, kSegmentEnd, j.index, j.gen, 1);
    return;
  }
  account_steps(j, j.seg_steps, j.step_ns);
  j.last_step_s = double(j.step_ns) / 1e9;
  next_action(j);
}

// Something changed the step time or asked for a boundary mid-segment: end the segment at the next step
// boundary (now, if a step has just finished), then plan again.
void State::replan(Job& j) {
  if (j.phase != Phase::computing || j.spec->trace_phases) return;
  int64_t elapsed = now - j.seg_start;
  uint64_t end = uint64_t(elapsed / j.step_ns) + (elapsed % j.step_ns ? 1 : 0);
  if (end >= j.seg_steps) return;
  j.seg_steps = end;
  ++j.gen;
  push(j.seg_start + int64_t(j.seg_steps) * j.step_ns, Priority::completion, kSegmentEnd, j.index, j.gen, 1);
}

int32_t State::link_between(uint32_t a, uint32_t b) const {
  for (size_t l = 0; l < link_ends.size(); ++l)
    if ((link_ends[l].first == a && link_ends[l].second == b) || (link_ends[l].second == a && link_ends[l].first == b))
      return static_cast<int32_t>(l);
  return -1;
}

// State crossing between two sites uses the WAN link joining them (when one does) and both sites'
// transfer interfaces: a remote checkpoint store and a migrating replica take the same path.
void State::append_wan_path(std::vector<uint32_t>& path, uint32_t a, uint32_t b) const {
  if (int32_t l = link_between(a, b); l >= 0) path.push_back(static_cast<uint32_t>(link_resource[l]));
  for (uint32_t s : {a, b})
    if (sites[s].state_io >= 0) path.push_back(static_cast<uint32_t>(sites[s].state_io));
}

const StorageRef& State::storage_of(const Job& j, uint32_t si) const {
  const std::string& id = j.spec->checkpoint_storage.empty() ? sites[si].spec->storage : j.spec->checkpoint_storage;
  return storages.at(id);
}

std::vector<uint32_t> State::storage_path(const Job& j, uint32_t si, bool write) const {
  const StorageRef& st = storage_of(j, si);
  std::vector<uint32_t> path{static_cast<uint32_t>(write ? st.write : st.read)};
  if (st.site >= 0 && static_cast<uint32_t>(st.site) != si) {
    // A remote store is reached over the WAN link between the two sites and their transfer interfaces.
    append_wan_path(path, si, static_cast<uint32_t>(st.site));
  }
  return path;
}

// Checkpoint and restore traffic: each site moves its share of the state, in proportion to the
// capacity it holds, to or from its storage.
void State::start_flows(Job& j, Flows purpose, double total_bytes, bool write) {
  j.flows = purpose;
  j.flow_ids.clear();
  j.ckpt_shards.clear();
  std::vector<std::pair<uint32_t, double>> shares;
  for (uint32_t si : j.sites) {
    double cap = active_capacity_at(j, si);
    if (cap > 0) shares.push_back({si, total_bytes * cap / j.active_capacity});
  }
  double assigned = 0;
  for (size_t i = 0; i < shares.size(); ++i) {
    // The last site takes the remainder, so the shares add up to the state exactly.
    double bytes = i + 1 < shares.size() ? shares[i].second : total_bytes - assigned;
    assigned += bytes;
    if (purpose == Flows::checkpoint && opt.timeline) j.ckpt_shards.push_back({sites[shares[i].first].spec->id, bytes});
    j.flow_ids.push_back(net.start(now, bytes, storage_path(j, shares[i].first, write), 0, j.index, resched));
  }
  j.flows_left = static_cast<uint32_t>(j.flow_ids.size());
  flush_network();
}

void State::start_checkpoint(Job& j, bool durable) {
  j.ckpt_durable = durable;
  j.activity_start = now;
  set_phase(j, Phase::checkpointing);
  if (durable) {
    start_flows(j, Flows::checkpoint, j.spec->workload.state_bytes, true);
  } else {
    j.timer_stage = kStageMemoryCheckpoint;
    push(now + to_ns(*j.spec->workload.memory_ckpt_s), Priority::completion, kTimer, j.index, j.gen);
  }
}

void State::commit_checkpoint(Job& j) {
  if (opt.timeline)
    result.timeline.push_back({now, "checkpoint", j.spec->id, fmt::format("step {} {}", j.frontier, j.ckpt_durable ? "durable" : "memory")});
  if (opt.timeline) j.result.lineage.push_back({now, j.activity_start, j.frontier, false, j.ckpt_durable, j.ckpt_durable ? j.ckpt_shards : decltype(j.ckpt_shards){}});
  if (j.ckpt_durable) {
    j.durable_step = j.frontier;
    j.since_durable_ns = 0;
    j.gpu_s_since_durable = 0;
    j.memory_since_durable = 0;
    j.last_ckpt_write_s = double(now - j.activity_start) / 1e9;
    ++j.result.checkpoints_durable;
  } else {
    ++j.memory_since_durable;
    ++j.result.checkpoints_memory;
  }
  // Every checkpoint, durable or not, also refreshes the peer-memory copy the in-memory policy restores.
  j.memory_step = j.frontier;
  j.memory_valid = j.policy.spec().recovery == Recovery::in_memory;
  reset_group_hits(j);
  j.since_memory_ns = 0;
  j.gpu_s_since_memory = 0;
  j.steps_since_ckpt = 0;
  j.checkpoint_requested = false;
  decide(j, Epoch::checkpoint_committed);
  next_action(j);
}

void State::start_sync(Job& j) {
  std::vector<bool> present(sites.size(), false);
  for (const auto& g : j.groups)
    if (g.active) present[g.site] = true;
  j.activity_start = now;
  set_phase(j, Phase::syncing);
  j.flows = Flows::sync;
  j.flow_ids.clear();
  for (size_t l = 0; l < link_ends.size(); ++l) {
    auto [a, b] = link_ends[l];
    if (!present[a] || !present[b]) continue;
    std::vector<uint32_t> path{static_cast<uint32_t>(link_resource[l])};
    for (uint32_t s : {a, b})
      if (sites[s].state_io >= 0) path.push_back(static_cast<uint32_t>(sites[s].state_io));
    j.flow_ids.push_back(net.start(now, j.spec->sync_bytes, path, sc.links[l].latency_ns, j.index, resched));
  }
  j.flows_left = static_cast<uint32_t>(j.flow_ids.size());
  flush_network();
  if (j.flows_left == 0) on_sync_done(j);
}

void State::on_flow_done(Job& j, uint32_t flow) {
  double bytes = net.bytes(flow);
  auto& r = j.result;
  switch (j.flows) {
    case Flows::sync: r.sync_bytes += bytes; break;
    case Flows::checkpoint: r.checkpoint_bytes += bytes; break;
    case Flows::restore: r.restore_bytes += bytes; break;
    case Flows::rejoin: r.state_transfer_bytes += bytes; break;
    case Flows::migration:
      r.migration_bytes += bytes;
      for (auto& m : j.migrations)
        if (m.flow == flow) m.bytes = 0;
      break;
    case Flows::none: throw std::logic_error("a transfer completed for a job that had none");
  }
  j.flow_ids.erase(std::find(j.flow_ids.begin(), j.flow_ids.end(), flow));
  if (--j.flows_left) return;
  Flows purpose = j.flows;
  j.flows = Flows::none;
  switch (purpose) {
    case Flows::sync: on_sync_done(j); break;
    case Flows::checkpoint: commit_checkpoint(j); break;
    case Flows::restore: restore_done(j); break;
    case Flows::migration:
      j.migrations.clear();
      begin_restart(j);
      break;
    case Flows::rejoin:
      set_phase(j, Phase::reconfiguring);
      j.timer_stage = kStageRejoin;
      push(now + to_ns(reconfig_s(j)), Priority::completion, kTimer, j.index, j.gen);
      break;
    case Flows::none: break;
  }
}

void State::on_sync_done(Job& j) {
  int64_t sync_ns = now - j.activity_start;
  j.collective_fraction = j.cycle_compute_ns + sync_ns > 0 ? double(sync_ns) / double(j.cycle_compute_ns + sync_ns) : 0;
  j.sync_observed = true;
  j.result.local_steps_history.push_back(static_cast<uint32_t>(j.steps_since_sync));
  j.result.collective_fractions.push_back(j.collective_fraction);
  ++j.result.syncs;
  j.steps_since_sync = 0;
  j.cycle_compute_ns = 0;
  decide(j, Epoch::sync_completed);
  j.sync_observed = false;  // each completed cycle is evidence once
  next_action(j);
}

void State::on_timer(Job& j) {
  const auto& w = j.spec->workload;
  switch (j.timer_stage) {
    case kStageOverhead:
      if (j.restore_memory) {
        j.timer_stage = kStageMemoryRestore;
        push(now + to_ns(*w.memory_restore_s), Priority::completion, kTimer, j.index, j.gen);
      } else {
        start_flows(j, Flows::restore, w.state_bytes, false);
      }
      return;
    case kStageMemoryRestore: restore_done(j); return;
    case kStageShrink:
      offer_capacity(j);
      next_action(j);
      return;
    case kStageRejoin: {
      const uint32_t before = active_replicas(j);
      for (uint32_t index : std::vector<uint32_t>(j.inactive_replicas.begin(), j.inactive_replicas.end()))
        if (j.replicas[index].filled == j.replicas[index].slots) set_replica_active(j, index, true);
      if (j.policy.spec().reconfigure) record_degree_change(j, before);
      refresh_capacity(j);
      ++j.result.rejoins;
      next_action(j);
      return;
    }
    case kStageMemoryCheckpoint: commit_checkpoint(j); return;
  }
}

void State::restore_done(Job& j) {
  j.needs_restore = false;
  j.memory_valid = j.restore_memory;  // a fresh copy from durable storage is not yet in peer memory
  reset_group_hits(j);
  next_action(j);
}

void State::close_activity(Job& j, bool truncate) {
  auto& r = j.result;
  if (j.phase == Phase::computing) {
    int64_t elapsed = now - j.seg_start;
    uint64_t k = std::min<uint64_t>(uint64_t(elapsed / j.step_ns), j.seg_steps);
    account_steps(j, k, j.step_ns);
    int64_t partial = elapsed - int64_t(k) * j.step_ns;
    if (partial > 0) {
      // The processed share of the step in flight, in whole tokens (exact integer arithmetic).
      auto tokens = static_cast<uint64_t>((unsigned __int128)j.spec->workload.tokens_per_step * uint64_t(partial) / uint64_t(j.step_ns));
      r.work.attempted += tokens;
      (truncate ? r.work.lost_truncated : r.work.lost_interrupted) += tokens;
      r.time.compute_committed -= partial;
      r.time.compute_lost += partial;
      r.lost_gpu_hours += double(partial) / 3.6e12 * active_gpus(j);
    }
  }
  for (uint32_t f : j.flow_ids) {
    double moved = net.cancel(now, f, resched);
    switch (j.flows) {
      case Flows::sync: r.sync_bytes_aborted += moved; break;
      case Flows::checkpoint: r.checkpoint_bytes_aborted += moved; break;
      case Flows::restore: r.restore_bytes += moved; break;
      case Flows::rejoin: r.state_transfer_bytes += moved; break;
      case Flows::migration:
        // What crossed the link is counted; the rest is still owed and goes at the next restart.
        r.migration_bytes += moved;
        for (auto& m : j.migrations)
          if (m.flow == f) m.bytes = std::max(0.0, m.bytes - moved);
        break;
      case Flows::none: break;
    }
  }
  flush_network();
  j.flows = Flows::none;
  j.flow_ids.clear();
  j.flows_left = 0;
  ++j.gen;  // whatever the job had scheduled is now stale
}

void State::interrupt(Job& j, const std::string& cause, const std::string& category, bool removed_node, double observe_after) {
  switch (j.phase) {
    case Phase::pending:
    case Phase::done: return;
    case Phase::hung:
    case Phase::waiting: ++j.result.failures_absorbed; return;
    case Phase::paused:
      ++j.result.failures_absorbed;
      if (!j.needs_restore) {
        j.failed_while_paused = true;
        j.failure_category = category;
        j.failure_removed_node = removed_node;
      }
      return;
    default: break;
  }
  close_activity(j, false);
  ++j.result.interruptions[cause];
  ++j.result.interruptions_by_category[category];
  j.failure_category = category;
  j.failure_removed_node = removed_node;
  set_phase(j, Phase::hung);
  push(now + to_ns(observe_after >= 0 ? observe_after : j.spec->workload.detection_s), Priority::observation, kObserve, j.index, j.gen);
}

void State::on_observe(Job& j) {
  ++j.failures_observed;
  Decision d = decide(j, Epoch::failure_observed);
  j.use_spares = d.use_spares;
  j.migrate = d.migrate;
  switch (d.recovery) {
    case RecoveryAction::restore_durable:
    case RecoveryAction::restore_memory:
      if (d.recovery == RecoveryAction::restore_memory && !memory_usable(j))
        throw std::logic_error("policy restored from a peer-memory checkpoint that did not survive");
      rollback(j, d.recovery == RecoveryAction::restore_memory);
      try_restart(j);
      return;
    case RecoveryAction::continue_elastic:
      if (j.needs_restore || !j.failure_removed_node) throw std::logic_error("policy continued a job whose state was not intact");
      {
        const uint32_t before = active_replicas(j);
        std::set<uint32_t> hit;  // replicas with a vacant slot
        for (uint32_t slot : j.vacant_slots) hit.insert(j.slots[slot].replica);
        for (uint32_t index : hit) set_replica_active(j, index, false);
        if (j.policy.spec().reconfigure) record_degree_change(j, before);
      }
      refresh_capacity(j);
      if (j.active_capacity <= 0) throw std::logic_error("policy continued a job with no replica left");
      ++j.result.elastic_continuations;
      set_phase(j, Phase::reconfiguring);
      j.timer_stage = kStageShrink;
      push(now + to_ns(reconfig_s(j)), Priority::completion, kTimer, j.index, j.gen);
      return;
    case RecoveryAction::none: throw std::logic_error("policy gave no recovery for an observed failure");
  }
}

void State::rollback(Job& j, bool to_memory) {
  auto& r = j.result;
  uint64_t to = to_memory ? j.memory_step : j.durable_step;
  if (opt.timeline) r.lineage.push_back({now, now, to, true, !to_memory, {}});
  r.work.lost_rollback += (j.frontier - to) * j.spec->workload.tokens_per_step;
  int64_t ns = to_memory ? j.since_memory_ns : j.since_durable_ns;
  r.time.compute_committed -= ns;
  r.time.compute_lost += ns;
  r.lost_gpu_hours += (to_memory ? j.gpu_s_since_memory : j.gpu_s_since_durable) / 3600.0;
  if (to_memory) {
    j.since_durable_ns -= j.since_memory_ns;
    j.gpu_s_since_durable -= j.gpu_s_since_memory;
    ++r.restores_memory;
  } else {
    j.since_durable_ns = 0;
    j.gpu_s_since_durable = 0;
    j.memory_step = to;
    j.memory_valid = false;
    ++r.restores_durable;
  }
  j.since_memory_ns = 0;
  j.gpu_s_since_memory = 0;
  j.frontier = to;
  j.steps_since_ckpt = j.steps_since_sync = 0;
  j.cycle_compute_ns = 0;
  j.needs_restore = true;
  j.restore_memory = to_memory;
  j.rejoin_wanted = false;
}

// Vacant slots in order, each taking its site's lowest spare (fill removes the slot from the set).
void State::fill_from_spares(Job& j) {
  for (auto it = j.vacant_slots.begin(); it != j.vacant_slots.end();) {
    uint32_t i = *it++;
    if (!sites[j.slots[i].site].spares.empty()) fill(j, i, *sites[j.slots[i].site].spares.begin());
  }
}

void State::try_restart(Job& j) {
  if (j.use_spares) fill_from_spares(j);
  if (j.use_spares && j.migrate && !j.vacant_slots.empty()) {
    migrate_stranded(j);
    fill_from_spares(j);  // the nodes a moved replica left behind may complete another replica at its old site
  }
  if (!j.vacant_slots.empty()) {
    set_phase(j, Phase::waiting);  // for a repair, an outage's end, or (wait_restore) the job's own node
    return;
  }
  for (uint32_t index : std::vector<uint32_t>(j.inactive_replicas.begin(), j.inactive_replicas.end())) set_replica_active(j, index, true);
  refresh_capacity(j);
  if (!j.migrations.empty()) return start_migrations(j);
  begin_restart(j);
}

// Replicas with a slot their own site cannot fill move, whole, to the first other site of the job (in
// placement order) that is joined to theirs by a link and has spares for every node of the replica.
void State::migrate_stranded(Job& j) {
  std::set<uint32_t> stranded;
  for (uint32_t slot : j.vacant_slots) stranded.insert(j.slots[slot].replica);
  for (uint32_t index : stranded) {
    const Replica& r = j.replicas[index];
    for (uint32_t si : j.sites) {
      if (si == r.site || sites[si].spares.size() < r.slots || link_between(r.site, si) < 0) continue;
      const uint32_t from = r.site;
      move_replica(j, index, si);
      // The job's state is held in shares by capacity (State::start_flows): the moved capacity's share
      // crosses the link from its old site.
      j.migrations.push_back({from, si, j.spec->workload.state_bytes * j.replicas[index].capacity / j.nominal_capacity, 0});
      ++j.result.migrations;
      if (opt.timeline) result.timeline.push_back({now, "migration", j.spec->id, fmt::format("replica {} {} -> {}", index, sites[from].spec->id, sites[si].spec->id)});
      break;
    }
  }
}

// The replica leaves its site: the nodes it still holds become spares there, its slots belong to the
// other site's placement, and that site's spares fill them (and become their home for later repairs).
void State::move_replica(Job& j, uint32_t index, uint32_t to) {
  Replica& r = j.replicas[index];
  const uint32_t from = r.site, last = r.first_slot + r.slots;
  for (uint32_t i = r.first_slot; i < last; ++i) {
    int32_t node = j.slots[i].node;
    if (node < 0) continue;
    vacate(j, i);
    sites[from].spares.insert(static_cast<uint32_t>(node));
  }
  // Nodes under repair that called these slots home go to the spare pool when they return.
  for (auto& n : nodes)
    if (n.home_job == int32_t(j.index) && n.home_slot >= int32_t(r.first_slot) && n.home_slot < int32_t(last)) n.home_job = n.home_slot = -1;
  uint32_t group = 0;
  while (j.groups[group].site != to) ++group;  // every site of the job has its placement group
  if (r.active) {
    --j.groups[r.group].active;
    ++j.groups[group].active;
  }
  r.group = group;
  r.site = to;
  r.capacity = j.groups[group].replica_capacity;
  for (uint32_t i = r.first_slot; i < last; ++i) {
    j.slots[i].site = to;
    uint32_t node = *sites[to].spares.begin();
    fill(j, i, node);
    nodes[node].home_job = static_cast<int32_t>(j.index);
    nodes[node].home_slot = static_cast<int32_t>(i);
  }
  power_changed(from);
  power_changed(to);
}

// The moved replicas' state crosses the links (with both sites' transfer interfaces) before the relaunch.
void State::start_migrations(Job& j) {
  j.activity_start = now;
  set_phase(j, Phase::migrating);
  j.flows = Flows::migration;
  j.flow_ids.clear();
  for (auto& m : j.migrations) {
    if (m.bytes <= 0) continue;
    std::vector<uint32_t> path;
    append_wan_path(path, m.from, m.to);
    m.flow = net.start(now, m.bytes, path, sc.links[link_between(m.from, m.to)].latency_ns, j.index, resched);
    j.flow_ids.push_back(m.flow);
  }
  j.flows_left = static_cast<uint32_t>(j.flow_ids.size());
  flush_network();
  if (j.flows_left == 0) {
    j.flows = Flows::none;
    j.migrations.clear();
    begin_restart(j);
  }
}

void State::begin_restart(Job& j) {
  set_phase(j, Phase::restarting);
  j.timer_stage = kStageOverhead;
  push(now + to_ns(j.spec->workload.restart_overhead_s), Priority::completion, kTimer, j.index, j.gen);
}

void State::resume(Job& j) {
  if (j.failed_while_paused) {
    j.failed_while_paused = false;
    set_phase(j, Phase::hung);
    push(now, Priority::observation, kObserve, j.index, j.gen);
    return;
  }
  if (j.needs_restore) return try_restart(j);
  next_action(j);
}

void State::offer_capacity(Job& j) {
  if (j.phase == Phase::waiting) return try_restart(j);
  if (j.rejoin_wanted || j.needs_restore || j.pause_mask) return;
  if (j.phase != Phase::computing && j.phase != Phase::syncing && j.phase != Phase::checkpointing && j.phase != Phase::reconfiguring) return;
  if (restorable_replicas(j) == 0) return;
  if (decide(j, Epoch::capacity_returned).rejoin) {
    j.rejoin_wanted = true;
    replan(j);
  }
}

void State::start_rejoin(Job& j) {
  j.rejoin_wanted = false;
  uint32_t n = 0;
  for (uint32_t index : j.inactive_replicas) {
    Replica& r = j.replicas[index];
    if (r.slots - r.filled > sites[r.site].spares.size()) continue;
    for (uint32_t i = r.first_slot; i < r.first_slot + r.slots; ++i)
      if (j.slots[i].node < 0) fill(j, i, *sites[r.site].spares.begin());
    ++n;
  }
  if (n == 0) return start_segment(j);
  j.activity_start = now;
  set_phase(j, Phase::rejoining);
  j.flows = Flows::rejoin;
  j.flow_ids = {net.start(now, j.spec->workload.state_bytes * n, {static_cast<uint32_t>(j.transfer_resource)}, 0, j.index, resched)};
  j.flows_left = 1;
  flush_network();
}

void State::finish_job(Job& j) {
  set_phase(j, Phase::done);
  j.result.completed = true;
  j.result.end_ns = now;
  for (uint32_t i = 0; i < j.slots.size(); ++i) {
    Slot& s = j.slots[i];
    if (s.node < 0) continue;
    nodes[s.node].job = nodes[s.node].slot = -1;
    sites[nodes[s.node].site].spares.insert(static_cast<uint32_t>(s.node));
    s.node = -1;
    j.vacant_slots.insert(i);
  }
  for (auto& r : j.replicas) r.filled = 0;
  j.at_site.assign(sites.size(), SiteNodes{});
  j.full_active_replicas = 0;
  // Under a power limit the finished job's share of the budget goes to the jobs still running.
  for (uint32_t si : j.sites) std::isfinite(sites[si].allowed_w) ? update_power_caps(si) : power_changed(si);
  stopped = std::all_of(jobs.begin(), jobs.end(), [](const Job& x) { return x.phase == Phase::done; });
}

}  // namespace gs::sim::detail
