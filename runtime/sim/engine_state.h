// Internal state of one simulation run, shared by the files that implement it: engine.cpp (set-up, the
// event loop, the end of the run), facility.cpp (failures, repairs, outages, power limits, stragglers,
// maintenance, energy) and job.cpp (the job state machine and the policy boundary).
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/sim/engine.h"
#include "runtime/sim/event_queue.h"
#include "runtime/sim/failures.h"
#include "runtime/sim/network.h"
#include "runtime/sim/policy.h"
#include "runtime/rng.h"
#include "runtime/sim/stragglers.h"

namespace gs::sim::detail {

enum Kind : uint16_t {
  kJobStart, kSegmentEnd, kFlow, kTimer, kObserve, kFailure, kRepairDone, kStragglerStart, kStragglerEnd,
  kMaintenanceNotice, kMaintenanceStart, kMaintenanceEnd, kLimitStart, kLimitEnd, kOutageStart, kOutageEnd,
  kPreemptNotice, kPreemptStart, kPreemptEnd, kHorizon
};

struct Node {
  uint32_t site = 0;
  int32_t job = -1, slot = -1;          // where it works now (-1: spare or unavailable)
  int32_t home_job = -1, home_slot = -1;  // where it was first placed (a repaired node goes back there)
  bool repairing = false, outage = false;
  double static_slowdown = 1, transient = 1;
  uint32_t gen = 0;  // straggler episodes
  bool available() const { return !repairing && !outage; }
  double slowdown() const { return static_slowdown * transient; }
};

struct Site {
  const SiteSpec* spec = nullptr;
  uint64_t first_node = 0, first_gpu = 0;
  uint32_t placed = 0;  // nodes given to jobs at set-up (the lowest ids of the site)
  std::set<uint32_t> spares;  // available, unassigned nodes; lowest id is taken first
  int32_t state_io = -1;  // network resource for inter-site transfers (-1: unlimited)
  std::vector<std::pair<uint32_t, double>> grid_limits, cooling_limits;  // active timed limits (event, watts)
  double allowed_w = std::numeric_limits<double>::infinity();  // IT power the site may draw now (infinity: no limit)
  double rho = 1;           // share of the dynamic GPU power the facility can grant (power cap)
  bool power_paused = false;
  bool limit_binds = false;  // a facility limit is below what the site would draw with every board uncapped
  // Energy.
  double it_w = 0;
  int64_t since = 0;
  double it_energy_j = 0, peak_it_w = 0, limit_unmet_s = 0;
  uint32_t nodes_down = 0;  // under repair or in an outage (kept incrementally for the utilisation record)
  bool sample_pending = false;  // the timeline wants a utilisation sample after the current event
  std::vector<std::pair<int64_t, double>> trace;
};

enum class Phase { pending, computing, syncing, checkpointing, hung, waiting, restarting, reconfiguring, rejoining, paused, migrating, done };
const char* phase_name(Phase p);
enum class Flows { none, sync, checkpoint, restore, rejoin, migration };

// A replica moved to another site before a restart: its share of the state still has to cross the WAN.
struct PendingMigration {
  uint32_t from = 0, to = 0;
  double bytes = 0;  // still to move
  uint32_t flow = 0;  // the transfer in flight, when there is one
};
enum PauseBit : uint32_t { kPausePower = 1, kPauseMaintenance = 2, kPausePreempt = 4 };

struct Slot {
  int32_t node = -1;  // -1: vacant
  uint32_t replica = 0, site = 0;
};

struct Replica {
  uint32_t first_slot = 0, slots = 0, site = 0;
  double capacity = 0;  // nodes x speed
  bool active = true;
  uint32_t filled = 0;  // slots holding a node
  uint32_t group = 0;   // the placement it came from (Job::groups)
};

// One placement of a job: its replicas share a site and a capacity, so the job's active capacity is a
// sum over placements of (active replicas x capacity), kept without walking the replicas.
struct PlacementGroup {
  uint32_t site = 0;
  double replica_capacity = 0;  // replica nodes x speed
  uint32_t active = 0;          // active replicas
};

// The job's nodes at one site, by whether their replica is active: what the site's power and
// utilisation need, kept up to date as slots fill and empty and replicas join and leave.
struct SiteNodes {
  uint32_t active = 0, inactive = 0;
};

struct Job {
  const JobSpec* spec = nullptr;
  Policy policy{PolicySpec{.cadence = Cadence::none}};  // replaced at set-up
  uint32_t index = 0, gpus_per_node = 0, gen = 0;
  std::vector<Slot> slots;
  std::vector<Replica> replicas;
  std::vector<uint32_t> sites;  // site indices, in placement order
  MaxTree slowest;
  double nominal_capacity = 0, active_capacity = 0;
  // Aggregates kept incrementally on every fill, vacate and replica change, so that no per-event work
  // walks the job's slots or replicas (per-event cost independent of the fleet's size).
  std::vector<PlacementGroup> groups;
  std::vector<SiteNodes> at_site;      // by site index (all sites of the scenario)
  uint32_t full_active_replicas = 0;   // active replicas with every slot filled
  std::set<uint32_t> vacant_slots;     // ordered: a restart fills the lowest slot first
  std::set<uint32_t> inactive_replicas;  // ordered: a rejoin takes replicas in index order
  uint32_t lost_groups = 0;            // peer groups every holder of which failed since the last reset
  std::vector<uint32_t> hit_groups;    // peer groups with a hit since the last reset (cleared lazily)
  double write_estimate_s = 0, restore_estimate_s = 0;  // checkpoint write and read at configured bandwidths
  bool multi_site_sync = false;
  Phase phase = Phase::pending;
  int64_t phase_since = 0;
  uint32_t pause_mask = 0;
  // Progress.
  uint64_t frontier = 0, durable_step = 0, memory_step = 0;
  bool memory_valid = false;
  std::vector<uint32_t> group_hits;  // failed nodes per peer group since the last memory checkpoint
  uint64_t steps_since_ckpt = 0, steps_since_sync = 0;
  uint32_t memory_since_durable = 0, ckpt_interval = 0, local_steps = 1;
  bool checkpoint_requested = false, rejoin_wanted = false, use_spares = true;
  bool migrate = false;  // the last failure decision allows moving stranded replicas to another site
  bool capped = false;   // the boards run at the job's declared power-cap operating point
  std::vector<PendingMigration> migrations;
  bool needs_restore = false;        // rolled back; a restart must load the checkpoint before work resumes
  bool failed_while_paused = false;  // a failure hit the paused job; the policy sees it when the pause ends
  // Current activity.
  int64_t seg_start = 0, step_ns = 0, compute_ns = 0;  // compute_ns: compute part of a traced step
  uint64_t seg_steps = 0;
  uint16_t subphase = 0;  // traced steps: 0 compute, 1 collective
  Flows flows = Flows::none;
  std::vector<uint32_t> flow_ids;
  uint32_t flows_left = 0;
  bool ckpt_durable = true, restore_memory = false;
  std::vector<std::pair<std::string, double>> ckpt_shards;  // the checkpoint being written: bytes per site (timeline only)
  uint16_t timer_stage = 0;
  int64_t activity_start = 0;
  // Telemetry the policy may see.
  double last_step_s = 0, last_ckpt_write_s = 0, collective_fraction = 0;
  bool sync_observed = false;
  int64_t cycle_compute_ns = 0;
  std::string failure_category;
  bool failure_removed_node = false;
  uint32_t failures_observed = 0;
  double prior_mtbf_s = 0;
  int32_t transfer_resource = -1;  // network resource for rejoin state transfers
  // Accounting.
  int64_t compute_total = 0, since_durable_ns = 0, since_memory_ns = 0;
  double gpu_s_since_durable = 0, gpu_s_since_memory = 0;
  JobResult result;
};

struct StorageRef {
  int32_t write = -1, read = -1;  // network resources
  int32_t site = -1;              // where the storage lives (-1: reachable from every site)
  double write_bw = 0, read_bw = 0;
};

struct State {
  const Scenario& sc;
  SimOptions opt;
  EventQueue q;
  Network net;
  std::vector<Site> sites;
  std::vector<Node> nodes;
  std::vector<Job> jobs;
  std::vector<int32_t> link_resource;  // per scenario link
  std::vector<std::pair<uint32_t, uint32_t>> link_ends;  // site indices of each link
  std::map<std::string, StorageRef> storages;
  FailureProcess failures;
  Rng rng_fail, rng_repair, rng_straggle, rng_maint, rng_jitter;
  double prior_repair_s = 0;
  std::vector<Network::Reschedule> resched;
  int64_t now = 0;
  bool stopped = false;
  SimResult result;

  State(const Scenario& s, const SimOptions& o);
  void setup_sites();
  void setup_jobs();
  void schedule_world();  // job starts, the first failure and straggler, maintenance, timed events
  void push(int64_t t, Priority p, Kind k, uint32_t target, uint32_t gen = 0, uint16_t arg = 0) {
    q.push(t, now, p, k, target, gen, arg);
  }
  void flush_network();  // schedules the completion times the network reported
  bool handle(const Event& e);

  Job& job_named(const std::string& id);
  void finish_run();

  // facility.cpp
  void schedule_failure();
  void schedule_straggler();
  void on_failure();
  void on_repair_done(uint32_t node);
  void return_node(uint32_t node);
  void on_straggler_start();
  void on_straggler_end(uint32_t node, uint32_t gen);
  void on_limit(uint32_t event, bool start);
  void on_outage(uint32_t event, bool start);
  void on_notice(Job& j, bool maintenance);
  void on_maintenance_start(Job& j);
  void on_maintenance_end(Job& j);
  void on_interruption_start(Job& j, uint32_t pause_bit, const std::string& cause);
  void on_interruption_end(Job& j, uint32_t pause_bit);
  void sync_power_pause(Job& j);
  void update_power_caps(uint32_t site);
  void power_changed(uint32_t site);
  void flush_utilisation();
  double node_power_w(const Job& j, uint32_t site, bool active) const;

  // job.cpp
  void start_job(Job& j);
  void next_action(Job& j);
  void set_phase(Job& j, Phase p);
  void start_segment(Job& j);
  void on_segment_end(Job& j, uint16_t subphase);
  void replan(Job& j);
  void start_checkpoint(Job& j, bool durable);
  void commit_checkpoint(Job& j);
  void start_sync(Job& j);
  void on_flow_done(Job& j, uint32_t flow);
  void on_sync_done(Job& j);
  void restore_done(Job& j);
  void resume(Job& j);
  void on_timer(Job& j);
  // observe_after_s: detection plus diagnosis of this cause (negative: the job's training.failure_detection_time).
  void interrupt(Job& j, const std::string& cause, const std::string& category, bool removed_node, double observe_after_s = -1);
  double observe_after_s(const FailureClass& cls) const;
  void fail_node(uint32_t node, const FailureClass& cls, std::optional<int64_t>& repair_ns, std::vector<uint32_t>& interrupted_jobs);
  void close_activity(Job& j, bool truncate);
  void on_observe(Job& j);
  void rollback(Job& j, bool to_memory);
  void try_restart(Job& j);
  void offer_capacity(Job& j);
  void start_rejoin(Job& j);
  void fill_from_spares(Job& j);
  void migrate_stranded(Job& j);
  void move_replica(Job& j, uint32_t replica, uint32_t to_site);
  void start_migrations(Job& j);
  void begin_restart(Job& j);
  void set_power_cap(Job& j, bool capped);
  double busy_w(const Job& j) const;  // board power while computing, at the job's current cap
  int32_t link_between(uint32_t a, uint32_t b) const;  // the first link joining two sites, or -1
  void append_wan_path(std::vector<uint32_t>& path, uint32_t a, uint32_t b) const;  // link (if any) + both transfer interfaces
  void vacate(Job& j, uint32_t slot);
  void fill(Job& j, uint32_t slot, uint32_t node);
  void update_slot(Job& j, uint32_t slot);
  void set_replica_active(Job& j, uint32_t replica, bool active);
  void count_node(Job& j, const Replica& r, int delta);
  void reset_group_hits(Job& j);
  double active_capacity_at(const Job& j, uint32_t site) const;
  void account_steps(Job& j, uint64_t steps, int64_t step_ns);
  uint32_t active_gpus(const Job& j) const;
  void refresh_capacity(Job& j);  // the active capacity from the placement groups: O(placements)
  Observation observe(const Job& j, Epoch e) const;
  uint32_t restorable_replicas(const Job& j) const;
  bool memory_usable(const Job& j) const;
  const StorageRef& storage_of(const Job& j, uint32_t site) const;
  void start_flows(Job& j, Flows purpose, double total_bytes, bool write);
  Decision decide(Job& j, Epoch e);
  int64_t plan_step_ns(Job& j);
  double power_factor(const Job& j) const;
  // How much longer a step's compute takes than at full membership: the lost capacity's share (the global
  // batch is kept), or under parallelism reconfiguration the model's step at the job's current degree.
  double capacity_factor(const Job& j) const;
  double reconfig_s(const Job& j) const;  // one membership or degree change
  uint32_t active_replicas(const Job& j) const;
  void record_degree_change(Job& j, uint32_t before);  // a reconfiguring job's data-parallel degree moved
  std::vector<uint32_t> storage_path(const Job& j, uint32_t site, bool write) const;
  void finish_job(Job& j);
};

}  // namespace gs::sim::detail
