// E001-RECOVERY-V2: matched recovery mechanics. Seven recovery policies run one multi-site training job
// through the same failure trace (one seed, separate random streams): synchronous wait-and-restore, fixed
// cadence checkpoint-restart, the adaptive candidate, a future-trace oracle that may see when the job
// will be interrupted, reactive membership, power-aware migration and parallelism reconfiguration. Each policy also runs once with no failure realised (same priors, same cadence
// rules), which is what recovery debt is measured against.
//
// The scenario (schema gpu-stack.e001-recovery-scenario.v2, JSON) holds the experiment's choices and
// names a simulator scenario (TOML, docs/simulator.md) that holds the sourced world: sites, link, stores,
// the job, failure classes. docs/experiments.md describes the result.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "image/units.h"
#include "runtime/research/protocol.h"
#include "runtime/sim/result.h"
#include "runtime/sim/scenario.h"
#include "runtime/sim/timeline.h"

namespace gs::sim {

struct RecoveryV2Scenario {
  research::Json raw;    // the JSON file as read
  Scenario world;        // the simulator scenario it names, finalized
  uint64_t seed = 0;
  std::string job_id;
  uint64_t target_steps = 0;           // the frozen durable-frontier target
  uint32_t fixed_checkpoint_steps = 0;  // both fixed-cadence baselines
  uint32_t synchronous_local_steps = 1, fixed_local_steps = 8;
  uint32_t sync_min = 1, sync_max = 64;
  double sync_high = 0.45, sync_low = 0.2;
  std::vector<std::string> evaluation_ids;
  std::string id() const { return raw.at("scenario_id").get<std::string>(); }
  // The world one policy runs: the job's recovery, cadence and synchronisation replaced. `foresight`, for
  // the oracle only, lists the instants it will be interrupted (an empty list: it knows there are none);
  // without it the oracle's settings run at the fixed cadence, to discover the trace.
  Scenario for_policy(const std::string& policy, const std::optional<std::vector<int64_t>>& foresight = std::nullopt) const;
};

// `path` locates the world file (relative to the JSON file's folder) and names the file in messages.
// Throws std::invalid_argument with every problem found.
RecoveryV2Scenario load_recovery_v2_scenario(const research::Json& j, const std::string& path, const gs::UnitTable& units);

struct RecoveryV2Policy {
  std::string id, role;
};
const std::vector<RecoveryV2Policy>& recovery_v2_policies();

// One policy's matched pair of runs.
struct RecoveryV2Run {
  RecoveryV2Policy policy;
  SimResult with_failures, no_failure;
};

// Runs every policy (each with and without failures, all recording lineage and timeline).
std::vector<RecoveryV2Run> run_recovery_v2_policies(const RecoveryV2Scenario& sc, uint64_t seed);

// Recovery debt: time to the durable-frontier target minus the matched no-failure run's time, seconds;
// absent (unresolved) when either run never reached the target.
std::optional<double> recovery_debt_s(const JobResult& with_failures, const JobResult& no_failure, uint64_t target_steps);

// The checkpoint lineage of one job as manifests: every committed checkpoint with its parent (the
// checkpoint its state descends from, "genesis" for the initial state), step, bytes and sites, and every
// restore with the manifest it read. Throws std::logic_error when the chain is broken.
research::Json lineage_manifests(const JobResult& job, const std::string& prefix);

// Decisions logged strictly before `t_ns` (the decision log's lines carry their time first).
std::string decisions_before(const std::string& log, int64_t t_ns);

// The result payload (not yet sealed): runs, artifacts, comparison, matched trace.
research::Json run_recovery_v2(const research::ExperimentProtocol& protocol, const RecoveryV2Scenario& sc, uint64_t seed,
                               std::optional<TimelineFormat> timeline_format, std::string* timeline_out);

}  // namespace gs::sim
