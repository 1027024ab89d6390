// A simulation scenario: sites, shared storage and WAN links, jobs with their recovery policies, the
// sourced failure data, stragglers, planned maintenance, and timed facility events.
//
// Numbers that describe the world (a step time, a bandwidth, a failure count) carry a source; numbers that
// describe the experiment (horizon, seed, event times, policy settings) are choices of the scenario. All
// values are held in the simulator's working units: seconds or integer nanoseconds, bytes, watts, USD.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/research/canonical_json.h"
#include "runtime/sim/inputs.h"

namespace gs::sim {

using research::Json;

class CheckpointIntervals;  // interval_model.h

struct SourceRef {
  std::string id, citation, url;
};

// Where one scenario number came from; kept for the report and the scenario hash.
struct Sourced {
  std::string path;  // e.g. "model.training.t_step", "storage.tectonic.write_bw"
  std::string text;  // as written, e.g. "2 TB/s"
  double value = 0;  // in `unit`
  std::string unit;
  std::string source;  // a SourceRef id, or "assumption" (then `note` says why the value is reasonable)
  std::string note;
};

struct Lognormal {
  double median = 0, sigma = 0;  // median in seconds
};

struct StorageSpec {
  std::string id, site;  // site may be empty: reachable from every site without a WAN hop
  double write_bw = 0, read_bw = 0;  // byte/s, shared by every transfer using the storage
};

struct LinkSpec {
  std::string id, a, b;
  double bandwidth = 0;  // byte/s, shared by every transfer on the link
  int64_t latency_ns = 0;
};

struct SiteSpec {
  std::string id;
  uint32_t nodes = 0, gpus_per_node = 0;  // physical nodes, including hot spares
  std::string storage;                    // default checkpoint target of jobs at this site
  double base_power_w = 0;                // fixed facility IT load outside the nodes (0 unless given)
  std::optional<double> state_io_bw;      // byte/s per site for inter-site transfers (none: no limit)
  std::optional<double> grid_limit_w, cooling_capacity_w;  // steady limits (none: unconstrained)
  std::map<std::string, double> model;   // facility variables of this site
  FacilityInputs facility;                // resolved from the top level and `model`
};

enum class Recovery { restart, wait_restore, in_memory, elastic, adaptive };
enum class Cadence { none, fixed_steps, fixed_time, young, daly };
enum class SyncMode { fixed, adaptive };

// The range of states the adaptive policy was calibrated on. Outside it the policy abstains and acts as
// the baseline, and says so.
struct Envelope {
  struct Range {
    std::string feature;
    double lo = 0, hi = 0;
  };
  std::vector<Range> ranges;
  std::string source;  // where the ranges came from (a calibration split, a run id)
};

struct PolicySpec {
  std::string label;  // the name reports use
  Recovery recovery = Recovery::restart;
  Cadence cadence = Cadence::daly;
  double cadence_value = 0;  // steps (fixed_steps) or seconds (fixed_time)
  uint32_t durable_every = 0;      // in_memory: a durable checkpoint every n peer-memory checkpoints
  uint32_t peer_group_nodes = 2;   // in_memory: nodes that hold each other's shards
  double min_replica_fraction = 1; // elastic, adaptive: never continue below this share of replicas
  double prior_failures = 0;       // adaptive: weight of the declared MTBF, in pseudo-failures
  Envelope envelope;               // adaptive
  SyncMode sync = SyncMode::fixed;
  uint32_t local_steps = 1;        // steps between inter-site synchronisations
  uint32_t sync_min = 1, sync_max = 1;
  double sync_high = 0, sync_low = 0;  // adaptive cadence: collective phase fraction thresholds
  // The future-trace oracle only (E001-RECOVERY-V2's upper-bound comparator): the instants at which the job
  // will be interrupted, in order. A policy holding them is no longer prefix-indistinguishable; it times
  // each checkpoint to commit just before the next interruption. Empty for every real policy.
  bool oracle = false;
  std::vector<int64_t> foresight_ns;
  // Interventions a fixed-rule policy may take besides recovery (E001-RECOVERY-V2's power-aware comparator).
  // migrate: after a failure, a replica its own site cannot refill moves to another site of the job that has
  // spares for all of it, and its share of the state crosses the WAN. power_aware: while a site of the job
  // is under a facility power limit, run the boards at the job's declared capped operating point
  // (JobSpec::power_cap) instead of leaving the facility to throttle them.
  bool migrate = false, power_aware = false;
  // Parallelism reconfiguration (elastic recovery only): the job continues at the smaller data-parallel
  // degree of its intact replicas and grows back when capacity returns, as elastic continuation does, but
  // each change of degree costs the job's declared reconfiguration time and the step at a degree is the
  // model's (JobSpec::reconfigure) instead of the step scaled by the lost capacity.
  bool reconfigure = false;
};

// A board power cap the job may run under, as the model prices it: the clock share the capped board
// sustains relative to the clock t_step was taken at (the model's gpu.power.clock_scale at the capped limit
// over the same at the uncapped one) and the board power while computing at that clock (the model's
// gpu.power.total at the cap). The engine reads both as given; it keeps no power law of its own.
struct PowerCapPoint {
  double board_w = 0, clock_share = 1, busy_w = 0;
  // The scenario left the clock share to the model (the job's model_preset): attach_job_model sets it.
  bool clock_share_from_model = false;
};

// Parallelism reconfiguration of a data-parallel job (PolicySpec::reconfigure). The cost is declared in
// the scenario with its source; the step-time table comes from the compiled model under the job's
// model_preset (attach_job_model): step_ratio[k - 1] is the model's step time with k replicas, the
// global batch kept, over its step time with all of them.
struct ReconfigureSpec {
  double cost_s = 0;               // one change of data-parallel degree (shrink or grow)
  std::vector<double> step_ratio;  // k = 1 .. replicas; empty until the model fills it
};

struct Placement {
  std::string site;
  uint32_t nodes = 0;
  double speed = 1;  // relative throughput of one node here (heterogeneous sites)
};

struct JobSpec {
  std::string id;
  std::vector<Placement> placement;
  uint32_t replica_nodes = 1;   // nodes per data-parallel replica (tensor x pipeline / GPUs per node)
  uint64_t target_steps = 0;    // 0: run until the horizon
  int64_t start_ns = 0;
  std::string checkpoint_storage;  // empty: each site writes its share to its own storage
  double sync_bytes = 0;           // bytes per WAN link per inter-site synchronisation
  bool trace_phases = false;       // one event per compute and per collective phase (power waveforms)
  std::optional<PowerCapPoint> power_cap;  // the capped operating point a power-aware policy may choose
  std::string model_preset;                 // the preset that models this job (its layout, its hardware)
  std::optional<ReconfigureSpec> reconfigure;  // what a parallelism reconfiguration costs and gives
  PolicySpec policy;
  std::map<std::string, double> model;  // workload variables of this job
  WorkloadInputs workload;              // resolved from the top level and `model`
};

// gpu, node and job are single units; a domain is `domain_nodes` consecutive nodes of one site that fail
// together (a rack, a PDU, a leaf switch): one failure takes every node of the domain.
enum class FailureUnit { gpu, node, domain, job };

struct FailureClass {
  std::string id, category;
  FailureUnit unit = FailureUnit::gpu;
  uint32_t domain_nodes = 0;   // domain classes: nodes per failure domain
  double rate_per_unit_s = 0;  // derived from the observed count, window and fleet size
  bool removes_node = true;    // hardware faults take the node away for repair; software faults do not
  Lognormal repair;
  // How this class surfaces: time until the job notices (an error exit within seconds, or a hang that waits
  // for a collective timeout) and time to localise the culprit before the relaunch. Unset: the job's
  // training.failure_detection_time applies, with no separate diagnosis.
  std::optional<double> detection_s, diagnosis_s;
  // Weibull shape of the hazard, the component's age counted from the run's start: 1 is the constant
  // hazard of a Poisson process, below 1 a falling one (infant mortality of a fresh fleet), above 1 a
  // rising one (wear-out). The scale is set so the expected count over the observed window stays the
  // observed count, whatever the shape.
  double weibull_shape = 1;
  // What the source observed, kept to set the simulated counts next to the published ones.
  uint64_t observed_count = 0, observed_units = 0;
  double observed_window_s = 0;
};

// A published figure a scenario is compared with (never fitted to): the simulation's value is reported next
// to it with the gap. Metrics: ettr, unexpected_interruptions, planned_interruptions, job_mtbf_h.
struct PublishedFigure {
  std::string id, metric, relation;  // relation: gt, lt or about (within `tolerance`, relative)
  double value = 0, tolerance = 0;
  std::string source, note;
};

struct MaintenanceSpec {
  double rate_per_job_s = 0;  // planned interruptions (preemptions with notice)
  int64_t notice_ns = 0;
  Lognormal duration;
};

struct StragglerSpec {
  double static_sigma = 0;               // lognormal spread of per-GPU speed, fixed for the run
  double transient_rate_per_node_s = 0;  // episodes of a slow node
  Lognormal transient_duration;
  double transient_slowdown = 1;         // step-time factor while an episode lasts
  double step_jitter_sigma = 0;          // per-step lognormal jitter (traced phases only)
};

enum class TimedKind { grid_limit, cooling_limit, site_outage, preemption };

struct TimedEvent {
  TimedKind kind = TimedKind::grid_limit;
  std::string id, site, job, cause;
  int64_t start_ns = 0, end_ns = 0, notice_ns = 0;
  double limit_w = 0;
};

struct Scenario {
  std::string id, description;
  uint64_t seed = 0;
  int64_t horizon_ns = 0;
  std::vector<SourceRef> sources;
  std::vector<Sourced> provenance;
  std::map<std::string, double> model;  // top-level model variables, shared by every job and site
  std::vector<SiteSpec> sites;
  std::vector<StorageSpec> storages;
  std::vector<LinkSpec> links;
  std::vector<JobSpec> jobs;
  std::vector<FailureClass> failures;
  MaintenanceSpec maintenance;
  StragglerSpec stragglers;
  std::vector<TimedEvent> events;
  std::vector<PublishedFigure> published;
  int64_t power_sample_ns = 0;  // > 0: record the IT power of each site for waveform analysis
  // The model's checkpoint-interval rules, which a job whose cadence is "young" or "daly" needs; whoever
  // loads a scenario with the model attaches them (CheckpointIntervals::from_model). Not part of the hash:
  // they are the model's, not the scenario's.
  std::shared_ptr<const CheckpointIntervals> intervals;
  bool needs_model_intervals() const;  // some job's cadence is young or daly
  bool needs_job_model() const;        // some job names a model_preset (attach_job_model fills what it gives)

  // Cross-checks references and ranges and resolves every job's and site's inputs. Throws
  // std::invalid_argument listing the problems. Loaders call it; so must code that builds a scenario.
  void finalize();
  Json to_json() const;     // normalised content: the basis of the scenario hash
  std::string hash() const;  // canonical SHA-256 of to_json()
  size_t site_index(const std::string& id) const;  // throws on unknown ids
};

const char* recovery_name(Recovery r);
Recovery parse_recovery(const std::string& s);  // throws std::invalid_argument

}  // namespace gs::sim
