// What one simulation run produced. Everything is derived from the event history; nothing here is wall
// clock, so two runs with the same scenario and seed produce identical results.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/sim/ledger.h"

namespace gs::sim {

// One entry of a job's checkpoint lineage (recorded with the timeline): a committed checkpoint, with the
// bytes each site wrote to its store, or a restore that rolled the job back to a committed step.
struct LineageEvent {
  int64_t t_ns = 0, write_start_ns = 0;  // restore: write_start_ns is unused
  uint64_t step = 0;
  bool restore = false, durable = true;
  std::vector<std::pair<std::string, double>> shards;  // (site, bytes) of a durable checkpoint
};

struct JobResult {
  std::string id, policy;
  uint32_t gpus = 0;
  int64_t start_ns = 0, end_ns = 0;  // end: completion or the end of the run
  bool completed = false;
  uint64_t steps_committed = 0;
  WorkLedger work;
  TimeLedger time;
  std::map<std::string, uint64_t> interruptions;              // by cause: failure class id, maintenance, outage ...
  std::map<std::string, uint64_t> interruptions_by_category;  // by the source's category (GPU, Network, Host ...)
  uint64_t failures_absorbed = 0;  // failures that hit the job while it was already interrupted
  uint64_t restores_durable = 0, restores_memory = 0, elastic_continuations = 0, rejoins = 0, abstentions = 0;
  uint64_t checkpoints_durable = 0, checkpoints_memory = 0, syncs = 0;
  double sync_bytes = 0, sync_bytes_aborted = 0, checkpoint_bytes = 0, checkpoint_bytes_aborted = 0;
  double restore_bytes = 0, state_transfer_bytes = 0;
  uint64_t migrations = 0, power_cap_changes = 0;  // replicas moved to another site; caps set or lifted
  uint64_t degree_changes = 0;                     // data-parallel degree changes of a reconfiguring policy
  double migration_bytes = 0;                      // state moved over the WAN after migrations (partial ones included)
  double gpu_busy_s = 0;       // GPU-seconds spent in compute phases
  double lost_gpu_hours = 0;   // GPU time of compute that did not survive
  std::optional<double> flops_attempted;  // when training.flops_per_step is given
  std::vector<uint32_t> checkpoint_intervals;  // every interval the policy set, in order
  std::vector<uint32_t> local_steps_history;   // synchronisation cadence at each completed sync
  std::vector<double> collective_fractions;    // observed collective phase fraction per completed sync
  uint64_t decisions = 0;
  std::string decision_log;      // one line per decision: epoch, time and what was decided (not in reports)
  std::string decisions_sha256;  // digest of the decision log
  std::vector<LineageEvent> lineage;  // with SimOptions::timeline

  double wall_s() const { return double(end_ns - start_ns) / 1e9; }
  double goodput_tokens_per_s() const { return wall_s() > 0 ? double(work.committed) / wall_s() : 0; }
  double ettr() const { return end_ns > start_ns ? double(time.compute_committed) / double(end_ns - start_ns) : 0; }
};

struct SiteResult {
  std::string id;
  double it_energy_j = 0, facility_energy_j = 0, peak_it_w = 0;
  std::optional<double> energy_cost_usd, gpu_cost_usd;
  double limit_unmet_s = 0;  // time a power limit was below the site's idle load (it could not be honoured)
  std::vector<std::pair<int64_t, double>> power_trace;  // (time, IT watts) at every change, when sampled
};

// The run set next to the published figures its scenario declares (never fitted to them).
struct FigureComparison {
  std::string id, metric, relation, source, note;
  double published = 0, tolerance = 0, simulated = 0;
  bool consistent = false;  // the simulated value satisfies the published relation
};
// Interruptions of one failure class: what the run counted against what the source observed, scaled to the
// job's units and wall time (for a scenario that replays its source, the observed count itself).
struct CauseComparison {
  std::string cause, category;
  uint64_t simulated = 0, observed_count = 0;
  double expected = 0;  // observed rate x the job's units x the job's wall time
};
struct PublishedComparison {
  std::vector<FigureComparison> figures;
  std::vector<CauseComparison> causes;
  bool empty() const { return figures.empty(); }
};

// One entry of the per-event timeline (recorded only when asked for): a job phase change, a failure, a
// repair or a committed checkpoint.
struct TimelineEvent {
  int64_t t_ns = 0;
  std::string kind;     // phase, failure, repair, checkpoint
  std::string subject;  // the job, or the failure class
  std::string detail;   // the new phase, the node hit, the checkpoint's step and kind
};
// A site's resources at a change: its IT power and where its nodes are.
struct UtilisationSample {
  int64_t t_ns = 0;
  std::string site;
  double it_w = 0;
  uint32_t nodes_in_jobs = 0, nodes_spare = 0, nodes_down = 0;  // down: under repair or in an outage
};

struct SimResult {
  std::string scenario_id, scenario_hash, recovery_override;
  uint64_t seed = 0;
  int64_t end_ns = 0;
  std::vector<JobResult> jobs;
  std::vector<SiteResult> sites;
  std::map<std::string, uint64_t> fleet_failures;  // every failure drawn, by class, including spares and idle nodes
  uint64_t repairs = 0, straggler_episodes = 0;
  uint64_t events = 0, causality_violations = 0;
  double peak_it_w = 0;  // all sites together
  PublishedComparison published;  // filled when the scenario declares published figures
  std::vector<TimelineEvent> timeline;          // with SimOptions::timeline
  std::vector<UtilisationSample> utilisation;   // with SimOptions::timeline

  bool work_conserved() const;
  bool time_partitioned() const;  // each job's time buckets add up to its wall time exactly
};

}  // namespace gs::sim
